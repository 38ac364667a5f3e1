#pragma once
// The statistics of a period comparison (Spectroscope): the two-sample Kolmogorov-Smirnov test and
// Benjamini-Hochberg control of the false discovery rate.
#include <cstdint>
#include <span>
#include <vector>

namespace tracelight {

struct KsResult {
    double d = 0;       // the largest distance between the two empirical CDFs
    double pValue = 1;  // two-sided
    bool exact = false; // from the exact distribution (small samples), else the asymptotic one
};

// Samples need not be sorted. The p-value is exact (lattice-path count of the null distribution, as
// Hodges 1958) when n * m <= exactLimit, else from Kolmogorov's limit distribution with Stephens'
// small-sample correction. An empty sample gives d = 0, p = 1.
KsResult ksTwoSample(std::span<const double> a, std::span<const double> b, std::uint64_t exactLimit = 10000);

// Kolmogorov's limit: P(sup |B(t)| > lambda) = 2 sum (-1)^(k-1) exp(-2 k^2 lambda^2).
double kolmogorovSurvival(double lambda);
// Exact two-sided P(D >= d) for sample sizes n, m under the null (no ties).
double ksExactSurvival(double d, std::uint32_t n, std::uint32_t m);

// Benjamini-Hochberg adjusted p-values (q-values), in the order given: reject where q <= alpha.
std::vector<double> benjaminiHochberg(std::span<const double> pValues);
// Holm's step-down adjusted p-values, in the order given: reject where the value < alpha, and the chance of
// rejecting any true null hypothesis of the family is at most alpha (family-wise error rate).
std::vector<double> holm(std::span<const double> pValues);

// Exact two-sided binomial test: P, under X ~ Binomial(n, q), of an outcome no more likely than k (the
// outcomes as likely as k or less, summed; Clopper's "method of small p-values").
double binomialTwoSided(std::int64_t k, std::int64_t n, double q);
// The smallest p-value binomialTwoSided can give for n trials (k = 0 or k = n): a test that cannot reach
// alpha cannot reject and need not count in a family's correction (Tarone 1990).
double binomialMinimumP(std::int64_t n, double q);

// One stratum of a stratified rank test: the values of the two samples.
struct RankStratum {
    std::vector<double> base, target;
};
// van Elteren's stratified Wilcoxon-Mann-Whitney test (1960), one-sided: P of values in target this much
// larger than in base by chance, each stratum's rank sum weighted by 1 / (its size + 1), ties given mid-ranks
// (with the variance's tie correction), the normal approximation. Strata missing either sample count for
// nothing; none left: 1.
double vanElterenGreater(std::span<const RankStratum> strata);

// Fisher's exact test, one-sided: P of k or more successes in the target's n when a successes of the base's m
// and the target's together were drawn without regard to the sample (hypergeometric upper tail).
double fisherGreater(std::int64_t k, std::int64_t n, std::int64_t a, std::int64_t m);

// The beta-binomial upper tail: P(X >= k) for X successes in n trials whose common success rate is drawn from
// Beta(a, b) (a, b > 0).
double betaBinomialGreater(std::int64_t k, std::int64_t n, double a, double b);
// Empirical Bayes: the concentration a + b of a Beta prior with the given mean (0 < mean < 1) that makes the
// groups' counts (successes[i] of trials[i]) most likely, searched over a geometric grid from 0.5 to 1e6 (a
// large value: the groups share one rate; a small one: their rates differ widely).
double betaConcentration(std::span<const std::int64_t> successes, std::span<const std::int64_t> trials, double mean);

} // namespace tracelight
