#pragma once
// One request's BOSS contributions by bottleneck type: what was active when, then the timeline split
// (Contribution.h). Span data: a span is active during its self time, its own duration not covered by its
// children (a parent waiting on its children is not charged; its work before, between and after them is).
// Event logs: a segment is active from its start to its end. The timeline is the request as the analysis
// measures its latency (event logs: first to last event; span data: the roots' extent, as the critical
// path), so the contributions add up exactly to it. Span data's work no caller waited for is the type
// "[async]" while it runs within that.
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/Segments.h"
#include "tracelight/bottleneck/BottleneckTypes.h"
#include "tracelight/bottleneck/Contribution.h"
#include "tracelight/store/SpanRecords.h"
#include "tracelight/studies/SpanCalls.h"

namespace tracelight {

// Self time of every span: [startNs[i], endNs[i]) minus the union of its children's intervals, clipped to
// itself (times on one clock, given per span). Appends the pieces with type = the span's index. O(n log n).
void appendSpanSelfTime(std::span<const SpanShape> spans, std::span<const TimeNs> startNs, std::span<const TimeNs> endNs,
                        std::vector<ActiveInterval>& out);

// Host label text -> host index, to put a span's recorded times on the analysis clock.
std::unordered_map<std::string, HostId> hostsByName(const TraceData& data);

// One per thread; reuses its memory from request to request.
class RequestBottleneckPass {
public:
    RequestBottleneckPass(const InMemoryAnalysis& analysis, const std::unordered_map<std::string, HostId>& hosts,
                          BottleneckTypeTable& types)
        : m_analysis(analysis), m_hosts(hosts), m_types(types) {}

    // Contributions by type index of the table, the gaps in byType[kGaps] (gapsNs is 0); byType may be
    // shorter than the table (absent types are 0).
    // spans: the request's span shapes; null or empty: its segments (event logs, or spans without records).
    const RequestContribution& run(std::size_t row, const std::vector<SpanShape>* spans);
    TimeNs latencyNs() const { return m_latencyNs; }

private:
    void splitAsyncWork(const std::vector<SpanShape>& spans);

    const InMemoryAnalysis& m_analysis;
    const std::unordered_map<std::string, HostId>& m_hosts;
    BottleneckTypeTable& m_types;
    std::vector<SegmentInstance> m_segments;
    std::vector<ActiveInterval> m_intervals;
    std::vector<TimeNs> m_spanStart, m_spanEnd;
    std::vector<SpanTiming> m_timings;
    std::vector<SpanPart> m_async;  // the request's work no caller waited for, by span
    static constexpr std::uint32_t kNoType = ~0u;
    std::vector<std::uint32_t> m_spanType;  // per span, once resolved
    SpanCalls m_calls;                      // per span: its service, and its callee when it is a client span
    ContributionScratch m_scratch;
    RequestContribution m_result;
    TimeNs m_latencyNs = 0;
};

} // namespace tracelight
