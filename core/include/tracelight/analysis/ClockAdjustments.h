#pragma once
// What the last analysis's clock-skew correction decided for each host pair, with the hosts' names: the
// one reading of the stored decisions (table clock_pairs) that `analyze` prints and the app lists.
#include <cstdint>
#include <string>
#include <vector>

#include "tracelight/base/Time.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

struct ClockAdjustment {
    std::string client, server;  // host names
    TimeNs offsetNs = 0;         // clock(server) - clock(client) as decided (0 where the clocks are kept)
    TimeNs rttNs = 0;            // the pair's lowest round trip
    std::int64_t roundTrips = 0, outside = 0;  // round trips, and those whose server lay outside its client
    std::string rule;            // min-rtt, fits, child-outside-parent, confirmed-pair or inconsistent
    bool applied = false;        // the offset moved the server's clock
};

// In (client, server) id order; empty before any analysis.
std::vector<ClockAdjustment> loadClockAdjustments(const TraceStore& store);

// What `analyze` prints: the adjusted or estimated pairs with the most round trips (see ClockPairDigest),
// named, without reading the others.
struct ClockAdjustmentDigest {
    std::vector<ClockAdjustment> mostEvidence;
    std::int64_t adjusted = 0, kept = 0, keptRoundTrips = 0;
};
ClockAdjustmentDigest loadClockAdjustmentDigest(const TraceStore& store, std::size_t shown);

} // namespace tracelight
