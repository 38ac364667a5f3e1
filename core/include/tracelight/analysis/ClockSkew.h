#pragma once
// Clock-skew correction from RPC patterns (Mystery Machine, UberTrace): where a task leaves host A,
// runs on host B and returns to A, RTT = client interval - server interval, and B's clock is set so
// that its first event falls RTT/2 after A's send. Per host pair the estimate with the lowest RTT
// wins; offsets are then propagated from a reference host along the lowest-RTT spanning tree.
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "tracelight/analysis/TraceData.h"


namespace tracelight {

struct SkewEstimate {
    TimeNs rttNs = 0;        // lowest round trip seen for this pair
    TimeNs offsetNs = 0;     // clock(B) - clock(A) implied by that round trip
    std::int64_t samples = 0;
};

// Per ordered host pair (A = client, B = server), packed as (A << 32 | B).
class SkewEstimates {
public:
    void addRequest(std::span<const EventRecord> events);
    void merge(const SkewEstimates& other);
    const std::unordered_map<std::uint64_t, SkewEstimate>& pairs() const { return m_pairs; }

private:
    void add(HostId client, HostId server, TimeNs rttNs, TimeNs offsetNs);
    std::unordered_map<std::uint64_t, SkewEstimate> m_pairs;
};

struct ClockOffsets {
    std::vector<TimeNs> offsetNs;      // per HostId: local = true + offset, relative to the reference host
    std::vector<std::int32_t> parent;  // spanning-tree parent used for the estimate, -1 for roots and unconnected hosts
    std::vector<TimeNs> rttNs;         // RTT of the estimate that placed the host
    std::int64_t correctedHosts = 0;

    TimeNs adjusted(HostId host, TimeNs localNs) const { return localNs - offsetNs[host.value]; }
};

// Offsets for every host; hosts without any RPC pattern keep offset 0. Each connected group of hosts
// is referenced to its host with the most estimates (in a web service: a front-end server).
ClockOffsets solveClockOffsets(const SkewEstimates& estimates, std::size_t hostCount);

} // namespace tracelight
