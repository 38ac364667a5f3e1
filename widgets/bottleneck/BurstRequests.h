#pragma once
// What the Bursts tab asks of the session, and the whole results it draws: the burst windows of the analysed
// requests (under a given mask, or the one their starts imply), and one window's requests as timelines on one
// axis (app/jobs/BurstJobs.cpp).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/bottleneck/BurstTimelines.h"
#include "tracelight/bottleneck/BurstWindows.h"

namespace tracelight::widgets {

struct BurstWindowsRequest {
    std::shared_ptr<const InMemoryAnalysis> analysis;
    std::optional<std::uint64_t> mask;  // none: inferred
};
struct BurstWindowsOutcome {
    std::shared_ptr<const BurstWindows> windows;
    std::int64_t requests = 0;
    // Per window, the host activity inside it (hostActivityInBursts); empty when the database holds none.
    std::shared_ptr<const std::vector<BurstActivity>> activity;
    std::string activityError;  // the host activity could not be read: said, not shown as none
};

struct BurstTimelinesRequest {
    std::shared_ptr<const InMemoryAnalysis> analysis;
    std::vector<std::uint32_t> rows;  // the window's requests drawn
    bool localClocks = false;
    TimeNs windowStartNs = 0, windowEndNs = 0;
};
struct BurstTimelinesOutcome {
    BurstTimelinesRequest request;
    std::vector<RequestTimeline> timelines;  // by start
};

} // namespace tracelight::widgets
