#include "tracelight/analysis/Slack.h"

#include <algorithm>
#include <numeric>

#include "tracelight/analysis/CriticalPath.h"

namespace tracelight {


std::vector<double> computeSlack(const RequestDag& dag) {
    const std::size_t n = dag.segments.size();
    std::vector<int> lastArriving(n);
    for (std::uint32_t v = 0; v < n; ++v) lastArriving[v] = lastArrivingDependency(dag, v);
    std::vector<double> latestFinish(n, dag.endUs);
    if (n == 0) return {};
    // A request may end with an event no segment ends at; that trailing wait is held fixed like any other.
    const std::uint32_t last = lastEndingSegment(dag);
    latestFinish[last] = dag.segments[last].endUs;
    const auto order = timeOrder(dag);
    // Backward pass over the reverse topological order (edges are indexed by target, so walk targets).
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const std::uint32_t w = *it;
        const SegmentInstance& sw = dag.segments[w];
        const double latestStart = latestFinish[w] - sw.durationUs();
        for (std::uint32_t k = dag.firstEdgeTo[w]; k < dag.firstEdgeTo[w + 1]; ++k) {
            const std::uint32_t v = dag.edges[k].from;
            const double wait = lastArriving[w] == static_cast<int>(v) ? sw.startUs - dag.segments[v].endUs : 0.0;
            latestFinish[v] = std::min(latestFinish[v], latestStart - wait);
        }
    }
    std::vector<double> slack(n);
    for (std::size_t v = 0; v < n; ++v) slack[v] = std::max(0.0, latestFinish[v] - dag.segments[v].endUs);
    return slack;
}

double rescheduledLatency(const RequestDag& dag, std::uint32_t grown, double deltaUs) {
    std::vector<double> delta(dag.segments.size(), 0.0);
    if (grown < delta.size()) delta[grown] = deltaUs;
    return rescheduledLatency(dag, delta);
}

double rescheduledLatency(const RequestDag& dag, const std::vector<double>& deltaUs) {
    const std::size_t n = dag.segments.size();
    std::vector<double> finish(n);
    if (n == 0) return dag.endUs - dag.startUs;
    const std::uint32_t last = lastEndingSegment(dag);
    const double trailing = dag.endUs - dag.segments[last].endUs;
    for (std::uint32_t v : timeOrder(dag)) {
        const SegmentInstance& s = dag.segments[v];
        double start = s.startUs;  // roots keep their offset from the request's start
        const int l = lastArrivingDependency(dag, v);
        if (l >= 0) {
            start = finish[l] + (s.startUs - dag.segments[l].endUs);
            for (std::uint32_t k = dag.firstEdgeTo[v]; k < dag.firstEdgeTo[v + 1]; ++k)
                start = std::max(start, finish[dag.edges[k].from]);
        }
        finish[v] = start + std::max(0.0, s.durationUs() + deltaUs[v]);
    }
    // The request ends with its latest segment (plus any trailing wait after the last one); a speed-up
    // can end it earlier.
    double latest = dag.startUs;
    for (std::uint32_t v = 0; v < n; ++v) latest = std::max(latest, finish[v] + (v == last ? trailing : 0.0));
    return latest - dag.startUs;
}

} // namespace tracelight
