#include "tracelight/bottleneck/TemporalContext.h"

#include <algorithm>
#include <limits>

namespace tracelight {

TemporalContext temporalContext(const InMemoryAnalysis& analysis, std::uint32_t row) {
    const TraceData& td = analysis.data;
    const ClockOffsets& clocks = analysis.offsets;
    TemporalContext out;
    out.request = td.requestIds[row];
    const auto own = td.eventsOf(row);
    if (own.empty()) return out;

    // The request's window and its hosts (slot per host, -1 where it never was).
    std::vector<std::int32_t> slot(td.hostLabels.size(), -1);
    out.startNs = std::numeric_limits<TimeNs>::max();
    out.endNs = std::numeric_limits<TimeNs>::min();
    for (const EventRecord& e : own) {
        const TimeNs t = clocks.adjusted(e.host, e.localNs);
        out.startNs = std::min(out.startNs, t);
        out.endNs = std::max(out.endNs, t);
        if (slot[e.host.value] < 0) {
            slot[e.host.value] = static_cast<std::int32_t>(out.hosts.size());
            out.hosts.push_back({td.label(td.hostLabels[e.host.value].value)});
        }
    }
    auto inWindow = [&](TimeNs t) { return t >= out.startNs && t <= out.endNs; };

    // Every other request once: an event of it inside the window on one of the hosts, or a segment of it
    // that starts on such a host and overlaps the window, makes it concurrent there (once per host).
    std::vector<std::uint32_t> seenOn(out.hosts.size(), std::numeric_limits<std::uint32_t>::max());
    for (std::uint32_t r = 0; r < td.requestCount(); ++r) {
        if (r == row) continue;
        const auto events = td.eventsOf(r);
        bool concurrent = false;
        for (std::size_t i = 0; i < events.size(); ++i) {
            const EventRecord& e = events[i];
            const TimeNs t = clocks.adjusted(e.host, e.localNs);
            if (const std::int32_t s = slot[e.host.value]; s >= 0 && inWindow(t) && seenOn[static_cast<std::size_t>(s)] != r) {
                seenOn[static_cast<std::size_t>(s)] = r;
                ++out.hosts[static_cast<std::size_t>(s)].concurrentRequests;
                concurrent = true;
            }
            if (i == 0 || !e.segmentType.isValid()) continue;
            const EventRecord& from = events[i - 1];  // the segment's start: the task's previous event
            const std::int32_t s = slot[from.host.value];
            if (s < 0) continue;
            const TimeNs begin = clocks.adjusted(from.host, from.localNs);
            if (begin <= out.endNs && t >= out.startNs) {
                ++out.hosts[static_cast<std::size_t>(s)].segments;
                // Running there across the window counts as concurrent, events inside it or not.
                if (seenOn[static_cast<std::size_t>(s)] != r) {
                    seenOn[static_cast<std::size_t>(s)] = r;
                    ++out.hosts[static_cast<std::size_t>(s)].concurrentRequests;
                }
                concurrent = true;
            }
        }
        if (concurrent) out.concurrent.push_back(td.requestIds[r]);
    }
    return out;
}

} // namespace tracelight
