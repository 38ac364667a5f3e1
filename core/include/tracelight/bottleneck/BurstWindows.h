#pragma once
// Coordinated bursty tracing (Google's cloud-application study, NSDI'18): every host traces while
// (mask & wall_ms) == mask, so all hosts trace the same bursts and a burst holds every request of those
// milliseconds. Given the requests' start times: the mask (the bits set in every start's millisecond where
// chance cannot explain it; 0 when there is none: not bursty), or one given, and the burst windows — runs of
// consecutive milliseconds the mask lets through — with their requests.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <string>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/base/Progress.h"
#include "tracelight/base/Status.h"
#include "tracelight/base/Time.h"
#include "tracelight/bottleneck/HostActivity.h"

namespace tracelight {

class TraceStore;

struct BurstWindow {
    std::int64_t startMs = 0, endMs = 0;  // [startMs, endMs), wall-clock milliseconds since the epoch
    std::vector<std::uint32_t> requests;  // indices into the starts given
};

struct BurstWindows {
    std::uint64_t mask = 0;
    bool inferred = false;
    std::vector<BurstWindow> windows;     // by time
    std::int64_t outside = 0;             // starts the mask would not have traced (a given mask only)
};

// The bits set in every start whose starts fall in at least 16 of the bit's half-periods (2^-16 by chance);
// 0 when there is none (fewer than 16 starts never show a mask).
std::uint64_t inferBurstMask(std::span<const TimeNs> startsNs);
BurstWindows burstWindows(std::span<const TimeNs> startsNs, std::optional<std::uint64_t> mask = std::nullopt);

// The host activity (HostActivity.h) inside one burst window: the work beside its requests that no trace
// shows. A record counts when it overlaps [startMs, endMs) on the clocks the index was built on (the
// analysis's, as the starts).
struct BurstActivity {
    std::int64_t records = 0;
    std::int64_t hosts = 0;              // distinct hosts they ran on
    TimeNs overlapNs = 0;                // their time inside the window, summed
    std::vector<ActivityKind> activity;  // by what, most time first
};
// One per window, in the windows' order.
std::vector<BurstActivity> hostActivityInBursts(const BurstWindows& windows, const HostActivityIndex& activity);

// The same read from the database in one pass, record by record: memory holds a tally per window, however large
// the table. offsets: those of the clocks the starts are on. Cancelled: the status "cancelled"; a failed read: its
// error.
Result<std::vector<BurstActivity>> hostActivityInBursts(const BurstWindows& windows, const TraceStore& store, const HostOffsets& offsets,
                                                        const CancelToken* cancel = nullptr);

// What the Bursts tab and `tracelight-cli bursts` show, found one way for both: the analysed requests' starts on
// the analysis's clocks, their burst windows (under `mask`, or the one inferred), and the host activity inside
// each window on the same clocks — each host's record moved by the analysis's offset for that host, as its events
// are.
struct BurstFindings {
    std::int64_t requests = 0;
    BurstWindows windows;
    bool withActivity = false;            // the database holds host activity
    std::vector<BurstActivity> activity;  // per window, when withActivity and read
    std::string activityError;            // the host activity could not be read (the windows stand)
};
// Cancelled: the status "cancelled".
Result<BurstFindings> findBursts(const InMemoryAnalysis& analysis, const TraceStore& store, std::optional<std::uint64_t> mask = std::nullopt,
                                 const CancelToken* cancel = nullptr);

} // namespace tracelight
