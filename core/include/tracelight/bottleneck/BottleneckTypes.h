#pragma once
// The bottleneck types of one analysed data set: index 0 is "gaps"; every other type is added when a
// span or segment type first resolves to it (by the rules, else the default: a span's service, an event
// log segment's category). Shared by the threads of a pass: lookups by name and additions are locked,
// which happens once per distinct span shape per thread, never per slice.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "tracelight/analysis/TraceData.h"
#include "tracelight/bottleneck/BottleneckRules.h"
#include "tracelight/store/SpanRecords.h"
#include "tracelight/studies/Categories.h"

namespace tracelight {

struct BottleneckType {
    std::string name, howToFix;
};

class BottleneckTypeTable {
public:
    // Names every segment type of data at once (event logs: rules, else the category by categoryRules); a
    // name becomes a type when first used, so span data's service types keep their own "how to fix".
    BottleneckTypeTable(const TraceData& data, BottleneckRules rules, const CategoryRules& categoryRules);

    static constexpr std::uint32_t kGaps = 0;

    std::uint32_t ofSegmentType(SegmentTypeId type) {
        if (type.value >= m_segmentTypeIndex.size()) return kGaps;
        const std::uint32_t known = m_segmentTypeIndex[type.value].load(std::memory_order_acquire);
        return known != kUnresolved ? known : resolveSegmentType(type.value);
    }
    // A span's type (thread-safe). The default is its service's name as the categories derive it
    // (hostRole: "frontend-579b9bff58-t2dbm" -> "frontend"), from the host when the service is empty.
    std::uint32_t ofSpan(const SpanShape& span);
    // A client span's own time, the hop of its call to `callee` (a service), when no rule names the span:
    // the type "caller → callee" (thread-safe).
    std::uint32_t ofHop(const SpanShape& span, const std::string& callee);
    // Span data's work no caller waited for, one type whatever the span ("[async]", as the profile's frame).
    std::uint32_t asyncWork();

    // A copy of the types so far (thread-safe); indices never change.
    std::vector<BottleneckType> types() const;
    std::size_t size() const;

private:
    static constexpr std::uint32_t kUnresolved = 0xFFFFFFFFu;
    std::uint32_t resolveSegmentType(std::uint32_t type);
    std::uint32_t intern(const std::string& name, const std::string& howToFix);  // m_mutex held

    BottleneckRules m_rules;
    std::vector<BottleneckType> m_segmentTypeNames;                 // what each segment type is called
    std::vector<std::atomic<std::uint32_t>> m_segmentTypeIndex;     // its type, once used
    mutable std::mutex m_mutex;
    std::vector<BottleneckType> m_types;
    std::unordered_map<std::string, std::uint32_t> m_byName;
    std::unordered_map<std::string, std::uint32_t> m_spanShape;  // host, service, operation, kind -> type
};

} // namespace tracelight
