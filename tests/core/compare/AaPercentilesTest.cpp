// A/A percentiles with bootstrap intervals (issue 14): two random halves of one population differ by
// chance only, so the interval of their relative difference holds 0 — the true difference — at about the
// nominal rate; and the definitions on a hand-made sample.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <span>

#include "generator/PageLoadGenerator.h"
#include "tracelight/compare/AaPercentiles.h"

using namespace tracelight;

namespace {
// The latencies of n generated page loads, a user each.
std::vector<TimeNs> generatedLatencies(std::int64_t n) {
    samples::GeneratorOptions options;
    options.requests = n;
    options.users = n;
    const samples::PageLoadGenerator gen(options);
    std::vector<TimeNs> latencies;
    for (std::int64_t i = 0; i < n; ++i) latencies.push_back(gen.generate(i).latencyNs);
    return latencies;
}
} // namespace

TEST(AaPercentiles, NearestRankOnAHandMadeSample) {
    const std::vector<TimeNs> v{50, 10, 40, 20, 30, 100, 90, 80, 70, 60};
    EXPECT_EQ(nearestRankPercentile(v, 50), 50);
    EXPECT_EQ(nearestRankPercentile(v, 90), 90);
    EXPECT_EQ(nearestRankPercentile(v, 99), 100);
    EXPECT_EQ(nearestRankPercentile(v, 0), 10);
    EXPECT_EQ(nearestRankPercentile({}, 50), 0);
    EXPECT_TRUE(aaPercentiles(std::vector<TimeNs>{1, 2, 3}).empty());  // too few to split
}

TEST(AaPercentiles, TheIntervalHoldsTheTrueDifferenceAtAboutTheNominalRate) {
    const std::vector<TimeNs> latencies = generatedLatencies(1500);

    int held[4] = {0, 0, 0, 0};
    constexpr int kSplits = 100;
    for (int seed = 1; seed <= kSplits; ++seed) {
        AaPercentilesOptions o;
        o.seed = static_cast<std::uint64_t>(seed);
        o.resamples = 200;
        const auto rows = aaPercentiles(latencies, o);
        ASSERT_EQ(rows.size(), 4u);
        for (std::size_t k = 0; k < rows.size(); ++k) {
            const AaPercentile& r = rows[k];
            EXPECT_LE(r.ciLow, r.ciHigh);  // never inverted
            EXPECT_GT(r.aNs, 0);
            EXPECT_NEAR(r.relativeDiff, (r.bNs - r.aNs) / r.aNs, 1e-12);
            held[k] += r.ciLow <= 0 && 0 <= r.ciHigh ? 1 : 0;
        }
    }
    std::cout << "A/A intervals holding 0 over " << kSplits << " splits (p50, p90, p95, p99): " << held[0] << ", " << held[1] << ", "
              << held[2] << ", " << held[3] << "\n";
    // A 95 % interval over 100 splits: about 95 hold 0; the bootstrap of a tail percentile (p99 of 750)
    // is rougher, so the band is loose.
    for (int k = 0; k < 4; ++k) {
        EXPECT_GE(held[k], 80) << "percentile #" << k;
        EXPECT_LE(held[k], 100) << "percentile #" << k;
    }
    // Same seed, same halves and interval.
    const auto x = aaPercentiles(latencies, {7, 100}), y = aaPercentiles(latencies, {7, 100});
    EXPECT_EQ(x[1].aNs, y[1].aNs);
    EXPECT_EQ(x[1].ciLow, y[1].ciLow);
}

TEST(AaPercentiles, AHalfsIntervalHoldsThePopulationsPercentileAtAboutTheNominalRate) {
    // The population: 60,000 generated page loads, its percentiles the truth. Each of 100 splits takes a
    // sample of 1,200 of them (its own slice, so the samples are independent) and splits it in two halves
    // of 600; each half's bootstrap 95 % interval should hold the population's percentile about 95 times
    // in 100 — 200 half-intervals per percentile here.
    constexpr std::int64_t kSample = 1200, kSplits = 100;
    samples::GeneratorOptions options;
    options.requests = kSample * kSplits;
    options.users = options.requests;
    const samples::PageLoadGenerator gen(options);
    std::vector<TimeNs> population;
    for (std::int64_t i = 0; i < options.requests; ++i) population.push_back(gen.generate(i).latencyNs);
    constexpr int kPercentiles[] = {50, 90, 95, 99};
    double truth[4];
    for (int k = 0; k < 4; ++k) truth[k] = nearestRankPercentile(population, kPercentiles[k]);

    int held[4] = {0, 0, 0, 0};
    for (std::int64_t s = 0; s < kSplits; ++s) {
        const std::span<const TimeNs> sample(population.data() + s * kSample, kSample);
        const auto rows = aaPercentiles(sample, {static_cast<std::uint64_t>(s + 1), 200});
        ASSERT_EQ(rows.size(), 4u);
        for (std::size_t k = 0; k < 4; ++k) {
            const AaPercentile& r = rows[k];
            EXPECT_LE(r.aCiLowNs, r.aCiHighNs);  // never inverted
            EXPECT_LE(r.bCiLowNs, r.bCiHighNs);
            held[k] += (r.aCiLowNs <= truth[k] && truth[k] <= r.aCiHighNs) + (r.bCiLowNs <= truth[k] && truth[k] <= r.bCiHighNs);
        }
    }
    std::cout << "half-intervals holding the population's percentile, of " << 2 * kSplits << " (p50, p90, p95, p99): " << held[0]
              << ", " << held[1] << ", " << held[2] << ", " << held[3] << "\n";
    for (int k = 0; k < 4; ++k) {
        EXPECT_GE(held[k], 85 * 2 * kSplits / 100) << "p" << kPercentiles[k];
        EXPECT_LE(held[k], 99 * 2 * kSplits / 100) << "p" << kPercentiles[k];
    }
}

// At a given group size (a breakdown's smallest stratum): the halves hold that many requests each, the
// chance difference shrinks as the groups grow (about as 1/sqrt(n)), and a size beyond half the population
// falls back to the whole population's A/A.
TEST(AaPercentiles, AtAGroupSizeTheChanceDifferenceShrinksWithTheGroup) {
    const std::vector<TimeNs> latencies = generatedLatencies(4000);
    const AaPercentilesOptions o{3, 300};
    const auto small = aaPercentilesAtSize(latencies, 50, o), large = aaPercentilesAtSize(latencies, 1600, o);
    ASSERT_EQ(small.size(), 4u);
    ASSERT_EQ(large.size(), 4u);
    // Each half's percentile is a value of the population (nearest rank), and the halves are disjoint draws.
    for (const auto& row : small) EXPECT_NE(std::find(latencies.begin(), latencies.end(), static_cast<TimeNs>(row.aNs)), latencies.end());
    EXPECT_GT(chanceDifference(small, 50), 2 * chanceDifference(large, 50));  // sqrt(1600 / 50) = 5.7
    EXPECT_GT(chanceDifference(small, 95), chanceDifference(large, 95));
    EXPECT_EQ(chanceDifference(small, 42), 0);  // no such row
    const auto whole = aaPercentilesAtSize(latencies, 3000, o), direct = aaPercentiles(latencies, o);
    EXPECT_EQ(whole[0].ciLow, direct[0].ciLow);
    EXPECT_EQ(whole[3].bNs, direct[3].bNs);
}
