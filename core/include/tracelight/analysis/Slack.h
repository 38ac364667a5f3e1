#pragma once
// Slack of every segment of a request: how much it could grow before the end-to-end latency grows,
// all other durations held. Slack(S) = CP - CP_start(S) - D_S - CP_end(S), computed by a forward and
// backward pass in which the wait between a segment's last-arriving dependency and its start (a blind
// wait) is a fixed delay on that edge.
#include <span>
#include <vector>

#include "tracelight/analysis/RequestDag.h"

namespace tracelight {

std::vector<TimeNs> computeSlack(const RequestDag& dag);

// The slack of work nobody waited for (a span request's asynchronous work): it could grow without end.
constexpr TimeNs kUnboundedSlack = kNoTime;

// A span request's slack: how much each segment could grow before the request's end (its roots' latest
// end) grows. `ends`: the segments that end the roots; `path`: the critical path, whose entries have none.
// A segment from which no wait leads to a root's end has kUnboundedSlack.
void computeSpanSlack(const RequestDag& dag, std::span<const std::uint32_t> ends, TimeNs endNs, std::span<const std::uint32_t> path,
                      std::vector<TimeNs>& slack);

// Re-schedules the request with segment `grown` lasting deltaNs longer (other durations and the
// fixed waits held) and returns the new end-to-end latency. The brute-force check of slack.
TimeNs rescheduledLatency(const RequestDag& dag, std::uint32_t grown, TimeNs deltaNs);
// The same with every segment's duration changed by its own delta (deltaNs[segment]).
TimeNs rescheduledLatency(const RequestDag& dag, const std::vector<TimeNs>& deltaNs);

// Whether segment v of a span request is its task's wait for a child: the task's next segment starts where a
// known link (a child's return) arrives. Such a wait lasts until the child returns, not a time of its own.
bool isChildWait(const RequestDag& dag, std::uint32_t v);

// A span request re-scheduled through its span graph: a child starts when its parent calls it, and a parent's
// wait for a child (a segment that ends where the child's return arrives) lasts until the child returns, so
// it shrinks and grows with the child; every other duration changes by its delta. The latency runs from
// startNs (the earliest root start) to the latest root end (`rootEnds`: the segments that end the roots), so
// work no caller waited for moves nothing.
TimeNs rescheduledSpanLatency(const RequestDag& dag, const std::vector<TimeNs>& deltaNs, std::span<const std::uint32_t> rootEnds,
                              TimeNs startNs);

} // namespace tracelight
