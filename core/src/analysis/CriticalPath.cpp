#include "tracelight/analysis/CriticalPath.h"

#include <algorithm>

namespace tracelight {

namespace {
// On a tie, an explicit link (a span child returning) explains the wait better than the task's own
// previous segment, which is then just the parent waiting for that child; the task's own previous
// segment in turn beats an inferred relation.
int tieRank(EdgeKind kind) {
    switch (kind) {
    case EdgeKind::Link: return 2;
    case EdgeKind::TaskOrder: return 1;
    default: return 0;
    }
}
} // namespace

int lastArrivingDependency(const RequestDag& dag, std::uint32_t v) {
    int best = -1;
    int bestRank = -1;
    for (std::uint32_t k = dag.firstEdgeTo[v]; k < dag.firstEdgeTo[v + 1]; ++k) {
        const DagEdge& e = dag.edges[k];
        const TimeNs end = dag.segments[e.from].endNs;
        const int rank = tieRank(e.kind);
        if (best < 0 || end > dag.segments[best].endNs || (end == dag.segments[best].endNs && rank > bestRank)) {
            best = static_cast<int>(e.from);
            bestRank = rank;
        }
    }
    return best;
}

CriticalPath computeCriticalPath(const RequestDag& dag) {
    CriticalPath cp;
    computeCriticalPath(dag, cp);
    return cp;
}

void computeCriticalPath(const RequestDag& dag, CriticalPath& cp) {
    cp.segments.clear();
    cp.blind.clear();
    cp.clips.clear();
    cp.entrySpan.clear();
    cp.async.clear();
    cp.latencyNs = dag.endNs - dag.startNs;
    if (dag.segments.empty()) {
        if (cp.latencyNs > 0) cp.blind.push_back({dag.startNs, cp.latencyNs});
        cp.blindNs = cp.latencyNs;
        return;
    }
    const std::uint32_t last = lastEndingSegment(dag);

    TimeNs covered = 0;
    // After the last segment: the request may end with an event no segment ends at.
    if (dag.endNs > dag.segments[last].endNs)
        cp.blind.push_back({dag.segments[last].endNs, dag.endNs - dag.segments[last].endNs});
    for (int v = static_cast<int>(last); v >= 0;) {
        cp.segments.push_back(static_cast<std::uint32_t>(v));
        const SegmentInstance& s = dag.segments[v];
        covered += s.durationNs();
        const int previous = lastArrivingDependency(dag, static_cast<std::uint32_t>(v));
        const TimeNs gapFrom = previous >= 0 ? dag.segments[previous].endNs : dag.startNs;
        if (s.startNs > gapFrom) cp.blind.push_back({gapFrom, s.startNs - gapFrom});
        v = previous;
    }
    std::reverse(cp.segments.begin(), cp.segments.end());
    std::reverse(cp.blind.begin(), cp.blind.end());
    cp.blindNs = cp.latencyNs - covered;
}

} // namespace tracelight
