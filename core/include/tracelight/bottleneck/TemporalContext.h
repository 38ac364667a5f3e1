#pragma once
// A request in its temporal context (Google's cloud-application study, NSDI'18): what else ran on the same
// hosts while it did. Per host the request touched: how many other requests had an event there during its
// lifetime (first to last event, on the analysis's skew-corrected clock, or with localClocks on each host's
// own recorded clock; the index must then be built on the same clocks), and how many of their segments
// that start on that host overlap it. Queries of a HostTimeIndex built once: the cost is the request's own
// events and what ran beside it, not every event stored.
#include <cstdint>
#include <string>
#include <vector>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/bottleneck/HostActivity.h"
#include "tracelight/bottleneck/HostTimeIndex.h"

namespace tracelight {

struct HostContext {
    std::string host;
    std::int64_t concurrentRequests = 0;
    std::int64_t segments = 0;
    // Host activity (HostActivity.h) on this host that overlaps the window, the request's own excepted: the
    // work beside it that no trace shows (and other requests' marked low-level work).
    std::int64_t activityRecords = 0;
    TimeNs activityNs = 0;               // their time inside the window, summed (records that overlap count twice)
    std::vector<ActivityKind> activity{};  // the same by what, most time first
};

// A host-activity record whose context marker names the request: its own low-level work (vertical context).
struct OwnActivity {
    std::string host, what, span;
    TimeNs startNs = 0, endNs = 0;  // on the clocks of the context (the analysis's, or the hosts' own)
};

struct TemporalContext {
    RequestId request;
    TimeNs startNs = 0, endNs = 0;
    std::vector<HostContext> hosts;        // in the order the request first reached them
    std::vector<RequestId> concurrent;     // every other request on any of them during the window, by id
    std::vector<OwnActivity> own;          // its marked low-level work, by start, wherever and whenever it ran
};

// The same over time, for the strip under the waterfall: the request's lifetime cut into `buckets` equal
// slices, and per host and slice the other requests with an event there or a segment starting there that
// overlaps the slice (their number, the segments', and the first `maxListed` of them by id).
struct ContextStripHost {
    std::string host;
    std::vector<std::int32_t> requests, segments;     // per slice
    std::vector<std::vector<RequestId>> listed;       // per slice, at most maxListed, by id
    // Per slice, the host activity beside it (as HostContext counts it, slice by slice): the records, their
    // time inside the slice summed, and the same by what. Empty vectors when no activity index was given.
    std::vector<std::int32_t> activityRecords{};
    std::vector<TimeNs> activityNs{};
    std::vector<std::vector<ActivityKind>> activity{};
};
struct ContextStrip {
    RequestId request;
    TimeNs startNs = 0, endNs = 0;
    int buckets = 0;
    bool localClocks = false;             // the window and the index on the hosts' recorded clocks
    std::vector<ContextStripHost> hosts;  // in the order the request first reached them
    bool withActivity = false;            // an activity index was given (the database holds host activity)
    std::vector<OwnActivity> own;         // the request's marked low-level work, by start
};
// activity: host activity filed on the same clocks as index (nullptr: none counted).
ContextStrip temporalContextStrip(const InMemoryAnalysis& analysis, const HostTimeIndex& index, std::uint32_t row, int buckets,
                                  std::size_t maxListed = 50, bool localClocks = false,
                                  const HostActivityIndex* activity = nullptr);

// The hosts a request's events are on, in the order it first reached them.
std::vector<HostId> hostsOfRequest(const TraceData& data, std::uint32_t row);

// row: the request's analysis row; index: built over the same analysis, for every host or at
// least the request's. Empty hosts for a request without
// events.
// activity: host activity filed on the same clocks as index (nullptr: none counted).
TemporalContext temporalContext(const InMemoryAnalysis& analysis, const HostTimeIndex& index, std::uint32_t row,
                                bool localClocks = false, const HostActivityIndex* activity = nullptr);

// The analysis's clock offsets by host label, to file host activity on the analysis's clocks.
HostOffsets hostOffsetsByLabel(const TraceData& data, const ClockOffsets& offsets);

// What the request's context needs of the stored host activity (loadHostActivity's query): its lifetime on each
// of its hosts' own clocks (from the analysis's clocks, or with localClocks the recorded ones), and the records
// marked with requestName (its name as imported).
HostActivityQuery hostActivityQuery(const InMemoryAnalysis& analysis, std::uint32_t row, bool localClocks, std::string requestName);

} // namespace tracelight
