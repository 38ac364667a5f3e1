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
    TimeNs startNs;  // adjusted (skew-corrected) time
    TimeNs endNs;
    std::uint32_t task;   // label id
    bool network;         // its two events are on different hosts
    TimeNs durationNs() const { return endNs - startNs; }
};

// Segments in canonical order: tasks as stored, each task's segments in event order. Fills out and
// returns the request's first and last adjusted event times. Within a task, an event adjusted to
// before its predecessor (clocks still skewed) is held at its predecessor's time: no negative segments.
struct RequestSpan {
    TimeNs startNs = 0;
    TimeNs endNs = 0;
};
RequestSpan buildSegments(std::span<const EventRecord> events, const ClockOffsets& offsets,
                          std::vector<SegmentInstance>& out);

} // namespace tracelight
