#include "tracelight/bottleneck/BurstTimelines.h"

#include <algorithm>
#include <limits>

#include "tracelight/analysis/RequestPass.h"
#include "tracelight/analysis/Segments.h"

namespace tracelight {

std::vector<TimeNs> requestStartsNs(const InMemoryAnalysis& analysis) {
    const TraceData& td = analysis.data;
    std::vector<TimeNs> starts(td.requestCount(), 0);
    for (std::size_t r = 0; r < td.requestCount(); ++r) {
        TimeNs first = std::numeric_limits<TimeNs>::max();
        for (const EventRecord& e : td.eventsOf(r)) first = std::min(first, analysis.offsets.adjusted(e.host, e.localNs));
        if (first != std::numeric_limits<TimeNs>::max()) starts[r] = first;
    }
    return starts;
}

std::vector<RequestTimeline> requestTimelines(const InMemoryAnalysis& analysis, std::span<const std::uint32_t> rows,
                                              const CancelToken* cancel, bool localClocks) {
    const TraceData& td = analysis.data;
    RequestPass pass(analysis.model, td);
    const ClockOffsets recorded = ClockOffsets::none(td.hostLabels.size());
    std::vector<SegmentInstance> local;  // the same segments, in the same order, on the hosts' own clocks
    std::vector<RequestTimeline> out;
    out.reserve(rows.size());
    for (const std::uint32_t row : rows) {
        if (row >= td.requestCount()) continue;
        if (cancel && cancel->isCancelled()) return {};
        const RequestPassResult& result = pass.criticalPath(td, row, analysis.offsets);
        RequestTimeline t;
        t.row = row;
        t.id = td.requestIds[row];
        t.startNs = result.dag.startNs;
        t.endNs = result.dag.endNs;
        t.segments.reserve(result.dag.segments.size());
        for (const SegmentInstance& s : result.dag.segments) t.segments.push_back({s.startNs, s.endNs, s.task, s.network, false});
        for (const auto v : result.criticalPath.segments) t.segments[v].critical = true;
        if (localClocks) {
            const RequestSpan span = buildSegments(td.eventsOf(row), recorded, local);
            if (local.size() == t.segments.size()) {
                t.startNs = span.startNs;
                t.endNs = span.endNs;
                for (std::size_t i = 0; i < local.size(); ++i) {
                    t.segments[i].startNs = local[i].startNs;
                    t.segments[i].endNs = local[i].endNs;
                }
            }
        }
        std::stable_sort(t.segments.begin(), t.segments.end(),
                         [](const TimelineSegment& a, const TimelineSegment& b) { return a.startNs < b.startNs; });
        out.push_back(std::move(t));
    }
    return out;
}

} // namespace tracelight
