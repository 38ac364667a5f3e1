// The bottleneck trend: bucket size by the data's span, and buckets that add up to the whole selection
// (each request in the bucket of its start, each bucket's types adding up to its requests' latency).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "TestUtil.h"
#include "core/GeneratedStore.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/bottleneck/BottleneckTrend.h"
#include "tracelight/studies/Aggregates.h"

using namespace tracelight;

namespace {
constexpr TimeNs kSecond = 1000000000;
}

TEST(BottleneckTrend, BucketSizeFollowsTheSpan) {
    EXPECT_EQ(chooseTrendBucket(30 * 86400 * kSecond).unit, "day");
    EXPECT_EQ(chooseTrendBucket(4 * 86400 * kSecond).unit, "day");
    EXPECT_EQ(chooseTrendBucket(3 * 86400 * kSecond).unit, "hour");  // 3 days in 72 hours, not 3 bars
    EXPECT_EQ(chooseTrendBucket(5 * 3600 * kSecond).unit, "hour");
    EXPECT_EQ(chooseTrendBucket(3600 * kSecond).unit, "minute");
    EXPECT_EQ(chooseTrendBucket(60 * kSecond).unit, "second");  // the real files here: one minute
    EXPECT_EQ(chooseTrendBucket(2 * kSecond).unit, "100 ms");
    EXPECT_EQ(chooseTrendBucket(0).unit, "1 ms");
    EXPECT_EQ(chooseTrendBucket(3600 * kSecond).sizeNs, 60 * kSecond);
}

TEST(BottleneckTrend, BucketsAddUpToEveryRequestsLatency) {
    test::ScratchDir dir;
    auto store = test::generatedStore(dir, 400, 7);
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    auto analysis = loadAnalysis(*store);
    ASSERT_TRUE(analysis) << analysis.message();
    std::vector<std::uint32_t> rows;
    for (std::uint32_t r = 0; r < analysis->data.requestCount(); r += 2) rows.push_back(r);  // a selection, not all
    auto trend = computeBottleneckTrend(analysis.value(), store.get(), rows, BottleneckOptions{.rules = {}, .categories = CategoryRules::defaults(), .threads = 2});
    ASSERT_TRUE(trend) << trend.message();
    const BottleneckTrend& t = trend.value();
    ASSERT_EQ(t.rows, rows);
    ASSERT_EQ(t.startNs.size(), rows.size());
    EXPECT_EQ(t.all.requests, static_cast<std::int64_t>(rows.size()));
    TimeNs latencySum = 0;
    for (auto l : t.latencyNs) latencySum += l;
    EXPECT_EQ(t.all.latencyTotalNs, latencySum);

    // At least four contiguous buckets of the chosen size, each request in the one holding its start.
    ASSERT_GE(t.buckets.size(), 4u);
    ASSERT_EQ(t.bucketStartNs.size(), t.buckets.size());
    EXPECT_EQ(t.bucketing.unit, chooseTrendBucket(*std::max_element(t.startNs.begin(), t.startNs.end()) -
                                                  *std::min_element(t.startNs.begin(), t.startNs.end())).unit);
    for (std::size_t b = 1; b < t.bucketStartNs.size(); ++b) EXPECT_EQ(t.bucketStartNs[b] - t.bucketStartNs[b - 1], t.bucketing.sizeNs);
    std::vector<std::int64_t> expectedRequests(t.buckets.size(), 0);
    std::vector<TimeNs> expectedLatency(t.buckets.size(), 0);
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        const auto b = static_cast<std::size_t>((t.startNs[i] - t.bucketStartNs[0]) / t.bucketing.sizeNs);
        ASSERT_LT(b, t.buckets.size());
        ++expectedRequests[b];
        expectedLatency[b] += t.latencyNs[i];
    }

    // Per bucket: its requests and latency; its types' totals add up to that latency, and over the buckets
    // each type adds up to the selection's.
    std::map<std::string, TimeNs> byTypeOverBuckets;
    TimeNs bucketLatencySum = 0;
    for (std::size_t b = 0; b < t.buckets.size(); ++b) {
        const BottleneckSummary& s = t.buckets[b];
        EXPECT_EQ(s.requests, expectedRequests[b]) << b;
        EXPECT_EQ(s.latencyTotalNs, expectedLatency[b]) << b;
        TimeNs types = 0;
        double meanSum = 0;
        for (const auto& type : s.types) {
            types += type.totalNs;
            meanSum += type.meanNs;
            byTypeOverBuckets[type.name] += type.totalNs;
        }
        EXPECT_EQ(types, s.latencyTotalNs) << b;
        EXPECT_NEAR(meanSum, s.meanLatencyNs, 1e-6 * std::max(1.0, s.meanLatencyNs)) << b;
        bucketLatencySum += s.latencyTotalNs;
    }
    EXPECT_EQ(bucketLatencySum, latencySum);
    for (const auto& type : t.all.types) EXPECT_EQ(byTypeOverBuckets[type.name], type.totalNs) << type.name;
}

TEST(BottleneckTrend, EmptySelectionAndCancel) {
    test::ScratchDir dir;
    auto store = test::generatedStore(dir, 40, 3);
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    auto analysis = loadAnalysis(*store);
    ASSERT_TRUE(analysis);
    auto empty = computeBottleneckTrend(analysis.value(), store.get(), {});
    ASSERT_TRUE(empty);
    EXPECT_TRUE(empty->buckets.empty());
    EXPECT_EQ(empty->all.requests, 0);
    CancelToken cancel;
    cancel.cancel();
    auto cancelled = computeBottleneckTrend(analysis.value(), store.get(), {0, 1, 2}, {}, nullptr, &cancel);
    ASSERT_FALSE(cancelled);
    EXPECT_EQ(cancelled.message(), "cancelled");
}
