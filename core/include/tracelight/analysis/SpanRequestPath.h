#pragma once
// The critical path of a request imported from spans, laid on its graph's segments: the span tree's path
// (what the root's caller waited for, spanTreeCriticalPath) with each of its sections given to the
// segments of the span whose own time it is. A section that covers only part of a segment (a child cut
// at its parent's end) makes a clipped entry; time no owned segment covers is blind.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tracelight/analysis/CriticalPath.h"
#include "tracelight/analysis/TraceData.h"

namespace tracelight {

// Working memory kept from request to request (one per pass).
struct SpanRequestPathScratch {
    std::vector<TimeNs> eventNs;
    std::vector<std::uint32_t> segmentsBefore, nextFree;
    std::vector<std::int32_t> owner;
    std::vector<SpanTiming> timings;
    // Left by spanRequestCriticalPath for the slack: the segments that end the roots, and the request's end.
    std::vector<std::uint32_t> rootEnds;
    TimeNs endNs = 0;
};

// Each event's adjusted time as the graph's segments hold it (a task's event is never before its
// predecessor), for the events buildSegments made `segments` of.
void eventTimes(std::span<const EventRecord> events, std::span<const SegmentInstance> segments, const ClockOffsets& offsets,
                std::vector<TimeNs>& out);

// Each segment's innermost span (index into spans; -1: none): the span whose start and end events
// enclose both of the segment's events. `segmentsBefore[e]`: the number of segments ending at events before e.
void segmentOwners(std::span<const EventRecord> events, std::span<const SpanRef> spans, std::size_t segmentCount,
                   std::vector<std::int32_t>& owner, SpanRequestPathScratch& scratch);

// The segments that end the request's root spans (segment k ends at the k-th event that closes one).
void rootEndSegments(std::span<const EventRecord> events, std::span<const SpanRef> spans, std::vector<std::uint32_t>& out);

// A request's graph segments (buildSegments) and its extent as its latency is measured: for a request
// imported from spans, the earliest root start to the latest root end on the analysis clock (work no caller
// waited for left out); otherwise, and when its spans cannot be placed, its first to last event.
RequestSpan requestWindow(const TraceData& data, std::size_t row, const ClockOffsets& offsets, std::vector<SegmentInstance>& segments);
// The roots' extent of a span request (nullopt: no root, or a span not placed).
std::optional<RequestSpan> rootsExtent(std::span<const EventRecord> events, std::span<const SpanRef> spans, const ClockOffsets& offsets);
// Each span as the span tree's path reads it: its start and end events' times on the analysis clock as they
// were recorded, not as its task's order stretches them (a joined server that ends after its client, clocks
// kept, would otherwise push the client's end to its own). False when a span's event is not in the request.
bool spanTimings(std::span<const EventRecord> events, std::span<const SpanRef> spans, const ClockOffsets& offsets,
                 std::vector<SpanTiming>& out);

// The span tree's critical path of one request into `out` (latency: the earliest root start to the latest
// root end). False, with `out` untouched, when the spans cannot be placed (an event not found): the
// caller keeps the event-log path.
bool spanRequestCriticalPath(const RequestDag& dag, std::span<const EventRecord> events, std::span<const SpanRef> spans,
                             const ClockOffsets& offsets, CriticalPath& out, SpanRequestPathScratch& scratch);

} // namespace tracelight
