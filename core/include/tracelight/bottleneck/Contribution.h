#pragma once
// BOSS contribution analysis (LinkedIn's "BOSS"; docs/concepts/bottlenecks.md) of one request's
// timeline: split it at every start and end of an active interval; each slice's time is shared evenly
// among the intervals active in it, and a slice with nothing active goes to the gaps. Blocking work (alone
// on the timeline) is charged in full, work well parallelised with others only in part.
//
// Integer nanoseconds throughout: the per-type contributions plus the gaps add up EXACTLY to the window's
// length (remainders of the even split are handed out by largest remainder, ties to the lower type).
#include <cstdint>
#include <span>
#include <vector>

#include "tracelight/base/Time.h"

namespace tracelight {

// [startNs, endNs) during which something of `type` (an index below the caller's type count) was active.
struct ActiveInterval {
    TimeNs startNs = 0;
    TimeNs endNs = 0;
    std::uint32_t type = 0;
};

struct RequestContribution {
    std::vector<TimeNs> byType;  // per type index
    TimeNs gapsNs = 0;           // slices with nothing active
};

// Buffers a caller reuses from request to request (one per thread).
struct ContributionScratch {
    struct Endpoint {
        TimeNs at;
        std::uint32_t interval;
        bool isEnd;
    };
    std::vector<Endpoint> endpoints;
    std::vector<std::int64_t> whole;   // per interval: the running share when it started
    std::vector<long double> fraction;
    std::vector<long double> typeFraction;
    std::vector<std::uint32_t> order;
};

// Contributions within the window [windowStartNs, windowEndNs) (the request's first to last event);
// intervals are clipped to it, empty ones count for nothing. O(n log n) in the number of intervals.
void computeContributions(std::span<const ActiveInterval> intervals, TimeNs windowStartNs, TimeNs windowEndNs,
                          std::size_t typeCount, RequestContribution& out, ContributionScratch& scratch);
RequestContribution computeContributions(std::span<const ActiveInterval> intervals, TimeNs windowStartNs, TimeNs windowEndNs,
                                         std::size_t typeCount);

} // namespace tracelight
