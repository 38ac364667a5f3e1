#pragma once
// An A/A comparison of latency percentiles (Google's cloud-application study, NSDI'18): one set of
// requests split at random into two halves (base/RandomSplit.h, a repeatable seed) — by request, or by user
// (any attribute: every request of one user in the same half) — each half's p50, p90, p95 and p99, their
// relative difference, and a 95 % interval of that difference — how far two samples of this size differ by
// chance alone, the figure every comparison should be read against. The same figures compare a test group
// with its control, and both per time bucket (the paper compares them at the same points in time).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tracelight/base/Time.h"

namespace tracelight {

struct AaPercentile {
    int p = 50;
    double aNs = 0, bNs = 0;       // the percentile of each half (nearest rank)
    double relativeDiff = 0;       // (b - a) / a
    // 95 % interval of relativeDiff, by re-randomisation: the requests' units (each request, or each user)
    // dealt again at random into two groups of the same numbers of units, many times; the 2.5th and 97.5th
    // percentiles q of log(b / a) over these re-splits give [exp(L - q97.5) - 1, exp(L - q2.5) - 1] around the
    // observed L = log(b / a). On a pure A/A it holds 0 exactly when the observed split is not among the 5 %
    // most extreme of its kind, so 95 % of the time whatever the sample size or the percentile (a bootstrap of
    // each half, percentile method, held it in 268 of 300 splits at p99 of 100 requests).
    double ciLow = 0, ciHigh = 0;
    // Each half's own bootstrap 95 % interval of the percentile (resampled with replacement): where the whole
    // population's percentile lies, as far as one half can tell.
    double aCiLowNs = 0, aCiHighNs = 0, bCiLowNs = 0, bCiHighNs = 0;
};

struct AaPercentilesOptions {
    std::uint64_t seed = 1;  // the split's, the re-splits' and the bootstrap's
    int resamples = 1000;    // re-splits for the interval of the difference, and bootstrap resamples of each half
};

// latencies: one per request, in a fixed order (the split is of their indices). Fewer than 4: empty.
std::vector<AaPercentile> aaPercentiles(std::span<const TimeNs> latencies, const AaPercentilesOptions& options = {});

// Two given groups of requests: inB[i] says which group request i is in (0: A, 1: B), unit[i] the unit it
// was assigned with (a user: every request of a unit in the same group; empty: each request its own unit).
// The interval re-deals the units at random into groups of the same numbers of units. Fewer than 2 requests
// in a group: empty.
std::vector<AaPercentile> groupPercentiles(std::span<const TimeNs> latencies, std::span<const std::uint8_t> inB,
                                           std::span<const std::uint32_t> unit = {}, const AaPercentilesOptions& options = {});

// Random halves by request (RandomSplit.h's splitAtRandom of 0..n-1 with the seed: the same halves as the
// period comparison's own A/A and aaPercentiles'): inB per request.
std::vector<std::uint8_t> randomHalves(std::size_t requests, std::uint64_t seed);

// A split by user: keys[i] is request i's value of the attribute (halfOfKey in base/RandomSplit.h decides
// its half with the seed); requests with an empty key have no user and are left out (inB = 2).
struct UserSplit {
    std::vector<std::uint8_t> inB;     // per request: 0 (A), 1 (B), 2 (no key)
    std::vector<std::uint32_t> unit;   // per request: its user, numbered from 0 (0 for no key)
    std::int64_t usersA = 0, usersB = 0, requestsA = 0, requestsB = 0, withoutKey = 0;
};
UserSplit splitByUser(std::span<const std::string> keys, std::uint64_t seed);

// Over time: the requests' start times cut into `buckets` equal spans from the first start to the last, and
// per bucket its requests (all given, in either group or none), its load (requests per second) and mix
// (requests per type: types[i] in 0..typeCount-1, or types empty for no mix), and the two groups' percentiles
// as groupPercentiles of the bucket's requests (the same assignment; the interval re-deals the bucket's own
// units). inB = 2 leaves a request out of both groups.
struct TimeBucket {
    TimeNs startNs = 0, endNs = 0;
    std::int64_t requests = 0, requestsA = 0, requestsB = 0;
    double qps = 0;                       // requests per second of all the bucket's requests
    std::vector<std::int64_t> mix;        // requests per type
    std::vector<AaPercentile> percentiles;  // empty when a group has under 2 requests here
};
std::vector<TimeBucket> percentilesOverTime(std::span<const TimeNs> latencies, std::span<const TimeNs> startNs,
                                            std::span<const std::uint8_t> inB, std::span<const std::uint32_t> unit,
                                            std::span<const std::uint32_t> types, std::size_t typeCount, int buckets,
                                            const AaPercentilesOptions& options = {});

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
