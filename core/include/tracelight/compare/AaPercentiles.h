#pragma once
// An A/A comparison of latency percentiles (Google's cloud-application study, NSDI'18): one set of
// requests split at random into two halves (base/RandomSplit.h, a repeatable seed), each half's p50, p90,
// p95 and p99, their relative difference, and a bootstrap 95 % interval of that difference — how far two
// samples of this size differ by chance alone, the figure every comparison should be read against.
#include <cstdint>
#include <span>
#include <vector>

#include "tracelight/base/Time.h"

namespace tracelight {

struct AaPercentile {
    int p = 50;
    double aNs = 0, bNs = 0;       // the percentile of each half (nearest rank)
    double relativeDiff = 0;       // (b - a) / a
    double ciLow = 0, ciHigh = 0;  // bootstrap 95 % interval of relativeDiff (percentile method)
    // Each half's own bootstrap 95 % interval of the percentile, from the same resamples: where the whole
    // population's percentile lies, as far as one half can tell.
    double aCiLowNs = 0, aCiHighNs = 0, bCiLowNs = 0, bCiHighNs = 0;
};

struct AaPercentilesOptions {
    std::uint64_t seed = 1;  // the split's and the bootstrap's
    int resamples = 1000;
};

// latencies: one per request, in a fixed order (the split is of their indices). Fewer than 4: empty.
std::vector<AaPercentile> aaPercentiles(std::span<const TimeNs> latencies, const AaPercentilesOptions& options = {});

// The A/A of two random samples of `perSide` requests each, drawn without replacement from `population`
// (all of it when it holds fewer than 2 x perSide): how far two groups of that size differ by chance, for
// comparisons whose groups are smaller than the whole — the strata of a breakdown, say.
std::vector<AaPercentile> aaPercentilesAtSize(std::span<const TimeNs> population, std::size_t perSide,
                                              const AaPercentilesOptions& options = {});

// The widest chance difference of a percentile: max(|ciLow|, |ciHigh|) of its row, 0 when absent.
double chanceDifference(const std::vector<AaPercentile>& rows, int p);

// The nearest-rank percentile p (0..100) of values (copied and partially sorted); 0 for none.
double nearestRankPercentile(std::vector<TimeNs> values, double p);

} // namespace tracelight
