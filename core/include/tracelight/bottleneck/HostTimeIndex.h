#pragma once
// Every analysed event and segment filed by host and time (skew-corrected), built once in one pass over the
// requests, so "what ran on host H between T1 and T2" costs two binary searches plus the items found, not a
// scan of every event (the temporal context of each request in turn would otherwise be quadratic).
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "tracelight/analysis/ClockSkew.h"
#include "tracelight/analysis/TraceData.h"
#include "tracelight/base/LatestEndTree.h"

namespace tracelight {

class HostTimeIndex {
public:
    // onlyHosts: file only what is on these hosts (one request's context: the memory of its hosts' items,
    // not of every host's); empty: every host.
    HostTimeIndex(const TraceData& data, const ClockOffsets& offsets, std::span<const HostId> onlyHosts = {});
    // What one request's context asks: its hosts' items without its own, which the context never counts
    // (a single million-span request filed its 2.5 M segments for nothing: 235 MB).
    static HostTimeIndex forRequest(const TraceData& data, const ClockOffsets& offsets, std::uint32_t row);

    // visit(row) for each event on host within [fromNs, toNs] (one call per event, not per request).
    template <class Visit>
    void forEachEvent(HostId host, TimeNs fromNs, TimeNs toNs, Visit&& visit) const;
    // visit(row) for each segment starting on host (where its first event is) that overlaps [fromNs, toNs].
    template <class Visit>
    void forEachSegment(HostId host, TimeNs fromNs, TimeNs toNs, Visit&& visit) const;

    std::size_t hostCount() const { return m_hosts.size(); }

private:
    static constexpr std::uint32_t kNoRow = ~0u;
    HostTimeIndex(const TraceData& data, const ClockOffsets& offsets, std::span<const HostId> onlyHosts, std::uint32_t skipRow);

    struct Stamp {
        TimeNs t;
        std::uint32_t row;
    };
    struct Interval {
        TimeNs start, end;
        std::uint32_t row;
    };
    struct HostItems {
        std::vector<Stamp> events;        // by time
        std::vector<Interval> segments;   // by start
        LatestEndTree ends;               // over segments
    };

    std::vector<HostItems> m_hosts;  // by HostId
};

template <class Visit>
void HostTimeIndex::forEachEvent(HostId host, TimeNs fromNs, TimeNs toNs, Visit&& visit) const {
    if (host.value >= m_hosts.size()) return;
    const auto& events = m_hosts[host.value].events;
    auto it = std::lower_bound(events.begin(), events.end(), fromNs, [](const Stamp& s, TimeNs t) { return s.t < t; });
    for (; it != events.end() && it->t <= toNs; ++it) visit(it->row);
}

template <class Visit>
void HostTimeIndex::forEachSegment(HostId host, TimeNs fromNs, TimeNs toNs, Visit&& visit) const {
    if (host.value >= m_hosts.size()) return;
    const HostItems& h = m_hosts[host.value];
    const auto& segs = h.segments;
    // Starting inside the window: overlapping by construction (end >= start >= fromNs).
    const auto first = std::lower_bound(segs.begin(), segs.end(), fromNs, [](const Interval& s, TimeNs t) { return s.start < t; });
    for (auto it = first; it != segs.end() && it->start <= toNs; ++it) visit(it->row);
    // Starting before it: overlapping when still running at fromNs.
    const auto limit = static_cast<std::size_t>(first - segs.begin());
    h.ends.forEachEndingAtOrAfter(limit, fromNs, [&](std::size_t i) { visit(segs[i].row); });
}

} // namespace tracelight
