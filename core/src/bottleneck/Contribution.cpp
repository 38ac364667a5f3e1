#include "tracelight/bottleneck/Contribution.h"

#include <algorithm>
#include <cmath>

namespace tracelight {

namespace {
// Below this a fractional part is rounding noise of the long double sums, not a real share of a ns.
constexpr long double kFractionNoise = 1e-9L;
} // namespace

void computeContributions(std::span<const ActiveInterval> intervals, TimeNs windowStartNs, TimeNs windowEndNs,
                          std::size_t typeCount, RequestContribution& out, ContributionScratch& scratch) {
    out.byType.assign(typeCount, 0);
    out.gapsNs = 0;
    if (windowEndNs <= windowStartNs) return;

    auto& endpoints = scratch.endpoints;
    endpoints.clear();
    for (std::size_t i = 0; i < intervals.size(); ++i) {
        const TimeNs start = std::max(intervals[i].startNs, windowStartNs);
        const TimeNs end = std::min(intervals[i].endNs, windowEndNs);
        if (end <= start || intervals[i].type >= typeCount) continue;
        endpoints.push_back({start, static_cast<std::uint32_t>(i), false});
        endpoints.push_back({end, static_cast<std::uint32_t>(i), true});
    }
    // By time; at one instant the order does not matter (no time passes between those endpoints), the
    // interval index only makes the order, and so the float sums, independent of the sort's whims.
    std::sort(endpoints.begin(), endpoints.end(), [](const auto& a, const auto& b) {
        return a.at != b.at ? a.at < b.at : a.interval != b.interval ? a.interval < b.interval : a.isEnd < b.isEnd;
    });

    // The share one interval active since the start would have received so far (sum over slices of
    // length / active), kept as whole nanoseconds plus a fraction. An interval's share is the difference
    // between its end and its start: no slice ever walks its active intervals, hence no n² work.
    std::int64_t runningWhole = 0;
    long double runningFraction = 0;
    auto& startWhole = scratch.whole;
    auto& startFraction = scratch.fraction;
    startWhole.assign(intervals.size(), 0);
    startFraction.assign(intervals.size(), 0);
    auto& typeFraction = scratch.typeFraction;
    typeFraction.assign(typeCount, 0);

    std::int64_t active = 0;
    TimeNs cursor = windowStartNs;
    for (const auto& e : endpoints) {
        if (e.at > cursor) {
            const TimeNs slice = e.at - cursor;
            if (active == 0) {
                out.gapsNs += slice;
            } else {
                runningWhole += slice / active;
                runningFraction += static_cast<long double>(slice % active) / static_cast<long double>(active);
                if (runningFraction >= 1) {
                    const long double carry = std::floor(runningFraction);
                    runningWhole += static_cast<std::int64_t>(carry);
                    runningFraction -= carry;
                }
            }
            cursor = e.at;
        }
        if (e.isEnd) {
            --active;
            const std::uint32_t type = intervals[e.interval].type;
            out.byType[type] += runningWhole - startWhole[e.interval];
            typeFraction[type] += runningFraction - startFraction[e.interval];
        } else {
            ++active;
            startWhole[e.interval] = runningWhole;
            startFraction[e.interval] = runningFraction;
        }
    }
    if (windowEndNs > cursor) out.gapsNs += windowEndNs - cursor;

    // Whole nanoseconds per type, then the nanoseconds the fractions add up to go to the largest fractions.
    TimeNs assigned = out.gapsNs;
    for (std::size_t t = 0; t < typeCount; ++t) {
        long double f = typeFraction[t];
        long double whole = std::floor(f);
        f -= whole;
        if (f > 1 - kFractionNoise) {
            whole += 1;
            f = 0;
        } else if (f < kFractionNoise) {
            f = 0;
        }
        out.byType[t] += static_cast<std::int64_t>(whole);
        typeFraction[t] = f;
        assigned += out.byType[t];
    }
    TimeNs left = (windowEndNs - windowStartNs) - assigned;
    if (left == 0) return;
    auto& order = scratch.order;
    order.resize(typeCount);
    for (std::size_t t = 0; t < typeCount; ++t) order[t] = static_cast<std::uint32_t>(t);
    // Fractions compared on a 1e-9 grid, so that float noise cannot reorder equal ones: ties go to the lower type.
    auto key = [&](std::uint32_t t) { return std::llround(typeFraction[t] / kFractionNoise); };
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        const auto ka = key(a), kb = key(b);
        return ka != kb ? ka > kb : a < b;
    });
    // `left` is the sum of the fractions, so at most typeCount; the loops only guard against float noise.
    for (std::size_t i = 0; left > 0 && typeCount > 0; i = (i + 1) % typeCount, --left) out.byType[order[i]] += 1;
    for (std::size_t i = typeCount; left < 0 && i-- > 0;) {
        if (out.byType[order[i]] > 0) {
            out.byType[order[i]] -= 1;
            ++left;
        }
        if (i == 0 && left < 0) i = typeCount;
    }
    if (left != 0) out.gapsNs += left;  // no type at all: only possible when typeCount is 0
}

RequestContribution computeContributions(std::span<const ActiveInterval> intervals, TimeNs windowStartNs, TimeNs windowEndNs,
                                         std::size_t typeCount) {
    RequestContribution out;
    ContributionScratch scratch;
    computeContributions(intervals, windowStartNs, windowEndNs, typeCount, out, scratch);
    return out;
}

} // namespace tracelight
