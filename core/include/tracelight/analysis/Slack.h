#pragma once
// Slack of every segment of a request: how much it could grow before the end-to-end latency grows,
// all other durations held. Slack(S) = CP - CP_start(S) - D_S - CP_end(S), computed by a forward and
// backward pass in which the wait between a segment's last-arriving dependency and its start (a blind
// wait) is a fixed delay on that edge.
#include <vector>

#include "tracelight/analysis/RequestDag.h"

namespace tracelight {

std::vector<TimeNs> computeSlack(const RequestDag& dag);

// Re-schedules the request with segment `grown` lasting deltaNs longer (other durations and the
// fixed waits held) and returns the new end-to-end latency. The brute-force check of slack.
TimeNs rescheduledLatency(const RequestDag& dag, std::uint32_t grown, TimeNs deltaNs);
// The same with every segment's duration changed by its own delta (deltaNs[segment]).
TimeNs rescheduledLatency(const RequestDag& dag, const std::vector<TimeNs>& deltaNs);

} // namespace tracelight
