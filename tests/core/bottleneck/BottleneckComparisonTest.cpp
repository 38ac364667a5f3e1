// Bottleneck contributions before and after: the Welch test on a hand-computed case, each type's mean and variance
// against the per-request contributions summed by brute force, and on two generated periods (the problem's feed
// cache misses slower) the change found and the A/A of the baseline's halves quiet.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numeric>

#include "TestUtil.h"
#include "core/GeneratedPeriods.h"
#include "core/GeneratedStore.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/bottleneck/BottleneckComparison.h"
#include "tracelight/bottleneck/RequestBottlenecks.h"
#include "tracelight/studies/Aggregates.h"

using namespace tracelight;

namespace {
constexpr double kMs = 1e6;

BottleneckSummary summary(std::int64_t requests, std::vector<TypeContribution> types) {
    BottleneckSummary s;
    s.requests = requests;
    for (auto& t : types) s.meanLatencyNs += t.meanNs;
    s.types = std::move(types);
    return s;
}
} // namespace

// Type X: 10 ms (variance 4 ms²) over 100 requests, then 11 ms (variance 9 ms²) over 100: Welch's z =
// 1 ms / sqrt(4/100 + 9/100) ms = 2.7735, two-sided p = 0.0055457; Benjamini-Hochberg over the two types doubles
// the smaller p (0.0110913). Type Y did not change (p = 1); type Z is new (mean 0 before).
TEST(BottleneckComparison, WelchTestByHand) {
    const auto base = summary(100, {{"X", "", 0, 10 * kMs, 0.5, 4 * kMs * kMs}, {"Y", "", 0, 10 * kMs, 0.5, 1 * kMs * kMs}});
    const auto problem = summary(100, {{"X", "", 0, 11 * kMs, 0.5, 9 * kMs * kMs}, {"Y", "", 0, 10 * kMs, 0.4, 1 * kMs * kMs},
                                       {"Z", "", 0, 0.5 * kMs, 0.1, 0.25 * kMs * kMs}});
    const BottleneckChanges c = compareBottleneckSummaries(base, problem, 0.05);
    ASSERT_EQ(c.types.size(), 3u);
    std::map<std::string, TypeChange> byName;
    for (const auto& t : c.types) byName[t.name] = t;
    // Z: z = 0.5 / sqrt(0.25 / 100) = 10, p ~ 1.5e-23, tiny even adjusted (x 3).
    EXPECT_NEAR(byName["X"].pValue, 3.0 / 2.0 * 0.0055456673152440555, 1e-9);  // rank 2 of 3: p x 3 / 2
    EXPECT_TRUE(byName["X"].significant);
    EXPECT_DOUBLE_EQ(byName["X"].deltaNs(), 1 * kMs);
    EXPECT_LT(byName["Z"].pValue, 1e-20);
    EXPECT_DOUBLE_EQ(byName["Z"].baseMeanNs, 0);
    EXPECT_DOUBLE_EQ(byName["Y"].pValue, 1);
    EXPECT_FALSE(byName["Y"].significant);
    EXPECT_EQ(c.significantTypes, 2);
    EXPECT_TRUE(c.types[0].significant && c.types[1].significant && !c.types[2].significant);  // significant first
    EXPECT_EQ(c.types[0].name, "X");  // then by the size of the change

    // The two types alone: Benjamini-Hochberg doubles X's p.
    const BottleneckChanges two = compareBottleneckSummaries(
        base, summary(100, {{"X", "", 0, 11 * kMs, 0.5, 9 * kMs * kMs}, {"Y", "", 0, 10 * kMs, 0.5, 1 * kMs * kMs}}), 0.05);
    EXPECT_NEAR(two.types[0].pValue, 0.011091334630488111, 1e-9);
    // One request on a side: nothing can be significant.
    EXPECT_EQ(compareBottleneckSummaries(summary(1, base.types), problem, 0.05).significantTypes, 0);
}

// Each type's mean and variance of the per-request contribution, against the contributions one request at a time.
TEST(BottleneckComparison, MeansAndVariancesMatchThePerRequestContributions) {
    test::ScratchDir dir;
    auto store = test::generatedStore(dir, 200, 11);
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    auto analysis = loadAnalysis(*store);
    ASSERT_TRUE(analysis) << analysis.message();
    const InMemoryAnalysis& a = analysis.value();
    std::vector<std::uint32_t> even, odd;
    for (std::uint32_t r = 0; r < a.data.requestCount(); ++r) (r % 2 ? odd : even).push_back(r);

    BottleneckTypeTable types(a.data, BottleneckRules{}, CategoryRules::defaults());
    const auto hosts = hostsByName(a.data);
    RequestBottleneckPass pass(a, hosts, types);
    std::map<std::string, std::vector<double>> perRequest[2];  // [side][type]: one value per request of the side
    for (int side = 0; side < 2; ++side) {
        const auto& rows = side ? odd : even;
        std::vector<std::vector<TimeNs>> values;
        for (auto r : rows) values.push_back(pass.run(r, nullptr).byType);
        const auto table = types.types();
        for (std::size_t t = 0; t < table.size(); ++t)
            for (const auto& v : values) perRequest[side][table[t].name].push_back(t < v.size() ? double(v[t]) : 0.0);
    }
    auto comparison = compareBottlenecks(a, store.get(), even, odd);
    ASSERT_TRUE(comparison) << comparison.message();
    auto summaries = computeBottlenecks(a, store.get(), {even, odd});
    ASSERT_TRUE(summaries);
    for (int side = 0; side < 2; ++side) {
        for (const auto& t : summaries.value()[static_cast<std::size_t>(side)].types) {
            const auto& v = perRequest[side].at(t.name);
            const double mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
            double ss = 0;
            for (double x : v) ss += (x - mean) * (x - mean);
            EXPECT_NEAR(t.meanNs, mean, 1e-6 * std::max(1.0, mean)) << t.name;
            EXPECT_NEAR(t.varianceNs2, ss / double(v.size() - 1), 1e-6 * std::max(1.0, ss / double(v.size() - 1))) << t.name;
        }
    }
    // The comparison's means are the summaries', and its A/A the baseline's halves.
    for (const auto& c : comparison->changes.types) {
        const auto& before = perRequest[0].at(c.name);
        EXPECT_NEAR(c.baseMeanNs, std::accumulate(before.begin(), before.end(), 0.0) / double(before.size()), 1e-3) << c.name;
    }
    EXPECT_EQ(comparison->aa.baseRequests + comparison->aa.problemRequests, static_cast<std::int64_t>(even.size()));
    EXPECT_EQ(comparison->aa.baseRequests, static_cast<std::int64_t>(even.size() / 2));
}

// Two generated periods, the problem's feed cache-miss fill six times slower: the change is found, a type that
// grew is significant, and chance alone (the baseline's random halves) flags nothing.
TEST(BottleneckComparison, FindsTheSlowedPartAndTheAaStaysQuiet) {
    test::ScratchDir dir;
    const std::string db = dir.file("p.tldb");
    auto analysis = test::analysedPeriods(db, 400, 6.0);
    auto store = TraceStore::open(db, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store) << store.message();
    const auto& ids = analysis->data.requestIds;
    const auto base = periodRows(*store.value(), ids, "baseline"), problem = periodRows(*store.value(), ids, "problem");
    ASSERT_EQ(base.size(), 400u);
    auto comparison = compareBottlenecks(*analysis, store.value().get(), base, problem);
    ASSERT_TRUE(comparison) << comparison.message();
    const BottleneckChanges& c = comparison->changes;
    EXPECT_GT(c.problemMeanLatencyNs, c.baseMeanLatencyNs);
    ASSERT_GE(c.significantTypes, 1);
    EXPECT_GT(c.types.front().deltaNs(), 0) << c.types.front().name;
    // The changes add up to the change of the mean latency.
    double deltas = 0;
    for (const auto& t : c.types) deltas += t.deltaNs();
    EXPECT_NEAR(deltas, c.problemMeanLatencyNs - c.baseMeanLatencyNs, 1e-3);
    EXPECT_EQ(comparison->aa.significantTypes, 0);
    for (const auto& t : comparison->aa.types) EXPECT_GT(t.pValue, 0.05) << t.name;

    // The JSON: both sides, the test, every type with its change, the A/A.
    const std::string json = bottleneckComparisonJson(comparison.value(), {"baseline", nullptr}, {"problem", nullptr}, 0.05);
    EXPECT_NE(json.find(R"("test":"welch")"), std::string::npos);
    EXPECT_NE(json.find(R"("aa":{"period":"baseline","seed":1,"a_requests":200,"b_requests":200,"significant_types":0)"), std::string::npos) << json;
}
