#pragma once
// Segments of one request: the interval between consecutive events of a task, on adjusted clocks.
#include <cstdint>
#include <span>
#include <vector>

#include "tracelight/analysis/ClockSkew.h"
#include "tracelight/analysis/TraceData.h"

namespace tracelight {

struct SegmentInstance {
    SegmentTypeId type;
    double startUs;  // adjusted (skew-corrected) time
    double endUs;
    std::uint32_t task;   // label id
    bool network;         // its two events are on different hosts
    double durationUs() const { return endUs - startUs; }
};

// Segments in canonical order: tasks as stored, each task's segments in event order. Fills out and
// returns the request's first and last adjusted event times.
struct RequestSpan {
    double startUs = 0;
    double endUs = 0;
};
RequestSpan buildSegments(std::span<const EventRecord> events, const ClockOffsets& offsets,
                          std::vector<SegmentInstance>& out);

} // namespace tracelight
