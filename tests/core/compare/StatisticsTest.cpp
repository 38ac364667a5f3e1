// Two-sample Kolmogorov-Smirnov and Benjamini-Hochberg against independent references.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "tracelight/compare/Statistics.h"

namespace tracelight {
namespace {

// Reference for the exact p-value: the definition itself. Under the null every assignment of the n + m
// pooled (distinct) values to the two samples is equally likely; enumerate all C(n+m, n) of them and
// count those whose D is at least the observed one.
double bruteForceP(const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> pooled(a);
    pooled.insert(pooled.end(), b.begin(), b.end());
    const double observed = ksTwoSample(a, b, 0).d;
    const std::size_t total = pooled.size();
    std::vector<bool> pick(total, false);
    std::fill(pick.begin(), pick.begin() + long(a.size()), true);
    std::sort(pick.begin(), pick.end());
    long hits = 0, all = 0;
    do {
        std::vector<double> x, y;
        for (std::size_t k = 0; k < total; ++k) (pick[k] ? x : y).push_back(pooled[k]);
        ++all;
        if (ksTwoSample(x, y, 0).d >= observed - 1e-12) ++hits;
    } while (std::next_permutation(pick.begin(), pick.end()));
    return double(hits) / double(all);
}

TEST(KolmogorovSmirnov, StatisticIsTheLargestCdfDistance) {
    const std::vector<double> a{1, 2, 3, 4, 5}, b{6, 7, 8, 9, 10};
    EXPECT_DOUBLE_EQ(ksTwoSample(a, b).d, 1.0);
    const std::vector<double> c{1, 3, 5, 7}, d{2, 4, 6, 8};
    EXPECT_DOUBLE_EQ(ksTwoSample(c, d).d, 0.25);
    // Ties across the samples step together: identical samples differ by nothing.
    const std::vector<double> e{1, 1, 2, 2};
    EXPECT_DOUBLE_EQ(ksTwoSample(e, e).d, 0.0);
    EXPECT_DOUBLE_EQ(ksTwoSample(e, e).pValue, 1.0);
}

TEST(KolmogorovSmirnov, ExactPValueMatchesEnumerationOfEveryAssignment) {
    // Complete separation of 5 and 5: only the two extreme assignments of C(10,5) = 252 reach D = 1.
    const std::vector<double> a{1, 2, 3, 4, 5}, b{6, 7, 8, 9, 10};
    const auto r = ksTwoSample(a, b);
    EXPECT_TRUE(r.exact);
    EXPECT_NEAR(r.pValue, 2.0 / 252.0, 1e-12);
    const std::vector<std::pair<std::vector<double>, std::vector<double>>> cases{
        {{0.1, 0.5, 0.9, 1.3, 2.2, 3.1}, {0.2, 0.3, 1.7, 2.5, 2.9, 4.0, 4.4}},
        {{1, 2, 3, 4, 5, 6, 7}, {3.5, 4.5, 5.5, 8, 9}},
        {{10, 20, 30}, {11, 12, 13, 14, 15, 16, 17, 40}},
        {{5.5, 1.25, 9.75, 3.5}, {2.5, 7.5, 0.5, 6.25, 8.5, 4.25}},
    };
    for (const auto& [x, y] : cases) {
        const auto k = ksTwoSample(x, y);
        EXPECT_TRUE(k.exact);
        EXPECT_NEAR(k.pValue, bruteForceP(x, y), 1e-9) << "D = " << k.d;
    }
}

TEST(KolmogorovSmirnov, AsymptoticMatchesPublishedCriticalValues) {
    // Smirnov (1948), "Table for estimating the goodness of fit of empirical distributions", Ann. Math.
    // Statist. 19: the limit distribution's upper points: Q(1.2239) = 0.10, Q(1.3581) = 0.05,
    // Q(1.4802) = 0.025, Q(1.6276) = 0.01, Q(1.9495) = 0.001.
    EXPECT_NEAR(kolmogorovSurvival(1.2239), 0.10, 1e-4);
    EXPECT_NEAR(kolmogorovSurvival(1.3581), 0.05, 1e-4);
    EXPECT_NEAR(kolmogorovSurvival(1.4802), 0.025, 1e-4);
    EXPECT_NEAR(kolmogorovSurvival(1.6276), 0.01, 1e-4);
    EXPECT_NEAR(kolmogorovSurvival(1.9495), 0.001, 1e-5);
    EXPECT_DOUBLE_EQ(kolmogorovSurvival(0.0), 1.0);
}

TEST(KolmogorovSmirnov, LargeSamplesUseTheLimitAndAgreeWithExactNearTheBoundary) {
    std::vector<double> a, b;
    for (int i = 0; i < 150; ++i) a.push_back(i);
    for (int i = 0; i < 150; ++i) b.push_back(i + 25.5);
    const auto asym = ksTwoSample(a, b);
    EXPECT_FALSE(asym.exact);
    const auto exact = ksTwoSample(a, b, 1u << 30);
    EXPECT_TRUE(exact.exact);
    EXPECT_DOUBLE_EQ(asym.d, exact.d);
    // Same order of magnitude: the corrected limit is within a few percent of the exact value here.
    EXPECT_NEAR(asym.pValue / exact.pValue, 1.0, 0.15) << asym.pValue << " vs " << exact.pValue;
}

TEST(BenjaminiHochberg, AdjustedValuesMatchTheStepUpProcedure) {
    // Worked by hand from the definition q(i) = min_{k >= i} p(k) * n / k (Benjamini & Hochberg 1995).
    const std::vector<double> p{0.01, 0.04, 0.03, 0.005};
    const auto q = benjaminiHochberg(p);
    ASSERT_EQ(q.size(), 4u);
    EXPECT_NEAR(q[3], 0.02, 1e-12);    // 0.005 * 4 / 1
    EXPECT_NEAR(q[0], 0.02, 1e-12);    // 0.01 * 4 / 2
    EXPECT_NEAR(q[2], 0.04, 1e-12);    // 0.03 * 4 / 3
    EXPECT_NEAR(q[1], 0.04, 1e-12);    // 0.04 * 4 / 4
    EXPECT_TRUE(benjaminiHochberg({}).empty());
}


TEST(Holm, AdjustedValuesMatchTheStepDownProcedure) {
    // Worked by hand from the definition q(i) = max_{k <= i} min(1, p(k) * (n - k + 1)) (Holm 1979).
    const std::vector<double> p{0.01, 0.04, 0.03, 0.005};
    const auto q = holm(p);
    ASSERT_EQ(q.size(), 4u);
    EXPECT_NEAR(q[3], 0.02, 1e-12);  // 0.005 * 4
    EXPECT_NEAR(q[0], 0.03, 1e-12);  // 0.01 * 3
    EXPECT_NEAR(q[2], 0.06, 1e-12);  // 0.03 * 2
    EXPECT_NEAR(q[1], 0.06, 1e-12);  // max(0.04 * 1, 0.06)
    EXPECT_TRUE(holm({}).empty());
}

TEST(Binomial, ExactTwoSidedTestAgainstHandCounts) {
    // n = 4, q = 1/2: P = 1, 4, 6, 4, 1 over 16.
    EXPECT_NEAR(binomialTwoSided(0, 4, 0.5), 2.0 / 16, 1e-12);
    EXPECT_NEAR(binomialTwoSided(1, 4, 0.5), 10.0 / 16, 1e-12);
    EXPECT_NEAR(binomialTwoSided(2, 4, 0.5), 1.0, 1e-12);
    EXPECT_NEAR(binomialMinimumP(4, 0.5), 2.0 / 16, 1e-12);
    // Asymmetric: n = 3, q = 1/4: P = 27, 27, 9, 1 over 64; k = 2 sums the outcomes no likelier than 9/64.
    EXPECT_NEAR(binomialTwoSided(2, 3, 0.25), 10.0 / 64, 1e-12);
    EXPECT_NEAR(binomialMinimumP(3, 0.25), 1.0 / 64, 1e-12);
    // 56 requests of a category all in the problem period of two equal periods: about 2^-55.
    EXPECT_NEAR(binomialTwoSided(56, 56, 0.5) / std::ldexp(1.0, -55), 1.0, 1e-9);
    EXPECT_EQ(binomialTwoSided(0, 0, 0.5), 1.0);
}

// Mann-Whitney's textbook case: every target value above every base value, three of each: U = 9 of 9, mean
// 4.5, variance 3·3·7/12, one-sided p = 1 − Φ(4.5 / √5.25). One stratum is van Elteren's test unweighted; a
// second stratum with the same shift doubles the evidence; ties count half and shrink the variance.
TEST(Statistics, VanElterenIsMannWhitneyPerStratum) {
    const RankStratum one{{1, 2, 3}, {4, 5, 6}};
    EXPECT_NEAR(vanElterenGreater(std::span(&one, 1)), 0.5 * std::erfc(4.5 / std::sqrt(5.25) / std::sqrt(2.0)), 1e-12);
    const RankStratum reversed{{4, 5, 6}, {1, 2, 3}};
    EXPECT_GT(vanElterenGreater(std::span(&reversed, 1)), 0.97);
    const std::vector<RankStratum> two{one, {{10, 20, 30}, {40, 50, 60}}};
    EXPECT_LT(vanElterenGreater(two), vanElterenGreater(std::span(&one, 1)));
    const std::vector<RankStratum> empty{{{1, 2}, {}}};
    EXPECT_EQ(vanElterenGreater(empty), 1.0);
    const RankStratum tied{{0, 0, 0, 1}, {0, 0, 1, 1}};
    EXPECT_GT(vanElterenGreater(std::span(&tied, 1)), 0.1);
}

// Fisher's one-sided test against the hypergeometric tail counted by hand: 3 of 3 target successes when 3 of
// 6 in all were successes: C(3,3)·C(3,0)/C(6,3) = 1/20; 2 or more: (9 + 1)/20.
TEST(Statistics, FisherGreaterIsTheHypergeometricTail) {
    EXPECT_NEAR(fisherGreater(3, 3, 0, 3), 1.0 / 20, 1e-12);
    EXPECT_NEAR(fisherGreater(2, 3, 1, 3), 10.0 / 20, 1e-12);
    EXPECT_EQ(fisherGreater(0, 3, 3, 3), 1.0);
    EXPECT_LT(fisherGreater(40, 100, 2, 100), 1e-9);
}

// Beta(1, 1) is uniform, and then every count of n trials is equally likely: P(X >= k) = (n - k + 1)/(n + 1).
// A concentrated prior is the binomial: Beta(1e6 q, 1e6 (1 - q)) against the binomial tail summed by hand.
TEST(Statistics, BetaBinomialTailAgainstTheUniformAndTheBinomialCase) {
    EXPECT_NEAR(betaBinomialGreater(3, 10, 1, 1), 8.0 / 11, 1e-9);
    EXPECT_NEAR(betaBinomialGreater(10, 10, 1, 1), 1.0 / 11, 1e-9);
    EXPECT_EQ(betaBinomialGreater(0, 10, 1, 1), 1.0);
    EXPECT_EQ(betaBinomialGreater(11, 10, 1, 1), 0.0);
    const double q = 0.1;
    double binomial = 0;  // P(X >= 3), X ~ Binomial(20, 0.1)
    for (int j = 3; j <= 20; ++j) binomial += std::tgamma(21) / (std::tgamma(j + 1) * std::tgamma(21 - j)) * std::pow(q, j) * std::pow(1 - q, 20 - j);
    EXPECT_NEAR(betaBinomialGreater(3, 20, 1e6 * q, 1e6 * (1 - q)), binomial, 1e-4);
    // A wider prior makes a high count less surprising.
    EXPECT_GT(betaBinomialGreater(8, 37, 0.2, 19.8), betaBinomialGreater(8, 37, 2, 198));
}

// The concentration that explains the groups: counts drawn from a known Beta-binomial are given back within
// the grid's resolution; groups that all share one rate give a large concentration.
TEST(Statistics, BetaConcentrationRecoversTheSpreadOfTheGroupsRates) {
    std::mt19937 random(7);
    std::gamma_distribution<double> ga(2.0, 1.0), gb(18.0, 1.0);  // Beta(2, 18): mean 0.1, concentration 20
    std::vector<std::int64_t> successes, trials;
    for (int i = 0; i < 3000; ++i) {
        const double x = ga(random), rate = x / (x + gb(random));
        std::binomial_distribution<std::int64_t> draw(50, rate);
        successes.push_back(draw(random));
        trials.push_back(50);
    }
    const double c = betaConcentration(successes, trials, 0.1);
    EXPECT_GT(c, 15);
    EXPECT_LT(c, 27);
    std::vector<std::int64_t> shared;
    std::binomial_distribution<std::int64_t> same(50, 0.1);
    for (int i = 0; i < 3000; ++i) shared.push_back(same(random));
    EXPECT_GT(betaConcentration(shared, trials, 0.1), 1000);
}

} // namespace
} // namespace tracelight
