#include "tracelight/analysis/Slack.h"

#include <algorithm>
#include <numeric>

#include "tracelight/analysis/CriticalPath.h"

namespace tracelight {


bool isChildWait(const RequestDag& dag, std::uint32_t v) {
    const std::uint32_t w = v + 1;
    if (w >= dag.segments.size() || dag.segments[w].task != dag.segments[v].task) return false;
    for (std::uint32_t k = dag.firstEdgeTo[w]; k < dag.firstEdgeTo[w + 1]; ++k)
        if (dag.edges[k].kind == EdgeKind::Link && dag.edges[k].from != v) return true;
    return false;
}

namespace {

// The backward pass both forms share: from each segment's latest finish (kUnboundedSlack: nobody waits for
// it) to its predecessors', over the reverse topological order, the wait between a segment's last-arriving
// dependency and its start held fixed; then each segment's slack. With elasticWaits (span data), a task's
// wait for a child has no length of its own: it can end as soon as the child returns.
void backwardPass(const RequestDag& dag, std::vector<TimeNs>& latestFinish, std::vector<TimeNs>& slack, bool elasticWaits = false) {
    std::vector<std::uint32_t> scratch;
    const auto order = topologicalOrder(dag, scratch);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const std::uint32_t w = *it;
        if (latestFinish[w] == kUnboundedSlack) continue;  // nobody waits for w: it holds nothing back
        const SegmentInstance& sw = dag.segments[w];
        const TimeNs latestStart = latestFinish[w] - (elasticWaits && isChildWait(dag, w) ? TimeNs{0} : sw.durationNs());
        const int last = lastArrivingDependency(dag, w);
        for (std::uint32_t k = dag.firstEdgeTo[w]; k < dag.firstEdgeTo[w + 1]; ++k) {
            const std::uint32_t v = dag.edges[k].from;
            const TimeNs wait = last == static_cast<int>(v) ? sw.startNs - dag.segments[v].endNs : TimeNs{0};
            latestFinish[v] = std::min(latestFinish[v], latestStart - wait);
        }
    }
    slack.resize(dag.segments.size());
    for (std::size_t v = 0; v < slack.size(); ++v)
        slack[v] = latestFinish[v] == kUnboundedSlack ? kUnboundedSlack : std::max<TimeNs>(0, latestFinish[v] - dag.segments[v].endNs);
}

} // namespace

std::vector<TimeNs> computeSlack(const RequestDag& dag) {
    const std::size_t n = dag.segments.size();
    if (n == 0) return {};
    std::vector<TimeNs> latestFinish(n, dag.endNs), slack;
    // A request may end with an event no segment ends at; that trailing wait is held fixed like any other.
    const std::uint32_t last = lastEndingSegment(dag);
    latestFinish[last] = dag.segments[last].endNs;
    backwardPass(dag, latestFinish, slack);
    return slack;
}

void computeSpanSlack(const RequestDag& dag, std::span<const std::uint32_t> ends, TimeNs endNs, std::span<const std::uint32_t> path,
                      std::vector<TimeNs>& slack) {
    const std::size_t n = dag.segments.size();
    std::vector<TimeNs> latestFinish(n, kUnboundedSlack);
    for (auto v : ends)
        if (v < n) latestFinish[v] = endNs;
    // The path's entries define the latency: none of them can grow (a child cut at its parent's end included).
    for (auto v : path)
        if (v < n) latestFinish[v] = std::min(latestFinish[v], dag.segments[v].endNs);
    backwardPass(dag, latestFinish, slack, true);
}

TimeNs rescheduledLatency(const RequestDag& dag, std::uint32_t grown, TimeNs deltaNs) {
    std::vector<TimeNs> delta(dag.segments.size(), 0);
    if (grown < delta.size()) delta[grown] = deltaNs;
    return rescheduledLatency(dag, delta);
}

namespace {

// The forward pass both re-schedulings share: each segment starts when its dependencies finish (the wait
// after its last-arriving one held), and lasts its duration plus its delta; with elasticWaits (span data) a
// task's wait for a child lasts no time of its own.
std::vector<TimeNs> forwardPass(const RequestDag& dag, const std::vector<TimeNs>& deltaNs, bool elasticWaits) {
    std::vector<TimeNs> finish(dag.segments.size());
    std::vector<std::uint32_t> scratch;
    for (std::uint32_t v : topologicalOrder(dag, scratch)) {
        const SegmentInstance& s = dag.segments[v];
        TimeNs start = s.startNs;  // roots keep their offset from the request's start
        const int l = lastArrivingDependency(dag, v);
        if (l >= 0) {
            start = finish[l] + (s.startNs - dag.segments[l].endNs);
            for (std::uint32_t k = dag.firstEdgeTo[v]; k < dag.firstEdgeTo[v + 1]; ++k)
                start = std::max(start, finish[dag.edges[k].from]);
        }
        finish[v] = elasticWaits && isChildWait(dag, v) ? start : start + std::max<TimeNs>(0, s.durationNs() + deltaNs[v]);
    }
    return finish;
}

} // namespace

TimeNs rescheduledSpanLatency(const RequestDag& dag, const std::vector<TimeNs>& deltaNs, std::span<const std::uint32_t> rootEnds,
                              TimeNs startNs) {
    const std::size_t n = dag.segments.size();
    if (n == 0 || rootEnds.empty()) return rescheduledLatency(dag, deltaNs);
    const std::vector<TimeNs> finish = forwardPass(dag, deltaNs, true);
    TimeNs latest = startNs;
    for (auto v : rootEnds)
        if (v < n) latest = std::max(latest, finish[v]);
    return latest - startNs;
}

TimeNs rescheduledLatency(const RequestDag& dag, const std::vector<TimeNs>& deltaNs) {
    const std::size_t n = dag.segments.size();
    if (n == 0) return dag.endNs - dag.startNs;
    const std::uint32_t last = lastEndingSegment(dag);
    const TimeNs trailing = dag.endNs - dag.segments[last].endNs;
    const std::vector<TimeNs> finish = forwardPass(dag, deltaNs, false);
    // The request ends with its latest segment (plus any trailing wait after the last one); a speed-up
    // can end it earlier.
    TimeNs latest = dag.startNs;
    for (std::uint32_t v = 0; v < n; ++v) latest = std::max(latest, finish[v] + (v == last ? trailing : 0));
    return latest - dag.startNs;
}

} // namespace tracelight
