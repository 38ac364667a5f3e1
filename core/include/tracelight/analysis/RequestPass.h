#pragma once
// The one per-request pass that every analysis, the CLI and the views use: a request's dependency graph,
// its critical path and the slack of every segment, in time and memory linear in its segments and edges.
// One RequestPass per thread; it reuses its memory from request to request.
#include <span>
#include <chrono>
#include <utility>
#include <vector>

#include "tracelight/analysis/CriticalPath.h"
#include "tracelight/analysis/RequestDag.h"
#include "tracelight/analysis/Slack.h"
#include "tracelight/analysis/SpanRequestPath.h"

namespace tracelight {

// Seconds this pass has spent in each step, over every request it ran (for the stage figures).
struct RequestPassTimes {
    double graph = 0, criticalPath = 0, slack = 0;
};

struct RequestPassResult {
    RequestDag dag;
    CriticalPath criticalPath;
    std::vector<TimeNs> slack;  // per segment of dag
};

class RequestPass {
public:
    RequestPass(const CausalModel& model, const TraceData& data) : m_builder(model, data) {}
    explicit RequestPass(const CausalModel& model) : m_builder(model) {}

    // The graph only (what-if re-schedules it; no critical path or slack needed).
    const RequestDag& graph(std::span<const EventRecord> events, const ClockOffsets& offsets,
                            std::span<const EventLink> links = {});
    // The graph's edges only, for a caller holding the segments and links `graph` would make.
    void edges(std::span<const SegmentInstance> segments, std::span<const SegmentLink> links, std::vector<DagEdge>& edges,
               std::vector<std::uint32_t>& firstEdgeTo);
    // Graph and critical path (slack left empty): for passes that never read slack. A request with spans
    // gets the span tree's path (what its root's caller waited for), others the event log's.
    const RequestPassResult& criticalPath(std::span<const EventRecord> events, const ClockOffsets& offsets,
                                          std::span<const EventLink> links = {}, std::span<const SpanRef> spans = {});
    // Graph, critical path and slack.
    const RequestPassResult& run(std::span<const EventRecord> events, const ClockOffsets& offsets,
                                 std::span<const EventLink> links = {}, std::span<const SpanRef> spans = {});
    // Request r of `data`, with its links and spans.
    const RequestPassResult& criticalPath(const TraceData& data, std::size_t r, const ClockOffsets& offsets) {
        return criticalPath(data.eventsOf(r), offsets, data.linksOf(r), data.spansOf(r));
    }
    const RequestPassResult& run(const TraceData& data, std::size_t r, const ClockOffsets& offsets) {
        return run(data.eventsOf(r), offsets, data.linksOf(r), data.spansOf(r));
    }
    const RequestPassResult& result() const { return m_result; }
    // The last result moved out, for a caller that keeps one request's (a million-span graph is not
    // copied); the pass's next run starts from empty buffers.
    RequestPassResult takeResult() { return std::move(m_result); }
    const RequestPassTimes& times() const { return m_times; }

private:
    // The critical path; true when it is the span tree's (the request has spans that could be placed).
    bool path(std::span<const EventRecord> events, const ClockOffsets& offsets, std::span<const SpanRef> spans);
    RequestDagBuilder m_builder;
    SpanRequestPathScratch m_spanScratch;
    RequestPassResult m_result;
    RequestPassTimes m_times;
};

} // namespace tracelight
