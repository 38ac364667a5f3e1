#pragma once
// Bottleneck contributions before and after (LinkedIn's BOSS paper: after deferring the ads, "the contribution of
// gaps and ads calls dropped significantly"): each type's mean contribution per request in a baseline and a
// problem set of requests, the change, and whether it is more than chance. And an A/A: the baseline split at
// random in two and compared the same way, so the change of each type can be read against what chance alone
// gives at that sample size.
//
// The test: Welch's two-sample statistic on the per-request contribution of the type (0 in a request without it),
// its p-value from the normal distribution (the central limit theorem: the samples are the requests of two periods,
// hundreds at least); Benjamini-Hochberg across the types at alpha. It is the profile diff's test (Profile.h).
#include <cstdint>
#include <string>
#include <vector>

#include "tracelight/bottleneck/Bottlenecks.h"

namespace tracelight {

struct TypeChange {
    std::string name, howToFix;
    double baseMeanNs = 0, problemMeanNs = 0;  // per request
    double baseShare = 0, problemShare = 0;
    double pValue = 1;  // Benjamini-Hochberg adjusted
    bool significant = false;
    double deltaNs() const { return problemMeanNs - baseMeanNs; }
};

struct BottleneckChanges {
    std::int64_t baseRequests = 0, problemRequests = 0;
    double baseMeanLatencyNs = 0, problemMeanLatencyNs = 0;
    std::vector<TypeChange> types;  // significant first, then by the size of the change
    std::int64_t significantTypes = 0;
};

// Every type of either summary; a type one of them lacks has a mean of 0 there. Fewer than two requests on a
// side: nothing is significant (p = 1).
BottleneckChanges compareBottleneckSummaries(const BottleneckSummary& base, const BottleneckSummary& problem, double alpha = 0.05);

struct BottleneckComparison {
    BottleneckChanges changes;  // problem against baseline
    BottleneckChanges aa;       // one random half of the baseline against the other
    std::uint64_t seed = 1;
};

// baseRows, problemRows: analysis rows (a row may be in both). One sharded pass computes the two sets and the
// two halves of the baseline (base/RandomSplit.h with `seed`). Cancelled: "cancelled".
Result<BottleneckComparison> compareBottlenecks(const InMemoryAnalysis& analysis, const TraceStore* store,
                                                const std::vector<std::uint32_t>& baseRows,
                                                const std::vector<std::uint32_t>& problemRows, const BottleneckOptions& options = {},
                                                double alpha = 0.05, std::uint64_t seed = 1, const ProgressSink* progress = nullptr,
                                                const CancelToken* cancel = nullptr);

// The comparison's JSON (docs/reference/json.md, bottlenecks --baseline --problem).
struct BottleneckSide {
    std::string period;
    const LatencySliceResult* slice = nullptr;  // when the side was cut to a latency slice
};
std::string bottleneckComparisonJson(const BottleneckComparison& comparison, const BottleneckSide& baseline, const BottleneckSide& problem,
                                     double alpha, const BottleneckTrend* trend = nullptr);

} // namespace tracelight
