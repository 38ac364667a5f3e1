#pragma once
// The critical path of one request: from the segment that ends last, back through each segment's
// last-arriving dependency. Its segments plus the blind time (waits no segment covers) add up to the
// end-to-end latency exactly; blind time is reported with where it sits, never dropped.
#include <cstdint>
#include <vector>

#include "tracelight/analysis/RequestDag.h"

namespace tracelight {

struct BlindInterval {
    TimeNs startNs;     // adjusted time
    TimeNs durationNs;
};

struct CriticalPath {
    TimeNs latencyNs = 0;
    TimeNs blindNs = 0;
    std::vector<std::uint32_t> segments;  // indices into RequestDag::segments, first to last
    std::vector<BlindInterval> blind;
};

// The dependency of segment v that finished last, or -1. Ties: a known link (a span child's return),
// then the task's own previous segment, then inferred relations.
int lastArrivingDependency(const RequestDag& dag, std::uint32_t v);

CriticalPath computeCriticalPath(const RequestDag& dag);
// The same into `out`, reusing its memory (a pass over many requests).
void computeCriticalPath(const RequestDag& dag, CriticalPath& out);

} // namespace tracelight
