#include "tracelight/bottleneck/BurstWindows.h"

#include <algorithm>
#include <bit>
#include <map>
#include <set>

#include "tracelight/bottleneck/BurstTimelines.h"
#include "tracelight/bottleneck/TemporalContext.h"
#include "tracelight/store/HostActivityStore.h"

namespace tracelight {

namespace {
std::int64_t wallMs(TimeNs t) { return t >= 0 ? t / 1'000'000 : -((-t + 999'999) / 1'000'000); }
} // namespace

std::uint64_t inferBurstMask(std::span<const TimeNs> startsNs) {
    // A bit set in every start is evidence of a mask only if chance cannot explain it. Starts in the same
    // half-period of bit b (the same ms >> b) share it whatever the mask, so the evidence is the number of
    // distinct half-periods the starts fall in: without a mask each is set with probability 1/2, all k of
    // them 2^-k. Sixteen keep the chance of any of the 64 bits passing below one in a thousand; a bit whose
    // half-period is long against the data (a few separate minutes sharing a high bit) never gets there.
    constexpr int kHalfPeriods = 16;
    if (startsNs.size() < static_cast<std::size_t>(kHalfPeriods)) return 0;
    std::vector<std::int64_t> ms;
    ms.reserve(startsNs.size());
    std::uint64_t common = ~std::uint64_t{0};
    for (TimeNs t : startsNs) {
        ms.push_back(wallMs(t));
        common &= static_cast<std::uint64_t>(ms.back());
    }
    std::sort(ms.begin(), ms.end());
    std::uint64_t mask = 0;
    for (int b = 0; b < 63; ++b) {
        const std::uint64_t bit = std::uint64_t{1} << b;
        if (!(common & bit)) continue;
        int halfPeriods = 0;
        for (std::size_t i = 0; i < ms.size() && halfPeriods < kHalfPeriods; ++i)
            if (i == 0 || (ms[i] >> b) != (ms[i - 1] >> b)) ++halfPeriods;
        if (halfPeriods >= kHalfPeriods) mask |= bit;
    }
    return mask;
}

BurstWindows burstWindows(std::span<const TimeNs> startsNs, std::optional<std::uint64_t> mask) {
    BurstWindows out;
    out.inferred = !mask.has_value();
    out.mask = mask ? *mask : inferBurstMask(startsNs);
    if (out.mask == 0) return out;
    // A window: the milliseconds that differ only below the mask's lowest bit (all of them pass the mask
    // when one does), 2^lowest long.
    const int low = std::countr_zero(out.mask);
    const std::int64_t length = std::int64_t{1} << low;
    std::map<std::int64_t, BurstWindow> byStart;
    for (std::size_t i = 0; i < startsNs.size(); ++i) {
        const std::int64_t ms = wallMs(startsNs[i]);
        if ((static_cast<std::uint64_t>(ms) & out.mask) != out.mask) {
            ++out.outside;
            continue;
        }
        const std::int64_t start = ms & ~(length - 1);
        BurstWindow& w = byStart[start];
        w.startMs = start;
        w.endMs = start + length;
        w.requests.push_back(static_cast<std::uint32_t>(i));
    }
    for (auto& [start, w] : byStart) out.windows.push_back(std::move(w));
    return out;
}

namespace {
// [startMs, endMs) in nanoseconds, closed as the index's windows are: its last nanosecond is endMs * 1e6 - 1.
struct WindowNs {
    TimeNs from, to;
};
WindowNs windowNs(const BurstWindow& w) { return {w.startMs * 1'000'000, w.endMs * 1'000'000 - 1}; }

BurstActivity activityInWindow(const BurstWindow& w, const HostActivityIndex& activity) {
    const auto [from, to] = windowNs(w);
    std::vector<PlacedActivity> inside;
    std::set<std::uint32_t> hosts;
    activity.forEachOverlappingAnywhere(from, to, [&inside, &hosts](const PlacedActivity& p) {
        inside.push_back(p);
        hosts.insert(p.record->host.value);
    });
    BurstActivity b;
    b.records = static_cast<std::int64_t>(inside.size());
    b.hosts = static_cast<std::int64_t>(hosts.size());
    for (const PlacedActivity& p : inside) b.overlapNs += overlapNs(p.startNs, p.endNs, from, to + 1);
    if (activity.set()) b.activity = summarizeActivity(inside, from, to + 1, *activity.set());
    return b;
}
} // namespace

std::vector<BurstActivity> hostActivityInBursts(const BurstWindows& windows, const HostActivityIndex& activity) {
    std::vector<BurstActivity> out;
    out.reserve(windows.windows.size());
    for (const BurstWindow& w : windows.windows) out.push_back(activityInWindow(w, activity));
    return out;
}

Result<std::vector<BurstActivity>> hostActivityInBursts(const BurstWindows& windows, const TraceStore& store, const HostOffsets& offsets,
                                                        const CancelToken* cancel) {
    // One pass over the table in the order it is indexed, each record added to the windows it overlaps and let go:
    // memory holds a tally per window, not the records.
    struct WindowTally {
        BurstActivity activity;
        std::uint32_t lastHost = 0;
        bool anyHost = false;
        ActivityTally byWhat;
    };
    const std::vector<BurstWindow>& ws = windows.windows;
    if (ws.empty()) return std::vector<BurstActivity>{};  // not bursty: nothing to read the table for
    std::vector<WindowTally> tallies(ws.size());
    std::uint32_t host = 0;
    TimeNs shift = 0;
    bool hostKnown = false, cancelled = false;
    std::size_t read = 0;
    const Status scanned = forEachHostActivity(store, [&](const HostActivity& r, std::string_view what) {
        if ((++read & 0xFFF) == 0 && cancel && cancel->isCancelled()) return !(cancelled = true);
        if (!hostKnown || r.host.value != host) {  // records come by host: its offset looked up once
            host = r.host.value;
            hostKnown = true;
            const auto offset = offsets.find(host);
            shift = offset == offsets.end() ? 0 : offset->second;  // local = true + offset
        }
        const TimeNs start = r.startNs - shift, end = r.endNs - shift;
        // The windows are in time order and of one length: the first that ends at or after the record's start,
        // then on while they begin at or before its end (touching counts, as the index's overlaps).
        auto w = std::lower_bound(ws.begin(), ws.end(), start, [](const BurstWindow& b, TimeNs t) { return windowNs(b).to < t; });
        for (; w != ws.end() && windowNs(*w).from <= end; ++w) {
            const auto [from, to] = windowNs(*w);
            WindowTally& t = tallies[static_cast<std::size_t>(w - ws.begin())];
            const TimeNs inside = overlapNs(start, end, from, to + 1);
            ++t.activity.records;
            t.activity.overlapNs += inside;
            if (!t.anyHost || t.lastHost != host) ++t.activity.hosts;
            t.anyHost = true;
            t.lastHost = host;
            t.byWhat.add(r.what, what, inside);
        }
        return true;
    });
    if (cancelled || (cancel && cancel->isCancelled())) return Status::error("cancelled");
    if (!scanned) return scanned;
    std::vector<BurstActivity> out;
    out.reserve(tallies.size());
    for (WindowTally& t : tallies) {
        t.activity.activity = t.byWhat.kinds();
        out.push_back(std::move(t.activity));
    }
    return out;
}

Result<BurstFindings> findBursts(const InMemoryAnalysis& analysis, const TraceStore& store, std::optional<std::uint64_t> mask,
                                 const CancelToken* cancel) {
    BurstFindings out;
    const std::vector<TimeNs> starts = requestStartsNs(analysis);
    out.requests = static_cast<std::int64_t>(starts.size());
    out.windows = burstWindows(starts, mask);
    auto hosts = hostActivityHosts(store);
    if (!hosts) {
        out.withActivity = true;  // unknown: said, not taken for none
        out.activityError = hosts.message();
        return out;
    }
    out.withActivity = !hosts->empty();
    if (!out.withActivity) return out;
    auto activity = hostActivityInBursts(out.windows, store, hostOffsetsByLabel(analysis.data, analysis.offsets), cancel);
    if (!activity) {
        if (cancel && cancel->isCancelled()) return Status::error("cancelled");
        out.activityError = activity.message();
        return out;
    }
    out.activity = std::move(activity.value());
    return out;
}

} // namespace tracelight
