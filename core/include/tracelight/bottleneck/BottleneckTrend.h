#pragma once
// The BOSS trend (LinkedIn's BOSS paper: "stacked trending chart to show how the bottleneck
// changes over time"): the selection's requests put in buckets of their start time, each bucket's per-type
// mean contribution per request, from the same one sharded pass as the whole selection's (Bottlenecks.h).
// Also each request's start and latency, for the latency-over-time scatter.
#include <cstdint>
#include <string>
#include <vector>

#include "tracelight/bottleneck/Bottlenecks.h"

namespace tracelight {

struct TrendBucketing {
    TimeNs sizeNs = 0;
    std::string unit;  // "day", "hour", "minute", "second", "100 ms", "10 ms", "1 ms"
};

// The largest of day, hour, minute, second, 100/10/1 ms that cuts spanNs into at least four buckets (a
// trend of one or two bars says nothing); the millisecond when even that gives fewer.
TrendBucketing chooseTrendBucket(TimeNs spanNs);

struct BottleneckTrend {
    BottleneckSummary all;  // the whole selection
    TrendBucketing bucketing;
    // Contiguous buckets from the first request's to the last's, aligned to multiples of the size since the
    // epoch (so days are UTC days); a bucket without requests has an empty summary.
    std::vector<TimeNs> bucketStartNs;
    std::vector<BottleneckSummary> buckets;
    // The selection's requests in row order: analysis row, start (first event, analysis clock) and latency.
    std::vector<std::uint32_t> rows;
    std::vector<TimeNs> startNs, latencyNs;
};

// rows: the selection (analysis rows). Empty: an empty trend. Cancelled: "cancelled".
Result<BottleneckTrend> computeBottleneckTrend(const InMemoryAnalysis& analysis, const TraceStore* store,
                                               const std::vector<std::uint32_t>& rows, const BottleneckOptions& options = {},
                                               const ProgressSink* progress = nullptr, const CancelToken* cancel = nullptr);

} // namespace tracelight
