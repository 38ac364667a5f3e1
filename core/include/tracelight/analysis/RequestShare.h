#pragma once
// A distributed run's view from one process: its group, and where its requests sit among all of them.
// Each process reads a contiguous run of requests (rank order = request order), so merging the
// processes' partial results in rank order gives what one process reading every request computes.
#include <cstddef>

#include "tracelight/analysis/TraceData.h"
#include "tracelight/base/Collective.h"

namespace tracelight {

struct RequestShare {
    Collective* group = nullptr;    // nullptr: one process holding every request
    std::size_t firstRequest = 0;   // global index of this process's first request
    std::size_t totalRequests = 0;  // over the whole group

    bool distributed() const { return group && group->size() > 1; }
    // The whole of a single process's data.
    static RequestShare whole(const TraceData& data) { return {nullptr, 0, data.requestCount()}; }
};

// Makes this process's TraceData agree with every other's: host and segment-type ids as one process
// reading all requests in order would intern them (first appearance, in rank order), with the labels of
// every type present. Collective: every process of the group calls it.
RequestShare shareAcrossGroup(TraceData& data, Collective& group);

} // namespace tracelight
