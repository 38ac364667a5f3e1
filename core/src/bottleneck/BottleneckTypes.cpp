#include "tracelight/bottleneck/BottleneckTypes.h"

#include "tracelight/studies/Aggregates.h"

namespace tracelight {

BottleneckTypeTable::BottleneckTypeTable(const TraceData& data, BottleneckRules rules, const CategoryRules& categoryRules)
    : m_rules(std::move(rules)) {
    intern(std::string(kGapsType), gapsHowToFix());
    const TypeCategories categories = categorizeSegmentTypes(data, categoryRules);
    const SegmentTypeFactsTable facts = m_rules.empty() ? SegmentTypeFactsTable{} : segmentTypeFacts(data);
    m_segmentTypeNames.resize(data.segmentTypes.size());
    m_segmentTypeIndex = std::vector<std::atomic<std::uint32_t>>(data.segmentTypes.size());
    for (std::size_t t = 0; t < data.segmentTypes.size(); ++t) {
        m_segmentTypeIndex[t].store(kUnresolved, std::memory_order_relaxed);
        const std::string& category = categories.categories[static_cast<std::size_t>(categories.typeCategory[t])];
        if (!m_rules.empty() && facts.seen[t]) {
            const SegmentTypeFacts& f = facts.facts[t];
            if (const BottleneckRule* rule = m_rules.match({f.host, hostRole(f.host), f.task, f.startEvent, f.endEvent, ""})) {
                m_segmentTypeNames[t] = {rule->type, rule->howToFix};
                continue;
            }
        }
        m_segmentTypeNames[t] = {category, categoryHowToFix(category)};
    }
}

std::uint32_t BottleneckTypeTable::resolveSegmentType(std::uint32_t type) {
    std::lock_guard lock(m_mutex);
    const std::uint32_t index = intern(m_segmentTypeNames[type].name, m_segmentTypeNames[type].howToFix);
    m_segmentTypeIndex[type].store(index, std::memory_order_release);
    return index;
}

std::uint32_t BottleneckTypeTable::intern(const std::string& name, const std::string& howToFix) {
    auto [it, fresh] = m_byName.emplace(name, static_cast<std::uint32_t>(m_types.size()));
    if (fresh) m_types.push_back({name, howToFix});
    return it->second;
}

std::uint32_t BottleneckTypeTable::ofHop(const SpanShape& span, const std::string& callee) {
    const std::string service(span.service), operation(span.operation);
    if (!m_rules.empty() &&
        m_rules.match({std::string(span.host), service, service + ":" + operation, operation, operation, std::string(span.kind)}))
        return ofSpan(span);
    const std::string caller = hostRole(!service.empty() ? service : !span.host.empty() ? std::string(span.host) : std::string("?"));
    std::lock_guard lock(m_mutex);
    return intern(caller + " → " + callee, hopHowToFix(caller, callee));
}

std::uint32_t BottleneckTypeTable::ofSpan(const SpanShape& span) {
    std::string shape(span.host);
    for (const std::string_view part : {span.service, span.operation, span.kind}) {
        shape += '\x1f';
        shape += part;
    }
    std::lock_guard lock(m_mutex);
    if (auto it = m_spanShape.find(shape); it != m_spanShape.end()) return it->second;
    std::uint32_t type;
    const std::string service(span.service), operation(span.operation);
    const BottleneckRule* rule =
        m_rules.match({std::string(span.host), service, service + ":" + operation, operation, operation, std::string(span.kind)});
    if (rule) {
        type = intern(rule->type, rule->howToFix);
    } else {
        const std::string role = hostRole(!service.empty() ? service : !span.host.empty() ? std::string(span.host) : std::string("?"));
        type = intern(role, serviceHowToFix(role));
    }
    m_spanShape.emplace(std::move(shape), type);
    return type;
}

std::uint32_t BottleneckTypeTable::asyncWork() {
    std::lock_guard lock(m_mutex);
    return intern(std::string(kAsyncType), asyncHowToFix());
}

std::vector<BottleneckType> BottleneckTypeTable::types() const {
    std::lock_guard lock(m_mutex);
    return m_types;
}

std::size_t BottleneckTypeTable::size() const {
    std::lock_guard lock(m_mutex);
    return m_types.size();
}

} // namespace tracelight
