#include "tracelight/bottleneck/BurstWindows.h"

#include <algorithm>
#include <bit>
#include <map>
#include <set>

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

std::vector<BurstActivity> hostActivityInBursts(const BurstWindows& windows, const HostActivityIndex& activity) {
    std::vector<BurstActivity> out;
    out.reserve(windows.windows.size());
    std::vector<PlacedActivity> inside;
    std::set<std::uint32_t> hosts;
    for (const BurstWindow& w : windows.windows) {
        // [startMs, endMs): the last nanosecond in it is endMs * 1e6 - 1 (the index's windows are closed).
        const TimeNs from = w.startMs * 1'000'000, to = w.endMs * 1'000'000 - 1;
        inside.clear();
        hosts.clear();
        activity.forEachOverlappingAnywhere(from, to, [&](const PlacedActivity& p) {
            inside.push_back(p);
            hosts.insert(p.record->host.value);
        });
        BurstActivity b;
        b.records = static_cast<std::int64_t>(inside.size());
        b.hosts = static_cast<std::int64_t>(hosts.size());
        for (const PlacedActivity& p : inside) b.overlapNs += overlapNs(p.startNs, p.endNs, from, to + 1);
        if (activity.set()) b.activity = summarizeActivity(inside, from, to + 1, *activity.set());
        out.push_back(std::move(b));
    }
    return out;
}

} // namespace tracelight
