#include "tracelight/bottleneck/HostTimeIndex.h"

#include "tracelight/bottleneck/TemporalContext.h"

#include <algorithm>
#include <bit>
#include <limits>

namespace tracelight {

HostTimeIndex::HostTimeIndex(const TraceData& data, const ClockOffsets& offsets, std::span<const HostId> onlyHosts)
    : HostTimeIndex(data, offsets, onlyHosts, kNoRow) {}

HostTimeIndex HostTimeIndex::forRequest(const TraceData& data, const ClockOffsets& offsets, std::uint32_t row) {
    return HostTimeIndex(data, offsets, hostsOfRequest(data, row), row);
}

HostTimeIndex::HostTimeIndex(const TraceData& data, const ClockOffsets& offsets, std::span<const HostId> onlyHosts, std::uint32_t skipRow)
    : m_hosts(data.hostLabels.size()) {
    // No hosts named: every host, unless it is one request's (hostless) context.
    std::vector<char> wanted(m_hosts.size(), onlyHosts.empty() && skipRow == kNoRow ? 1 : 0);
    for (HostId h : onlyHosts) wanted[h.value] = 1;
    for (std::uint32_t r = 0; r < data.requestCount(); ++r) {
        if (r == skipRow) continue;
        const auto events = data.eventsOf(r);
        for (std::size_t i = 0; i < events.size(); ++i) {
            const EventRecord& e = events[i];
            const TimeNs t = offsets.adjusted(e.host, e.localNs);
            if (wanted[e.host.value]) m_hosts[e.host.value].events.push_back({t, r});
            if (i == 0 || !e.segmentType.isValid()) continue;
            const EventRecord& from = events[i - 1];  // the segment's first event: the task's previous one
            if (!wanted[from.host.value]) continue;
            const TimeNs begin = offsets.adjusted(from.host, from.localNs);
            // Clocks still skewed can put the end before the start; hold it there (as buildSegments does).
            m_hosts[from.host.value].segments.push_back({begin, std::max(begin, t), r});
        }
    }
    for (HostItems& h : m_hosts) {
        std::sort(h.events.begin(), h.events.end(), [](const Stamp& a, const Stamp& b) { return a.t < b.t; });
        std::sort(h.segments.begin(), h.segments.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
        h.ends = LatestEndTree(h.segments.size(), [&](std::size_t i) { return h.segments[i].end; });
    }
}

} // namespace tracelight
