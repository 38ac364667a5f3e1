#pragma once
// BOSS bottlenecks of a set of requests: each request's contributions by bottleneck type
// (RequestBottlenecks.h), summed over groups of requests (a period, the strata of an attribute) in one
// sharded pass, as per-request means and shares. Shares of a group add up to 1 (contributions add up to
// each request's latency exactly).
#include <cstdint>
#include <string>
#include <vector>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/base/Progress.h"
#include "tracelight/base/Status.h"
#include "tracelight/bottleneck/BottleneckRules.h"
#include "tracelight/studies/Categories.h"

namespace tracelight {

class TraceStore;

struct BottleneckOptions {
    BottleneckRules rules;                                    // first match wins; none: the defaults
    CategoryRules categories = CategoryRules::defaults();     // event logs' default types
    unsigned threads = 0;
};

struct TypeContribution {
    std::string name, howToFix;
    TimeNs totalNs = 0;     // summed over the group's requests
    double meanNs = 0;      // per request
    double share = 0;       // of the group's summed latency
    double varianceNs2 = 0; // of the per-request contribution (0 where a request has none; n - 1 in the denominator)
};

struct BottleneckSummary {
    std::int64_t requests = 0;
    TimeNs latencyTotalNs = 0;
    double meanLatencyNs = 0;
    std::vector<TypeContribution> types;  // largest contribution first (then by name); "gaps" always listed
};

// groups[g]: analysis rows of group g (a row may be in several). store: span data's span records (one
// streaming scan); may be null for event logs. An empty group gives an empty summary. Cancelled: "cancelled".
Result<std::vector<BottleneckSummary>> computeBottlenecks(const InMemoryAnalysis& analysis, const TraceStore* store,
                                                          const std::vector<std::vector<std::uint32_t>>& groups,
                                                          const BottleneckOptions& options = {}, const ProgressSink* progress = nullptr,
                                                          const CancelToken* cancel = nullptr);

// The `bottlenecks` JSON (docs/reference/json.md): {"requests", "mean_latency_us", "latency_percentile", "types": [{"name",
// "how_to_fix", "contribution_us", "share"}], "strata": [{"attr", "value", "requests", "types": [...]}], "trend"}.
struct BottleneckStratum {
    std::string value;
    BottleneckSummary summary;
};
struct BottleneckTrend;
struct LatencySliceResult;
// What the JSON holds beyond the selection and its strata: the latency slice it was cut to ("latency_percentile":
// null without one) and the trend ("trend", only when given).
struct BottlenecksJsonExtras {
    const LatencySliceResult* slice = nullptr;
    const BottleneckTrend* trend = nullptr;
};
std::string bottlenecksJson(const BottleneckSummary& all, const std::string& attribute, const std::vector<BottleneckStratum>& strata,
                            const BottlenecksJsonExtras& extras = {});
// The parts both bottleneck JSON documents share: a latency slice's object (null without one) and the trend's.
class JsonWriter;
void writeLatencySliceJson(JsonWriter& w, const LatencySliceResult* slice);
void writeBottleneckTrendJson(JsonWriter& w, const BottleneckTrend& trend);

} // namespace tracelight
