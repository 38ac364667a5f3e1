#pragma once
// Coordinated bursts in the app (NSDI'18): every request of one burst window drawn together on one time
// axis. Per request: its segments on the analysis (skew-corrected) clock, those on its critical path
// marked — the one per-request pass (RequestPass) computes them; and every request's start on that clock,
// from which the burst windows are found (BurstWindows.h).
#include <cstdint>
#include <span>
#include <vector>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/base/Progress.h"

namespace tracelight {

struct TimelineSegment {
    TimeNs startNs = 0, endNs = 0;  // analysis clock (or the hosts' own, see requestTimelines)
    std::uint32_t task = 0;         // label id
    bool network = false;           // its two events are on different hosts
    bool critical = false;          // on the request's critical path
};

struct RequestTimeline {
    std::uint32_t row = 0;  // analysis row
    RequestId id;
    TimeNs startNs = 0, endNs = 0;
    std::vector<TimelineSegment> segments;  // in start order
};

// Per analysis row: its first event on the analysis clock (0 for a request without events).
std::vector<TimeNs> requestStartsNs(const InMemoryAnalysis& analysis);

// The rows' timelines, in the order given. localClocks: each segment (and the request's start and end) on
// its hosts' own clocks instead of the analysis clock; the critical path is the analysis's either way.
// Cancelled: empty.
std::vector<RequestTimeline> requestTimelines(const InMemoryAnalysis& analysis, std::span<const std::uint32_t> rows,
                                              const CancelToken* cancel = nullptr, bool localClocks = false);

} // namespace tracelight
