#include "tracelight/bottleneck/BurstWindows.h"

#include <algorithm>
#include <bit>
#include <map>

namespace tracelight {

namespace {
std::int64_t wallMs(TimeNs t) { return t >= 0 ? t / 1'000'000 : -((-t + 999'999) / 1'000'000); }
} // namespace

std::uint64_t inferBurstMask(std::span<const TimeNs> startsNs) {
    // Eight starts that all share a bit by chance: 1 in 256 per bit; fewer say nothing.
    if (startsNs.size() < 8) return 0;
    std::uint64_t common = ~std::uint64_t{0};
    std::int64_t lo = wallMs(startsNs.front()), hi = lo;
    for (TimeNs t : startsNs) {
        const std::int64_t ms = wallMs(t);
        common &= static_cast<std::uint64_t>(ms);
        lo = std::min(lo, ms);
        hi = std::max(hi, ms);
    }
    // Bits above the span's width are the same in every start because the data is short, not because of a
    // mask: only the bits that vary over the span can tell.
    const auto width = std::bit_width(static_cast<std::uint64_t>(hi - lo));
    const std::uint64_t varying = width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
    return common & varying;
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

} // namespace tracelight
