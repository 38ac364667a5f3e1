#include "tracelight/bottleneck/TemporalContext.h"

#include <algorithm>
#include <limits>
#include <tuple>
#include <utility>

namespace tracelight {

namespace {
void sortUnique(std::vector<std::uint32_t>& rows) {
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
}

// The host activity on `host` overlapping [from, to], the request's own excepted.
std::vector<PlacedActivity> activityBeside(const HostActivityIndex& activity, LabelId host, RequestId request, TimeNs from, TimeNs to) {
    std::vector<PlacedActivity> out;
    activity.forEachOverlapping(host, from, to, [&](const PlacedActivity& p) {
        if (!(p.record->request.isValid() && p.record->request == request)) out.push_back(p);
    });
    return out;
}

std::vector<OwnActivity> ownActivity(const HostActivityIndex& activity, RequestId request) {
    std::vector<OwnActivity> out;
    const HostActivitySet& set = *activity.set();
    for (const PlacedActivity& p : activity.markedWith(request))
        out.push_back({set.name(p.record->host), set.name(p.record->what), p.record->span, p.startNs, p.endNs});
    return out;
}

// The request's lifetime: its first to its last event on the clocks given; {max, min} without events.
std::pair<TimeNs, TimeNs> lifetime(const TraceData& td, const ClockOffsets& clocks, std::uint32_t row) {
    TimeNs start = std::numeric_limits<TimeNs>::max(), end = std::numeric_limits<TimeNs>::min();
    for (const EventRecord& e : td.eventsOf(row)) {
        const TimeNs t = clocks.adjusted(e.host, e.localNs);
        start = std::min(start, t);
        end = std::max(end, t);
    }
    return {start, end};
}
} // namespace

HostActivityQuery hostActivityQuery(const InMemoryAnalysis& analysis, std::uint32_t row, bool localClocks, std::string requestName) {
    const TraceData& td = analysis.data;
    HostActivityQuery query;
    query.request = std::move(requestName);
    if (row >= td.requestCount() || td.eventsOf(row).empty()) return query;
    const ClockOffsets recorded = ClockOffsets::none(td.hostLabels.size());
    const ClockOffsets& clocks = localClocks ? recorded : analysis.offsets;
    const auto [start, end] = lifetime(td, clocks, row);
    // On host h the window is [start, end] + h's offset (local = true + offset).
    for (const HostId host : hostsOfRequest(td, row)) {
        const TimeNs offset = host.value < clocks.offsetNs.size() ? clocks.offsetNs[host.value] : 0;
        query.hosts.push_back({td.hostLabels[host.value], start + offset, end + offset});
    }
    return query;
}

HostOffsets hostOffsetsByLabel(const TraceData& data, const ClockOffsets& offsets) {
    HostOffsets out;
    for (std::size_t h = 0; h < data.hostLabels.size() && h < offsets.offsetNs.size(); ++h)
        out[data.hostLabels[h].value] = offsets.offsetNs[h];
    return out;
}

std::vector<HostId> hostsOfRequest(const TraceData& data, std::uint32_t row) {
    std::vector<HostId> hosts;
    for (const EventRecord& e : data.eventsOf(row))
        if (std::find(hosts.begin(), hosts.end(), e.host) == hosts.end()) hosts.push_back(e.host);
    return hosts;
}

TemporalContext temporalContext(const InMemoryAnalysis& analysis, const HostTimeIndex& index, std::uint32_t row,
                                bool localClocks, const HostActivityIndex* activity) {
    const TraceData& td = analysis.data;
    const ClockOffsets recorded = ClockOffsets::none(td.hostLabels.size());
    const ClockOffsets& clocks = localClocks ? recorded : analysis.offsets;
    TemporalContext out;
    out.request = td.requestIds[row];
    const auto own = td.eventsOf(row);
    if (own.empty()) return out;

    // The request's window.
    std::tie(out.startNs, out.endNs) = lifetime(td, clocks, row);

    // Per host: an event of another request inside the window, or a segment of it starting there that
    // overlaps the window (running across it counts, events inside or not), makes it concurrent there.
    std::vector<std::uint32_t> everywhere, here;
    for (const HostId host : hostsOfRequest(td, row)) {
        HostContext c{td.label(td.hostLabels[host.value].value)};
        here.clear();
        index.forEachEvent(host, out.startNs, out.endNs, [&](std::uint32_t r) {
            if (r != row) here.push_back(r);
        });
        index.forEachSegment(host, out.startNs, out.endNs, [&](std::uint32_t r) {
            if (r == row) return;
            ++c.segments;
            here.push_back(r);
        });
        sortUnique(here);
        c.concurrentRequests = static_cast<std::int64_t>(here.size());
        everywhere.insert(everywhere.end(), here.begin(), here.end());
        if (activity) {
            const auto beside = activityBeside(*activity, td.hostLabels[host.value], out.request, out.startNs, out.endNs);
            c.activityRecords = static_cast<std::int64_t>(beside.size());
            for (const PlacedActivity& p : beside) c.activityNs += overlapNs(p.startNs, p.endNs, out.startNs, out.endNs);
            c.activity = summarizeActivity(beside, out.startNs, out.endNs, *activity->set());
        }
        out.hosts.push_back(std::move(c));
    }
    if (activity) out.own = ownActivity(*activity, out.request);
    sortUnique(everywhere);
    out.concurrent.reserve(everywhere.size());
    for (auto r : everywhere) out.concurrent.push_back(td.requestIds[r]);
    std::sort(out.concurrent.begin(), out.concurrent.end());
    return out;
}

ContextStrip temporalContextStrip(const InMemoryAnalysis& analysis, const HostTimeIndex& index, std::uint32_t row, int buckets,
                                  std::size_t maxListed, bool localClocks, const HostActivityIndex* activity) {
    const TraceData& td = analysis.data;
    ContextStrip out;
    if (row >= td.requestCount() || buckets <= 0) return out;
    // The window as temporalContext finds it (first to last event, on the same clocks as the index).
    const TemporalContext whole = temporalContext(analysis, index, row, localClocks);
    out.request = whole.request;
    out.startNs = whole.startNs;
    out.endNs = whole.endNs;
    out.buckets = buckets;
    out.localClocks = localClocks;
    out.withActivity = activity != nullptr;
    if (whole.hosts.empty()) return out;
    if (activity) out.own = ownActivity(*activity, out.request);
    const TimeNs span = std::max<TimeNs>(1, out.endNs - out.startNs);
    std::vector<std::uint32_t> here;
    for (const HostId host : hostsOfRequest(td, row)) {
        ContextStripHost h{td.label(td.hostLabels[host.value].value), std::vector<std::int32_t>(buckets, 0),
                           std::vector<std::int32_t>(buckets, 0), std::vector<std::vector<RequestId>>(buckets)};
        for (int b = 0; b < buckets; ++b) {
            // Slice b: [start + b*span/buckets, start + (b+1)*span/buckets], the last one ending at the window's end.
            const TimeNs from = out.startNs + span * b / buckets, to = b + 1 == buckets ? out.endNs : out.startNs + span * (b + 1) / buckets;
            here.clear();
            index.forEachEvent(host, from, to, [&](std::uint32_t r) {
                if (r != row) here.push_back(r);
            });
            index.forEachSegment(host, from, to, [&](std::uint32_t r) {
                if (r == row) return;
                ++h.segments[static_cast<std::size_t>(b)];
                here.push_back(r);
            });
            sortUnique(here);
            h.requests[static_cast<std::size_t>(b)] = static_cast<std::int32_t>(here.size());
            auto& listed = h.listed[static_cast<std::size_t>(b)];
            for (auto r : here) listed.push_back(td.requestIds[r]);
            std::sort(listed.begin(), listed.end());
            if (listed.size() > maxListed) listed.resize(maxListed);
            if (activity) {
                const auto beside = activityBeside(*activity, td.hostLabels[host.value], out.request, from, to);
                h.activityRecords.push_back(static_cast<std::int32_t>(beside.size()));
                TimeNs busy = 0;
                for (const PlacedActivity& p : beside) busy += overlapNs(p.startNs, p.endNs, from, to);
                h.activityNs.push_back(busy);
                h.activity.push_back(summarizeActivity(beside, from, to, *activity->set()));
            }
        }
        out.hosts.push_back(std::move(h));
    }
    return out;
}

} // namespace tracelight
