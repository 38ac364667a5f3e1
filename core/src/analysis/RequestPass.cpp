#include "tracelight/analysis/RequestPass.h"

namespace tracelight {

const RequestDag& RequestPass::graph(std::span<const EventRecord> events, const ClockOffsets& offsets,
                                     std::span<const EventLink> links) {
    const auto start = std::chrono::steady_clock::now();
    m_builder.build(events, offsets, m_result.dag, links);
    m_times.graph += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return m_result.dag;
}

void RequestPass::edges(std::span<const SegmentInstance> segments, std::span<const SegmentLink> links, std::vector<DagEdge>& edges,
                        std::vector<std::uint32_t>& firstEdgeTo) {
    const auto start = std::chrono::steady_clock::now();
    m_builder.buildEdges(segments, links, edges, firstEdgeTo);
    m_times.graph += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool RequestPass::path(std::span<const EventRecord> events, const ClockOffsets& offsets, std::span<const SpanRef> spans) {
    if (spanRequestCriticalPath(m_result.dag, events, spans, offsets, m_result.criticalPath, m_spanScratch)) return true;
    computeCriticalPath(m_result.dag, m_result.criticalPath);
    return false;
}

const RequestPassResult& RequestPass::criticalPath(std::span<const EventRecord> events, const ClockOffsets& offsets,
                                                   std::span<const EventLink> links, std::span<const SpanRef> spans) {
    graph(events, offsets, links);
    const auto t0 = std::chrono::steady_clock::now();
    path(events, offsets, spans);
    m_result.slack.clear();
    m_times.criticalPath += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return m_result;
}

const RequestPassResult& RequestPass::run(std::span<const EventRecord> events, const ClockOffsets& offsets,
                                          std::span<const EventLink> links, std::span<const SpanRef> spans) {
    graph(events, offsets, links);
    const auto t0 = std::chrono::steady_clock::now();
    const bool spanTree = path(events, offsets, spans);
    const auto t1 = std::chrono::steady_clock::now();
    // A span request's slack ends where its path does, with its roots; event logs' with the last event.
    if (spanTree)
        computeSpanSlack(m_result.dag, m_spanScratch.rootEnds, m_spanScratch.endNs, m_result.criticalPath.segments, m_result.slack);
    else
        m_result.slack = computeSlack(m_result.dag);
    m_times.criticalPath += std::chrono::duration<double>(t1 - t0).count();
    m_times.slack += std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    return m_result;
}

} // namespace tracelight
