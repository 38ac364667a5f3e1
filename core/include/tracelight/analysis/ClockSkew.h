#pragma once
// Clock-skew correction from RPC patterns (Mystery Machine, UberTrace): where a task leaves host A,
// runs on host B and returns to A, RTT = client interval - server interval, and B's clock is set so
// that its first event falls RTT/2 after A's send. Per host pair the estimate with the lowest RTT
// wins; offsets are then propagated from a reference host along the lowest-RTT spanning tree.
//
// Span data keeps its recorded clocks unless there is evidence of skew (docs/concepts/clock-skew-and-causal-model.md): a round trip
// whose server starts before its client sent the call (a child starting before its parent), with the offset
// chosen as Jaeger's adjuster does (the server centred in its client: the latency split evenly) and
// kept inside what every other round trip of the pair allows. Each host pair says which rule fired.
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tracelight/analysis/TraceData.h"
#include "tracelight/base/TripleIndex.h"


namespace tracelight {

// Which rule decided a host pair's offset.
enum class SkewRule : std::uint8_t {
    MinRtt,              // event logs: the Mystery Machine's lowest-RTT estimate
    Fits,                // spans: every server fits inside its client; recorded clocks kept (offset 0)
    ChildOutsideParent,  // spans: a server starts before its client (few round trips); centred as Jaeger's adjuster does
    ConfirmedPair,       // spans: many round trips agree on an offset that excludes 0
    Inconsistent,        // spans: a few servers start before their clients but the round trips disagree; kept
};
std::string_view skewRuleName(SkewRule rule);

// Round trips of one pair needed before a span offset counts as confirmed by many (rather than by
// a child outside its parent alone).
constexpr std::int64_t kConfirmedRoundTrips = 10;

struct SkewEstimate {
    TimeNs rttNs = 0;        // lowest round trip seen for this pair
    TimeNs offsetNs = 0;     // clock(B) - clock(A) implied by that round trip
    std::int64_t samples = 0;
    // Of the round trips in event-log requests / span requests:
    std::int64_t eventTrips = 0, spanTrips = 0;
    // Span round trips whose server starts before the client's send (the evidence of skew), and the
    // offsets every span round trip allows ([last server - reply, first server - send], intersected).
    std::int64_t outside = 0;
    TimeNs loNs = std::numeric_limits<TimeNs>::min(), hiNs = std::numeric_limits<TimeNs>::max();
};

// Per ordered host pair (A = client, B = server), packed as (A << 32 | B).
class SkewEstimates {
public:
    void addRequest(std::span<const EventRecord> events, bool fromSpans = false);
    void merge(const SkewEstimates& other);  // other's requests come after this one's
    // For merging across processes: the pairs as bytes, and the merge of such bytes (false when damaged).
    std::string bytes() const;
    bool mergeBytes(std::string_view bytes);
    // Each pair's key and estimate, in the order the pairs were first seen.
    const std::vector<std::pair<std::uint64_t, SkewEstimate>>& pairs() const { return m_pairs; }
    // The estimate of one pair by its key, or null when it was never seen.
    const SkewEstimate* find(std::uint64_t key) const {
        const std::uint32_t at = m_index.find(static_cast<std::uint32_t>(key >> 32), static_cast<std::uint32_t>(key), 0);
        return at == TripleIndex::kAbsent ? nullptr : &m_pairs[at].second;
    }

private:
    void add(HostId client, HostId server, TimeNs rttNs, TimeNs offsetNs, bool fromSpans, TimeNs lo, TimeNs hi);
    // The pair's estimate, made when first seen. Open addressing: the corpus's 800,000 pairs (a client host
    // per page load) made a node-based map a third of the skew stage.
    std::pair<SkewEstimate*, bool> findOrAdd(std::uint64_t key, const SkewEstimate& initial);
    std::vector<std::pair<std::uint64_t, SkewEstimate>> m_pairs;
    TripleIndex m_index;  // (client, server, 0) -> position in m_pairs
};

// What the policy decided for one host pair: shown to the user and stored with the results.
struct SkewDecision {
    HostId client, server;
    TimeNs offsetNs = 0;  // clock(server) - clock(client) as decided (0 where the recorded clocks are kept)
    TimeNs rttNs = 0;     // the lowest round trip of the pair
    std::int64_t roundTrips = 0, outside = 0;
    SkewRule rule = SkewRule::Fits;
    bool applied = false;  // the offset feeds the host offsets
};

// The policy: one decision per host pair, sorted by (client, server).
std::vector<SkewDecision> decideSkew(const SkewEstimates& estimates);

struct ClockOffsets {
    std::vector<TimeNs> offsetNs;      // per HostId: local = true + offset, relative to the reference host
    std::vector<std::int32_t> parent;  // spanning-tree parent used for the estimate, -1 for roots and unconnected hosts
    std::vector<TimeNs> rttNs;         // RTT of the estimate that placed the host
    std::int64_t correctedHosts = 0;
    std::vector<SkewDecision> decisions;  // per host pair, what the policy decided and why

    TimeNs adjusted(HostId host, TimeNs localNs) const { return localNs - offsetNs[host.value]; }
    // Every host on its own clock, unplaced: offset 0, no parent, no RTT.
    static ClockOffsets none(std::size_t hostCount) {
        ClockOffsets o;
        o.offsetNs.assign(hostCount, 0);
        o.parent.assign(hostCount, -1);
        o.rttNs.assign(hostCount, 0);
        return o;
    }
};

// Offsets for every host; hosts without any RPC pattern keep offset 0. Each connected group of hosts
// is referenced to its host with the most estimates (in a web service: a front-end server). Only the
// pairs the policy applies (decideSkew) place hosts.
ClockOffsets solveClockOffsets(const SkewEstimates& estimates, std::size_t hostCount);

} // namespace tracelight
