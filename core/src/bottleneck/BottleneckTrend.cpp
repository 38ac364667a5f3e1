#include "tracelight/bottleneck/BottleneckTrend.h"

#include <algorithm>

#include "tracelight/analysis/Segments.h"
#include "tracelight/analysis/SpanRequestPath.h"

namespace tracelight {

namespace {
constexpr TimeNs kNsPerSecond = 1000000000;
}

TrendBucketing chooseTrendBucket(TimeNs spanNs) {
    static const TrendBucketing kSizes[] = {{86400 * kNsPerSecond, "day"}, {3600 * kNsPerSecond, "hour"}, {60 * kNsPerSecond, "minute"},
                                            {kNsPerSecond, "second"},     {100000000, "100 ms"},          {10000000, "10 ms"},
                                            {1000000, "1 ms"}};
    for (const auto& size : kSizes)
        if (spanNs / size.sizeNs >= 4) return size;
    return kSizes[std::size(kSizes) - 1];
}

namespace {
TimeNs floorTo(TimeNs t, TimeNs size) {
    const TimeNs q = t / size;
    return (t % size < 0 ? q - 1 : q) * size;  // toward minus infinity: times before 1970 stay in order
}
} // namespace

Result<BottleneckTrend> computeBottleneckTrend(const InMemoryAnalysis& analysis, const TraceStore* store,
                                               const std::vector<std::uint32_t>& rows, const BottleneckOptions& options,
                                               const ProgressSink* progress, const CancelToken* cancel) {
    BottleneckTrend out;
    const TraceData& td = analysis.data;
    // Each request's window, as the contribution pass cuts it (requestWindow: what its latency measures).
    std::vector<SegmentInstance> scratch;
    for (auto r : rows) {
        if (r >= td.requestCount()) continue;
        if (cancel && cancel->isCancelled()) return Status::error("cancelled");
        const RequestSpan window = requestWindow(td, r, analysis.offsets, scratch);
        out.rows.push_back(r);
        out.startNs.push_back(window.startNs);
        out.latencyNs.push_back(window.endNs - window.startNs);
    }
    if (out.rows.empty()) return out;

    const auto [first, last] = std::minmax_element(out.startNs.begin(), out.startNs.end());
    out.bucketing = chooseTrendBucket(*last - *first);
    const TimeNs size = out.bucketing.sizeNs, origin = floorTo(*first, size);
    const std::size_t bucketCount = static_cast<std::size_t>((floorTo(*last, size) - origin) / size) + 1;
    // Group 0: the whole selection; group 1 + b: bucket b. One pass computes them all.
    std::vector<std::vector<std::uint32_t>> groups(1 + bucketCount);
    groups[0] = out.rows;
    for (std::size_t i = 0; i < out.rows.size(); ++i)
        groups[1 + static_cast<std::size_t>((floorTo(out.startNs[i], size) - origin) / size)].push_back(out.rows[i]);
    auto summaries = computeBottlenecks(analysis, store, groups, options, progress, cancel);
    if (!summaries) return summaries.status();
    out.all = std::move(summaries.value()[0]);
    for (std::size_t b = 0; b < bucketCount; ++b) {
        out.bucketStartNs.push_back(origin + static_cast<TimeNs>(b) * size);
        out.buckets.push_back(std::move(summaries.value()[1 + b]));
    }
    return out;
}

} // namespace tracelight
