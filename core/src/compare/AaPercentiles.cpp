#include "tracelight/compare/AaPercentiles.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>
#include <tuple>
#include <unordered_map>
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
constexpr std::size_t kCount = std::size(kPercentiles);

// The nearest-rank p50, p90, p95 and p99 of values (reordered): each selection runs on what lies above the
// previous one, so a resample costs a few linear passes, not a sort (the resampling's time is here).
std::array<double, kCount> ascendingPercentiles(std::vector<TimeNs>& values) {
    std::array<double, kCount> out{};
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

// The 2.5th and 97.5th of the values (sorted here).
std::pair<double, double> central95(std::vector<double>& d) {
    std::sort(d.begin(), d.end());
    auto at = [&](double q) { return d[std::min(d.size() - 1, static_cast<std::size_t>(q * double(d.size() - 1) + 0.5))]; };
    return {at(0.025), at(0.975)};
}

} // namespace

std::vector<AaPercentile> groupPercentiles(std::span<const TimeNs> latencies, std::span<const std::uint8_t> inB,
                                           std::span<const std::uint32_t> unit, const AaPercentilesOptions& options) {
    std::vector<AaPercentile> out;
    // The requests of the two groups, each with its unit numbered densely, and each unit's group.
    std::vector<TimeNs> a, b, values;
    std::vector<std::uint32_t> unitOf;
    std::vector<std::uint8_t> unitInB;
    std::unordered_map<std::uint32_t, std::uint32_t> dense;
    for (std::size_t i = 0; i < latencies.size(); ++i) {
        if (inB[i] > 1) continue;
        (inB[i] ? b : a).push_back(latencies[i]);
        values.push_back(latencies[i]);
        if (unit.empty()) {
            unitOf.push_back(static_cast<std::uint32_t>(unitInB.size()));
            unitInB.push_back(inB[i]);
            continue;
        }
        const auto [it, added] = dense.try_emplace(unit[i], static_cast<std::uint32_t>(unitInB.size()));
        if (added) unitInB.push_back(inB[i]);
        unitOf.push_back(it->second);
    }
    if (a.size() < 2 || b.size() < 2) return out;
    const auto unitsInB = static_cast<std::size_t>(std::count(unitInB.begin(), unitInB.end(), std::uint8_t{1}));
    const int resamples = std::max(1, options.resamples);
    std::vector<std::vector<double>> logRatios(kCount), ofA(kCount), ofB(kCount);
    for (auto* set : {&logRatios, &ofA, &ofB})
        for (auto& d : *set) d.reserve(static_cast<std::size_t>(resamples));

    // The interval of the difference: the units dealt again, as many to B as the split gave it, many times.
    // What the re-splits' log ratios spread over is what chance does to a split of these requests.
    std::mt19937_64 rng(options.seed ^ 0x9e3779b97f4a7c15ULL);
    std::vector<std::uint32_t> order(unitInB.size());
    std::iota(order.begin(), order.end(), 0u);
    std::vector<std::uint8_t> dealt(unitInB.size());
    std::vector<TimeNs> ra, rb;
    for (int r = 0; r < resamples; ++r) {
        std::shuffle(order.begin(), order.end(), rng);
        for (std::size_t u = 0; u < order.size(); ++u) dealt[order[u]] = u < unitsInB ? 1 : 0;
        ra.clear();
        rb.clear();
        for (std::size_t i = 0; i < values.size(); ++i) (dealt[unitOf[i]] ? rb : ra).push_back(values[i]);
        if (ra.empty() || rb.empty()) continue;
        const auto pa = ascendingPercentiles(ra), pb = ascendingPercentiles(rb);
        for (std::size_t k = 0; k < kCount; ++k) logRatios[k].push_back(pa[k] > 0 && pb[k] > 0 ? std::log(pb[k] / pa[k]) : 0);
    }
    // Each group's own interval of its percentile: a bootstrap of the group (with replacement).
    ra.resize(a.size());
    rb.resize(b.size());
    std::uniform_int_distribution<std::size_t> pickA(0, a.size() - 1), pickB(0, b.size() - 1);
    for (int r = 0; r < resamples; ++r) {
        for (auto& x : ra) x = a[pickA(rng)];
        for (auto& x : rb) x = b[pickB(rng)];
        const auto pa = ascendingPercentiles(ra), pb = ascendingPercentiles(rb);
        for (std::size_t k = 0; k < kCount; ++k) {
            ofA[k].push_back(pa[k]);
            ofB[k].push_back(pb[k]);
        }
    }
    for (std::size_t k = 0; k < kCount; ++k) {
        AaPercentile row;
        row.p = kPercentiles[k];
        row.aNs = nearestRankPercentile(a, kPercentiles[k]);
        row.bNs = nearestRankPercentile(b, kPercentiles[k]);
        row.relativeDiff = row.aNs > 0 ? (row.bNs - row.aNs) / row.aNs : 0;
        if (row.aNs > 0 && row.bNs > 0 && !logRatios[k].empty()) {
            const double observed = std::log(row.bNs / row.aNs);
            const auto [low, high] = central95(logRatios[k]);
            row.ciLow = std::expm1(observed - high);
            row.ciHigh = std::expm1(observed - low);
        }
        std::tie(row.aCiLowNs, row.aCiHighNs) = central95(ofA[k]);
        std::tie(row.bCiLowNs, row.bCiHighNs) = central95(ofB[k]);
        out.push_back(row);
    }
    return out;
}

std::vector<std::uint8_t> randomHalves(std::size_t requests, std::uint64_t seed) {
    std::vector<std::uint32_t> indices(requests);
    std::iota(indices.begin(), indices.end(), 0u);
    std::vector<std::uint8_t> inB(requests, 0);
    for (auto i : splitAtRandom(indices, seed).second) inB[i] = 1;
    return inB;
}

std::vector<AaPercentile> aaPercentiles(std::span<const TimeNs> latencies, const AaPercentilesOptions& options) {
    if (latencies.size() < 4) return {};
    return groupPercentiles(latencies, randomHalves(latencies.size(), options.seed), {}, options);
}

UserSplit splitByUser(std::span<const std::string> keys, std::uint64_t seed) {
    UserSplit out;
    out.inB.resize(keys.size(), 2);
    out.unit.resize(keys.size(), 0);
    std::unordered_map<std::string_view, std::uint32_t> users;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (keys[i].empty()) {
            ++out.withoutKey;
            continue;
        }
        const auto [it, added] = users.try_emplace(keys[i], static_cast<std::uint32_t>(users.size()));
        const int half = halfOfKey(keys[i], seed);
        out.unit[i] = it->second;
        out.inB[i] = static_cast<std::uint8_t>(half);
        if (added) ++(half ? out.usersB : out.usersA);
        ++(half ? out.requestsB : out.requestsA);
    }
    return out;
}

std::vector<TimeBucket> percentilesOverTime(std::span<const TimeNs> latencies, std::span<const TimeNs> startNs,
                                            std::span<const std::uint8_t> inB, std::span<const std::uint32_t> unit,
                                            std::span<const std::uint32_t> types, std::size_t typeCount, int buckets,
                                            const AaPercentilesOptions& options) {
    std::vector<TimeBucket> out;
    if (startNs.empty() || buckets < 1) return out;
    const auto [first, last] = std::minmax_element(startNs.begin(), startNs.end());
    const TimeNs from = *first;
    const TimeNs span = *last - from + 1;  // [from, last] in whole nanoseconds
    // Edge k at from + span * k / buckets, in integers without overflow; a start's bucket by binary search.
    const auto n = static_cast<TimeNs>(buckets);
    auto edge = [&](TimeNs k) { return from + span / n * k + span % n * k / n; };
    std::vector<TimeNs> edges;
    for (TimeNs k = 0; k <= n; ++k) edges.push_back(edge(k));
    out.resize(static_cast<std::size_t>(buckets));
    for (std::size_t k = 0; k < out.size(); ++k) {
        out[k].startNs = edges[k];
        out[k].endNs = edges[k + 1];
        out[k].mix.assign(types.empty() ? 0 : typeCount, 0);
    }
    std::vector<std::vector<std::uint32_t>> members(out.size());
    for (std::size_t i = 0; i < startNs.size(); ++i) {
        const auto k = static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), startNs[i]) - edges.begin()) - 1;
        members[k].push_back(static_cast<std::uint32_t>(i));
    }
    std::vector<TimeNs> l;
    std::vector<std::uint8_t> g;
    std::vector<std::uint32_t> u;
    for (std::size_t k = 0; k < out.size(); ++k) {
        TimeBucket& bucket = out[k];
        l.clear();
        g.clear();
        u.clear();
        for (auto i : members[k]) {
            ++bucket.requests;
            if (!types.empty()) ++bucket.mix[types[i]];
            if (inB[i] == 0) ++bucket.requestsA;
            if (inB[i] == 1) ++bucket.requestsB;
            l.push_back(latencies[i]);
            g.push_back(inB[i]);
            if (!unit.empty()) u.push_back(unit[i]);
        }
        const double seconds = double(bucket.endNs - bucket.startNs) / 1e9;
        bucket.qps = seconds > 0 ? double(bucket.requests) / seconds : 0;
        bucket.percentiles = groupPercentiles(l, g, u, options);
    }
    return out;
}

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
