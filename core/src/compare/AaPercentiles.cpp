#include "tracelight/compare/AaPercentiles.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>
#include <tuple>
#include <utility>

#include "tracelight/base/RandomSplit.h"

namespace tracelight {

double nearestRankPercentile(std::vector<TimeNs> values, double p) {
    if (values.empty()) return 0;
    const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * double(values.size())));
    const auto at = values.begin() + static_cast<std::ptrdiff_t>(std::clamp<std::size_t>(rank, 1, values.size()) - 1);
    std::nth_element(values.begin(), at, values.end());
    return double(*at);
}

namespace {

constexpr int kPercentiles[] = {50, 90, 95, 99};

// The nearest-rank p50, p90, p95 and p99 of values (reordered): each selection runs on what lies above the
// previous one, so a resample costs a few linear passes, not a sort (the bootstrap's time is here).
std::array<double, 4> ascendingPercentiles(std::vector<TimeNs>& values) {
    std::array<double, 4> out{};
    auto from = values.begin();
    for (std::size_t k = 0; k < out.size(); ++k) {
        const auto rank = static_cast<std::size_t>(std::ceil(kPercentiles[k] / 100.0 * double(values.size())));
        const auto at = values.begin() + static_cast<std::ptrdiff_t>(std::clamp<std::size_t>(rank, 1, values.size()) - 1);
        if (at >= from) std::nth_element(from, at, values.end());
        out[k] = double(*at);
        from = at + 1;
    }
    return out;
}

} // namespace

std::vector<AaPercentile> aaPercentiles(std::span<const TimeNs> latencies, const AaPercentilesOptions& options) {
    std::vector<AaPercentile> out;
    if (latencies.size() < 4) return out;
    std::vector<std::uint32_t> indices(latencies.size());
    std::iota(indices.begin(), indices.end(), 0u);
    const auto [first, second] = splitAtRandom(indices, options.seed);
    auto valuesOf = [&](const std::vector<std::uint32_t>& half) {
        std::vector<TimeNs> v;
        v.reserve(half.size());
        for (auto i : half) v.push_back(latencies[i]);
        return v;
    };
    const std::vector<TimeNs> a = valuesOf(first), b = valuesOf(second);
    const int resamples = std::max(1, options.resamples);
    std::vector<std::vector<double>> diffs(std::size(kPercentiles)), ofA(std::size(kPercentiles)), ofB(std::size(kPercentiles));
    for (auto* set : {&diffs, &ofA, &ofB})
        for (auto& d : *set) d.reserve(static_cast<std::size_t>(resamples));

    // Each bootstrap round draws both halves anew (with replacement) and reads all four percentiles of them.
    std::mt19937_64 rng(options.seed ^ 0x9e3779b97f4a7c15ULL);
    std::vector<TimeNs> ra(a.size()), rb(b.size());
    std::uniform_int_distribution<std::size_t> pickA(0, a.size() - 1), pickB(0, b.size() - 1);
    for (int r = 0; r < resamples; ++r) {
        for (auto& x : ra) x = a[pickA(rng)];
        for (auto& x : rb) x = b[pickB(rng)];
        const auto pa = ascendingPercentiles(ra), pb = ascendingPercentiles(rb);
        for (std::size_t k = 0; k < std::size(kPercentiles); ++k) {
            diffs[k].push_back(pa[k] > 0 ? (pb[k] - pa[k]) / pa[k] : 0);
            ofA[k].push_back(pa[k]);
            ofB[k].push_back(pb[k]);
        }
    }
    for (std::size_t k = 0; k < std::size(kPercentiles); ++k) {
        AaPercentile row;
        row.p = kPercentiles[k];
        row.aNs = nearestRankPercentile(a, kPercentiles[k]);
        row.bNs = nearestRankPercentile(b, kPercentiles[k]);
        row.relativeDiff = row.aNs > 0 ? (row.bNs - row.aNs) / row.aNs : 0;
        // The percentile method: the 2.5th and 97.5th of the sorted bootstrap values.
        auto interval = [](std::vector<double>& d) {
            std::sort(d.begin(), d.end());
            auto at = [&](double q) { return d[std::min(d.size() - 1, static_cast<std::size_t>(q * double(d.size() - 1) + 0.5))]; };
            return std::pair{at(0.025), at(0.975)};
        };
        std::tie(row.ciLow, row.ciHigh) = interval(diffs[k]);
        std::tie(row.aCiLowNs, row.aCiHighNs) = interval(ofA[k]);
        std::tie(row.bCiLowNs, row.bCiHighNs) = interval(ofB[k]);
        out.push_back(row);
    }
    return out;
}

} // namespace tracelight

namespace tracelight {

std::vector<AaPercentile> aaPercentilesAtSize(std::span<const TimeNs> population, std::size_t perSide,
                                              const AaPercentilesOptions& options) {
    if (2 * perSide >= population.size()) return aaPercentiles(population, options);
    std::vector<std::uint32_t> indices(population.size());
    std::iota(indices.begin(), indices.end(), 0u);
    // The first 2 x perSide of a seeded shuffle (a seed apart from the split's, so the two draws are independent).
    std::vector<TimeNs> sample;
    sample.reserve(2 * perSide);
    std::mt19937_64 rng(options.seed ^ 0x5851f42d4c957f2dULL);
    std::shuffle(indices.begin(), indices.end(), rng);
    for (std::size_t i = 0; i < 2 * perSide; ++i) sample.push_back(population[indices[i]]);
    return aaPercentiles(sample, options);
}

double chanceDifference(const std::vector<AaPercentile>& rows, int p) {
    for (const auto& row : rows)
        if (row.p == p) return std::max(std::abs(row.ciLow), std::abs(row.ciHigh));
    return 0;
}

} // namespace tracelight
