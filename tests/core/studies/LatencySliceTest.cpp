// Latency slices ("the slowest 10 %", any LO..HI): the parser, and the slice against a brute-force reading of its
// definition — a request of rank i of n (fastest first, ties in row order) is in LO..HI when LO/100 <= i/n < HI/100.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "TestUtil.h"
#include "core/GeneratedStore.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/bottleneck/BottleneckTrend.h"
#include "tracelight/bottleneck/Bottlenecks.h"
#include "tracelight/studies/Aggregates.h"
#include "tracelight/studies/LatencySlice.h"

using namespace tracelight;

TEST(LatencySlice, ParsesRangesAndRefusesBadOnesSayingWhy) {
    auto slowest = parsePercentileRange("90..100");
    ASSERT_TRUE(slowest) << slowest.message();
    EXPECT_EQ(slowest->lo, 90 * PercentileRange::kScale);
    EXPECT_EQ(slowest->hi, 100 * PercentileRange::kScale);
    EXPECT_EQ(slowest->text(), "90..100");
    auto fine = parsePercentileRange("99.9..100");  // exact: 999,000, not 998,999.99…
    ASSERT_TRUE(fine) << fine.message();
    EXPECT_EQ(fine->lo, 999000);
    EXPECT_EQ(fine->text(), "99.9..100");
    EXPECT_EQ(parsePercentileRange("0.0625..50")->text(), "0.0625..50");
    EXPECT_TRUE(parsePercentileRange("0..100")->isAll());

    auto backwards = parsePercentileRange("95..90");
    ASSERT_FALSE(backwards);
    EXPECT_NE(backwards.message().find("LO must be below HI"), std::string::npos) << backwards.message();
    EXPECT_FALSE(parsePercentileRange("50..50"));
    auto word = parsePercentileRange("abc");
    ASSERT_FALSE(word);
    EXPECT_NE(word.message().find("expected LO..HI"), std::string::npos) << word.message();
    for (const char* bad : {"..100", "90..", "-5..10", "0..101", "a..b", "90...100", "90..100x", ""})
        EXPECT_FALSE(parsePercentileRange(bad)) << bad;
}

namespace {
// The definition read literally: count the requests ranked before each one.
std::vector<std::uint32_t> bruteForceSlice(const std::vector<std::uint32_t>& rows, const std::vector<TimeNs>& latencies, std::int64_t lo,
                                           std::int64_t hi) {
    const std::int64_t n = static_cast<std::int64_t>(rows.size()), scale = 100 * PercentileRange::kScale;
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        std::int64_t rank = 0;
        for (std::size_t j = 0; j < rows.size(); ++j)
            rank += latencies[j] < latencies[i] || (latencies[j] == latencies[i] && rows[j] < rows[i]);
        if (lo * n <= rank * scale && rank * scale < hi * n) out.push_back(rows[i]);
    }
    return out;
}
} // namespace

TEST(LatencySlice, MatchesTheDefinitionOnRandomLatenciesWithTies) {
    std::mt19937_64 random(42);
    const std::int64_t S = PercentileRange::kScale;
    const std::vector<std::pair<std::int64_t, std::int64_t>> ranges = {
        {90 * S, 100 * S}, {0, 50 * S}, {50 * S, 100 * S}, {25 * S, 75 * S}, {99 * S, 100 * S}, {999000, 100 * S},
        {0, 100 * S},      {10 * S, 10 * S + 1}, {333333, 666667}};
    for (int trial = 0; trial < 200; ++trial) {
        const std::size_t n = random() % 60;
        std::vector<std::uint32_t> rows(n);
        std::iota(rows.begin(), rows.end(), 0u);
        std::shuffle(rows.begin(), rows.end(), random);  // rows in any order
        std::vector<TimeNs> latencies(n);
        for (auto& l : latencies) l = static_cast<TimeNs>(random() % 8) * 1000;  // many ties
        for (auto [lo, hi] : ranges) {
            const PercentileRange range{lo, hi};
            EXPECT_EQ(latencySlice(rows, latencies, range), bruteForceSlice(rows, latencies, lo, hi))
                << "n " << n << " range " << range.text();
        }
        // Adjacent ranges share the requests out exactly.
        const auto a = latencySlice(rows, latencies, {0, 37 * S}), b = latencySlice(rows, latencies, {37 * S, 100 * S});
        EXPECT_EQ(a.size() + b.size(), n);
        std::vector<std::uint32_t> both(a);
        both.insert(both.end(), b.begin(), b.end());
        std::sort(both.begin(), both.end());
        EXPECT_TRUE(std::adjacent_find(both.begin(), both.end()) == both.end());
    }
}

TEST(LatencySlice, SlowestTenthIsTheSlowestTenthByHand) {
    // Ten requests, latencies 10..100 ms in rows 9..0: the slowest 10 % is row 0, the fastest half rows 5..9.
    std::vector<std::uint32_t> rows(10);
    std::iota(rows.begin(), rows.end(), 0u);
    std::vector<TimeNs> latencies;
    for (int r = 0; r < 10; ++r) latencies.push_back((10 - r) * 10000000);
    EXPECT_EQ(latencySlice(rows, latencies, parsePercentileRange("90..100").value()), (std::vector<std::uint32_t>{0}));
    EXPECT_EQ(latencySlice(rows, latencies, parsePercentileRange("0..50").value()), (std::vector<std::uint32_t>{5, 6, 7, 8, 9}));
    // Eleven requests: 90..100 holds rank 10 only (9.9 <= i < 11), the slowest one; 80..100 ranks 9 and 10 (8.8 <= i).
    rows.push_back(10);
    latencies.push_back(5000000);
    EXPECT_EQ(latencySlice(rows, latencies, parsePercentileRange("90..100").value()), (std::vector<std::uint32_t>{0}));
    EXPECT_EQ(latencySlice(rows, latencies, parsePercentileRange("80..100").value()), (std::vector<std::uint32_t>{0, 1}));
}

// On analysed page loads: the slice is cut by the latency the bottleneck split measures (the trend's per-request
// latency, computed apart), and its bottleneck summary is the summary of exactly those requests.
TEST(LatencySlice, SlowestTenthOfAnalysedRequestsByTheBottleneckLatency) {
    test::ScratchDir dir;
    auto store = test::generatedStore(dir, 300, 3);
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    auto analysis = loadAnalysis(*store);
    ASSERT_TRUE(analysis) << analysis.message();
    std::vector<std::uint32_t> rows(analysis->data.requestCount());
    std::iota(rows.begin(), rows.end(), 0u);
    auto trend = computeBottleneckTrend(analysis.value(), store.get(), rows);
    ASSERT_TRUE(trend) << trend.message();

    const LatencySliceResult slice = sliceByLatency(analysis.value(), rows, parsePercentileRange("90..100").value());
    EXPECT_EQ(slice.scopeRequests, 300);
    ASSERT_EQ(slice.rows.size(), 30u);
    // The 30 largest of the trend's latencies, and no request left out is slower than one kept.
    std::vector<TimeNs> sorted = trend->latencyNs;
    std::sort(sorted.rbegin(), sorted.rend());
    TimeNs expectedSum = 0;
    for (int i = 0; i < 30; ++i) expectedSum += sorted[static_cast<std::size_t>(i)];
    EXPECT_EQ(slice.maxLatencyNs, sorted.front());
    EXPECT_EQ(slice.minLatencyNs, sorted[29]);
    for (std::size_t i = 0; i < trend->rows.size(); ++i) {
        const bool kept = std::binary_search(slice.rows.begin(), slice.rows.end(), trend->rows[i]);
        if (!kept) {
            EXPECT_LE(trend->latencyNs[i], slice.minLatencyNs);
        }
    }
    auto summaries = computeBottlenecks(analysis.value(), store.get(), {slice.rows});
    ASSERT_TRUE(summaries) << summaries.message();
    EXPECT_EQ(summaries->front().requests, 30);
    EXPECT_EQ(summaries->front().latencyTotalNs, expectedSum);
}
