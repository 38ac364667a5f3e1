// Aggregate studies against sums computed independently and against what the generator injected.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include <filesystem>
#include <regex>
#include <set>

#include "TestUtil.h"
#include "core/GeneratedTraces.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/import/Import.h"
#include "tracelight/import/spans/Spans.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"
#include "tracelight/analysis/Segments.h"
#include "tracelight/analysis/Slack.h"
#include "tracelight/store/Periods.h"

using namespace tracelight;
using samples::PageLoadGenerator;

namespace {

struct Fixture {
    test::GeneratedTraces traces;
    InMemoryAnalysis analysis;
    RequestAggregates aggregates;
};

Fixture make(std::int64_t requests, double slowFeedMiss = 1.0, std::uint64_t seed = 3) {
    samples::GeneratorOptions options;
    options.seed = seed;
    options.requests = requests;
    options.slowFeedMissFactor = slowFeedMiss;
    Fixture f;
    f.traces = test::generateTraces(PageLoadGenerator(options), requests);
    auto a = analyzeInMemory(f.traces.data, AnalysisOptions{});
    EXPECT_TRUE(a);
    f.analysis = std::move(a.value());
    auto aggregates = computeAggregates(f.analysis, CategoryRules::defaults());
    EXPECT_TRUE(aggregates) << aggregates.message();
    f.aggregates = std::move(aggregates.value());
    return f;
}

const Fixture& sample() {
    static const Fixture f = make(6000);
    return f;
}

} // namespace

TEST(Categories, HostRolesAndRules) {
    EXPECT_EQ(hostRole("client-49"), "client");
    EXPECT_EQ(hostRole("web-8"), "web");
    EXPECT_EQ(hostRole("frontend-579b9bff58-t2dbm"), "frontend");
    EXPECT_EQ(hostRole("servicea@127.0.0.1"), "servicea");
    // Kubernetes pods reduce to their deployment, whatever the generated suffixes hold (issue 11).
    EXPECT_EQ(hostRole("currencyservice-cf787dd48-vpjrd"), "currencyservice");
    EXPECT_EQ(hostRole("redis-cart-5d5f9c7d8b-2xk9p"), "redis-cart");
    EXPECT_EQ(hostRole("cartservice"), "cartservice");
    EXPECT_EQ(hostRole("redis-cart"), "redis-cart");
    EXPECT_EQ(serviceFromPodName("currencyservice-cf787dd48-vpjrd"), "currencyservice");
    auto rules = CategoryRules::fromJson(R"json([{"category":"net","field":"network"},{"category":"server","field":"host","pattern":"^(web|cache)"}])json");
    ASSERT_TRUE(rules) << rules.message();
    EXPECT_EQ(rules->categorize({"t", "a", "b", "web-1", false, "", false}), "server");
    EXPECT_EQ(rules->categorize({"t", "a", "b", "web-1", true, "", false}), "net");
    EXPECT_EQ(rules->categorize({"t", "a", "b", "client-3", false, "", false}), "client");
    EXPECT_FALSE(CategoryRules::fromJson(R"json([{"category":"x","field":"host","pattern":"(("}])json"));
    EXPECT_FALSE(CategoryRules::fromJson(R"([{"category":"x","field":"colour"}])"));
    auto again = CategoryRules::fromJson(rules->toJson());
    ASSERT_TRUE(again);
    EXPECT_EQ(again->toJson(), rules->toJson());
}

// Summed delay from the raw segments; critical time from the generator's own critical paths.
TEST(Aggregates, BreakdownEqualsIndependentSums) {
    const Fixture& f = sample();
    const RequestAggregates& a = f.aggregates;
    ASSERT_EQ(a.requests(), 6000u);
    std::map<std::string, TimeNs> summed, critical;
    TimeNs latency = 0;
    std::vector<SegmentInstance> segs;
    for (std::size_t r = 0; r < a.requests(); ++r) {
        const auto events = f.traces.data.eventsOf(r);
        buildSegments(events, f.analysis.offsets, segs);
        std::map<std::string, TimeNs> byType;
        std::size_t s = 0;
        for (std::size_t e = 1; e < events.size(); ++e) {
            if (!events[e].segmentType.isValid()) continue;
            const bool network = events[e - 1].host != events[e].host;
            const std::string host = f.traces.data.label(f.traces.data.hostLabels[events[e - 1].host.value].value);
            const std::string category = network ? "network" : hostRole(host);
            summed[category] += segs[s].durationNs();
            byType[f.traces.data.segmentName(segs[s].type)] = segs[s].durationNs();
            ++s;
        }
        const auto& truth = f.traces.truth[r];
        for (int v : truth.criticalPath) {
            const std::string name = PageLoadGenerator::segmentLabel(truth.segments[static_cast<std::size_t>(v)]);
            critical[name] += byType.at(name);  // the true path, timed on the corrected clocks
        }
        latency += truth.latencyNs;
        // Per request, exactly: the critical times of the categories and the blind time add up to the latency.
        TimeNs criticalSum = a.blindNs[r];
        for (std::size_t c = 0; c < a.width(); ++c) criticalSum += a.critical(r, c);
        ASSERT_EQ(criticalSum, a.latencyNs[r]) << "request " << r;
        ASSERT_EQ(a.latencyNs[r], truth.latencyNs) << "request " << r;
    }
    const Breakdown b = breakdown(a);
    EXPECT_DOUBLE_EQ(b.meanLatencyNs, double(latency) / 6000.0);
    double criticalTotal = 0;
    for (const auto& c : b.categories) {
        if (c.name == "blind") continue;
        EXPECT_DOUBLE_EQ(c.summedNs, double(summed[c.name]) / 6000.0) << c.name;
        criticalTotal += c.criticalNs;
    }
    // Critical time per category, from the truth's paths, grouped with the same categories.
    std::map<std::string, TimeNs> criticalByCategory;
    for (const auto& [name, us] : critical) {
        const int type = [&] {
            for (std::size_t t = 0; t < f.analysis.data.segmentTypes.size(); ++t)
                if (f.analysis.data.segmentName(SegmentTypeId(static_cast<std::uint32_t>(t))) == name) return static_cast<int>(t);
            return -1;
        }();
        ASSERT_GE(type, 0);
        criticalByCategory[a.categories[static_cast<std::size_t>(a.typeCategory[static_cast<std::size_t>(type)])]] += us;
    }
    for (const auto& c : b.categories) {
        if (c.name != "blind") {
            EXPECT_DOUBLE_EQ(c.criticalNs, double(criticalByCategory[c.name]) / 6000.0) << c.name;
        }
    }
    // Critical times (with blind) add up to the mean latency.
    EXPECT_NEAR(criticalTotal + b.categories.back().criticalNs, b.meanLatencyNs, 1e-9 * b.meanLatencyNs);
    // The what-if targets: every type on a true critical path, the most critical time first.
    std::set<std::string> onPaths, listed;
    for (const auto& [name, ns] : critical)
        if (ns > 0) onPaths.insert(name);
    for (std::size_t k = 0; k < a.typesByCriticalTime.size(); ++k) {
        const std::string name = f.analysis.data.segmentName(SegmentTypeId(a.typesByCriticalTime[k]));
        listed.insert(name);
        if (k > 0) {
            EXPECT_GE(critical[f.analysis.data.segmentName(SegmentTypeId(a.typesByCriticalTime[k - 1]))], critical[name]) << k;
        }
    }
    EXPECT_EQ(listed, onPaths);
    EXPECT_EQ(listed.size(), a.typesByCriticalTime.size()) << "each type once";
}

TEST(Aggregates, StrataCoverEveryRequestAndShowTheSlowNetwork) {
    const Fixture& f = sample();
    std::vector<std::string> connection(f.aggregates.requests());
    for (std::size_t r = 0; r < connection.size(); ++r)
        for (const auto& [k, v] : f.traces.truth[r].attributes)
            if (k == "connection") connection[r] = v;
    const auto strata = stratify(f.aggregates, connection);
    std::size_t total = 0;
    std::map<std::string, double> networkShare;
    for (const auto& s : strata) {
        total += s.rows.size();
        for (const auto& c : s.breakdown.categories)
            if (c.name == "network") networkShare[s.value] = c.criticalShare;
    }
    EXPECT_EQ(total, f.aggregates.requests());
    EXPECT_GT(networkShare["3g"], networkShare["fiber"] + 0.2) << "3G pages wait on the network";
    // Numeric attributes fall into equal-population quartiles.
    std::vector<std::string> bytes(f.aggregates.requests());
    for (std::size_t r = 0; r < bytes.size(); ++r)
        for (const auto& [k, v] : f.traces.truth[r].attributes)
            if (k == "bytes") bytes[r] = v;
    const auto quartiles = stratify(f.aggregates, bytes, 4);
    ASSERT_EQ(quartiles.size(), 4u);
    for (const auto& q : quartiles) EXPECT_NEAR(double(q.rows.size()), 1500.0, 5.0) << q.value;
}

// Blind time is on the critical path by definition, and every critical segment is one of the summed ones:
// summed >= critical holds for every category, blind included, overall and in every stratum.
TEST(Aggregates, SummedDelayIsAtLeastCriticalTimeInEveryCategory) {
    const Fixture& f = sample();
    std::vector<std::string> browser(f.aggregates.requests());
    for (std::size_t r = 0; r < browser.size(); ++r)
        for (const auto& [k, v] : f.traces.truth[r].attributes)
            if (k == "browser") browser[r] = v;
    std::vector<Breakdown> all{breakdown(f.aggregates)};
    for (const auto& s : stratify(f.aggregates, browser)) all.push_back(s.breakdown);
    for (const auto& b : all) {
        ASSERT_EQ(b.categories.back().name, "blind");
        EXPECT_GT(b.categories.back().criticalNs, 0) << "the generator leaves blind waits";
        for (const auto& c : b.categories) EXPECT_GE(c.summedNs, c.criticalNs) << c.name;
    }
}

// Stratifying a subset (a period) cuts a numeric attribute into quartiles of that subset's values; rows
// outside it are in no stratum.
TEST(Aggregates, NumericStrataOfASubsetAreItsQuartiles) {
    const Fixture& f = sample();
    std::vector<std::string> bytes(f.aggregates.requests());
    for (std::size_t r = 0; r < bytes.size(); ++r)
        for (const auto& [k, v] : f.traces.truth[r].attributes)
            if (k == "bytes") bytes[r] = v;
    std::vector<std::uint32_t> rows;
    for (std::uint32_t r = 0; r < 2000; ++r) rows.push_back(r * 3);  // every third request
    const auto strata = stratify(f.aggregates, bytes, 4, rows);
    ASSERT_EQ(strata.size(), 4u);
    std::size_t total = 0;
    for (const auto& s : strata) {
        EXPECT_NEAR(double(s.rows.size()), 500.0, 5.0) << s.value;
        EXPECT_EQ(s.breakdown.requests, static_cast<std::int64_t>(s.rows.size()));
        for (auto r : s.rows) EXPECT_EQ(r % 3, 0u) << "row " << r << " is outside the subset";
        total += s.rows.size();
    }
    EXPECT_EQ(total, rows.size());
}

TEST(Aggregates, OutlierRankingPutsTheInjectedSlowSegmentFirst) {
    // Feed cache-miss fills 40 times slower (about 1.4 s): slower than any 3G transfer, so the slowest
    // 5 % are mostly pages that hit it.
    const Fixture f = make(6000, 40.0, 5);
    const Outliers o = outliers(f.aggregates, 0.05);
    ASSERT_FALSE(o.segments.empty());
    EXPECT_EQ(f.analysis.data.segmentName(SegmentTypeId(o.segments.front().type)), "fetch-feed:CACHE_MISS->CACHE_REPLY");
    EXPECT_GT(o.segments.front().ratio, 2.0);
    EXPECT_NEAR(double(o.outlierRequests), 300.0, 2.0);

    // The outliers' own rows (the Profile tab's and `profile --outliers`' selection): the same split.
    const auto rows = outlierRows(f.aggregates, 0.05);
    EXPECT_EQ(static_cast<std::int64_t>(rows.size()), o.outlierRequests);
    EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
    std::vector<bool> isOutlier(f.aggregates.requests(), false);
    for (auto r : rows) isOutlier[r] = true;
    for (std::size_t r = 0; r < isOutlier.size(); ++r) EXPECT_EQ(isOutlier[r], f.aggregates.latencyNs[r] > o.thresholdNs) << r;
}

TEST(Aggregates, RowsOfRequestsFollowTheAnalysisOrder) {
    const std::vector<RequestId> ids{RequestId(7), RequestId(3), RequestId(9), RequestId(4)};
    EXPECT_EQ(rowsOfRequests(ids, {RequestId(4), RequestId(7), RequestId(100)}), (std::vector<std::uint32_t>{0, 3}));
    EXPECT_TRUE(rowsOfRequests(ids, {}).empty());
}

// Equal-population buckets over the slack order, each with its correlation and slope. (On this sample
// the web category does not show the paper's falling correlation; see the README.)
TEST(Aggregates, SlackBucketsSplitTheSlackOrderEvenly) {
    const Fixture& f = sample();
    const int network = f.aggregates.categoryIndex("network");
    ASSERT_GE(network, 0);
    const auto buckets = slackBuckets(f.aggregates, static_cast<std::size_t>(network), 5);
    ASSERT_EQ(buckets.size(), 5u);
    std::int64_t total = 0;
    for (std::size_t b = 0; b < buckets.size(); ++b) {
        total += buckets[b].requests;
        EXPECT_NEAR(double(buckets[b].requests), 1200.0, 1.0);
        EXPECT_LE(buckets[b].slackFromNs, buckets[b].slackToNs);
        if (b > 0) {
            EXPECT_LE(buckets[b - 1].slackToNs, buckets[b].slackFromNs);
        }
        EXPECT_GE(buckets[b].correlation, -1.0);
        EXPECT_LE(buckets[b].correlation, 1.0);
    }
    EXPECT_EQ(total, 6000);
    // The network is the latency here: its span tracks the latency almost one for one in every bucket.
    for (const auto& b : buckets) EXPECT_GT(b.correlation, 0.8);
}

// The paper's validation: where the server has no slack its time moves the latency; where it has
// slack, much less. Within one connection type (the network otherwise dominates every bucket).
TEST(Aggregates, SlackBucketCorrelationFallsFromLowToHighSlack) {
    const Fixture& f = sample();
    const int web = f.aggregates.categoryIndex("web");
    ASSERT_GE(web, 0);
    for (const char* connection : {"cable", "fiber"}) {
        std::vector<std::uint32_t> rows;
        for (std::size_t r = 0; r < f.aggregates.requests(); ++r)
            for (const auto& [k, v] : f.traces.truth[r].attributes)
                if (k == "connection" && v == connection) rows.push_back(static_cast<std::uint32_t>(r));
        const auto buckets = slackBuckets(f.aggregates, static_cast<std::size_t>(web), 5, rows);
        ASSERT_EQ(buckets.size(), 5u);
        for (const auto& b : buckets)
            std::printf("  %s, web slack %8.0f..%8.0f us: correlation %.3f\n", connection, nsToUs(b.slackFromNs), nsToUs(b.slackToNs), b.correlation);
        EXPECT_GT(buckets.front().correlation, 0.7) << connection;
        EXPECT_GT(buckets.front().correlation, buckets.back().correlation + 0.2) << connection;
    }
}

TEST(Aggregates, SlackPredictionCountsEveryRepeatVisit) {
    const Fixture& f = sample();
    std::vector<std::string> users(f.aggregates.requests());
    std::map<std::string, int> visits;
    for (std::size_t r = 0; r < users.size(); ++r)
        for (const auto& [k, v] : f.traces.truth[r].attributes)
            if (k == "user") ++visits[users[r] = v];
    std::int64_t repeats = 0;
    for (const auto& [u, n] : visits) repeats += n - 1;
    const int web = f.aggregates.categoryIndex("web");
    const auto p = predictSlack(f.aggregates, static_cast<std::size_t>(web), 50000000, users);  // 50 ms
    EXPECT_EQ(p.pairs, repeats);
    EXPECT_EQ(p.truePositive + p.falsePositive + p.trueNegative + p.falseNegative, p.pairs);
    EXPECT_GE(p.typeOneRate(), 0.0);
    EXPECT_LE(p.typeTwoRate(), 1.0);
}

TEST(Aggregates, WhatIfWithinSlackChangesNothing) {
    const Fixture& f = sample();
    // Delay every js-chat run by x: requests where it has more slack than x keep their latency.
    int type = -1;
    for (std::size_t t = 0; t < f.analysis.data.segmentTypes.size(); ++t)
        if (f.analysis.data.segmentName(SegmentTypeId(static_cast<std::uint32_t>(t))) == "js-chat:JS_BEGIN->JS_END") type = static_cast<int>(t);
    ASSERT_GE(type, 0);
    const TimeNs x = 5000000;  // 5 ms
    const auto afterResult = whatIf(f.analysis, f.aggregates, {type, -1}, 1.0, x);
    ASSERT_TRUE(afterResult) << afterResult.message();
    const auto& after = afterResult.value();
    RequestDagBuilder builder(f.analysis.model, f.analysis.data);
    RequestDag dag;
    int unchanged = 0, grown = 0;
    for (std::size_t r = 0; r < f.aggregates.requests(); ++r) {
        builder.build(f.analysis.data.eventsOf(r), f.analysis.offsets, dag, f.analysis.data.linksOf(r));
        const auto slack = computeSlack(dag);
        for (std::size_t s = 0; s < dag.segments.size(); ++s) {
            if (static_cast<int>(dag.segments[s].type.value) != type) continue;
            if (slack[s] > x) {
                EXPECT_EQ(after[r], f.aggregates.latencyNs[r]) << "request " << r;
                ++unchanged;
            } else {
                EXPECT_GE(after[r], f.aggregates.latencyNs[r]);
                ++grown;
            }
        }
    }
    EXPECT_GT(unchanged, 100);
    EXPECT_GT(grown, 10);
    // Halving a category can only help.
    const auto faster = whatIf(f.analysis, f.aggregates, {-1, f.aggregates.categoryIndex("network")}, 0.5);
    ASSERT_TRUE(faster);
    EXPECT_LT(quantile(faster.value(), 0.5), quantile(f.aggregates.latencyNs, 0.5));
}

TEST(Aggregates, CancelledRunsSayCancelledInsteadOfReturningPartialData) {
    // Issue 10: a cancelled aggregation or what-if returned rows it never filled, as if complete.
    const Fixture& f = sample();
    CancelToken cancel;
    cancel.cancel();
    const auto aggregates = computeAggregates(f.analysis, CategoryRules::defaults(), 2, nullptr, &cancel);
    ASSERT_FALSE(aggregates);
    EXPECT_EQ(aggregates.message(), "cancelled");
    const auto after = whatIf(f.analysis, f.aggregates, {-1, f.aggregates.categoryIndex("network")}, 0.5, 0, 2, &cancel);
    ASSERT_FALSE(after);
    EXPECT_EQ(after.message(), "cancelled");
    // Not cancelled: complete results, as before.
    CancelToken untouched;
    const auto whole = computeAggregates(f.analysis, CategoryRules::defaults(), 2, nullptr, &untouched);
    ASSERT_TRUE(whole) << whole.message();
    EXPECT_EQ(whole->latencyNs, f.aggregates.latencyNs);
}

TEST(Aggregates, ViewStudiesAreTheStudiesTheyCombine) {
    // What the aggregates view draws, computed in core (off the GUI thread) from the same functions.
    const Fixture& f = sample();
    const auto& a = f.aggregates;
    const BreakdownStudy all = breakdownStudy(a, nullptr);
    ASSERT_EQ(all.groups.size(), 1u);
    EXPECT_EQ(all.groups[0].second.meanLatencyNs, breakdown(a).meanLatencyNs);
    EXPECT_FALSE(all.shareCdfs.empty());
    EXPECT_LE(all.shareCdfs.size(), 4u);
    EXPECT_EQ(all.shareCdfs[0].second, criticalShareCdf(a, static_cast<std::size_t>(a.categoryIndex(all.shareCdfs[0].first))));
    std::vector<std::string> parity(a.requests());
    for (std::size_t r = 0; r < parity.size(); ++r) parity[r] = r % 3 == 0 ? "three" : "other";
    EXPECT_EQ(breakdownStudy(a, &parity).groups.size(), 2u);

    const auto web = static_cast<std::size_t>(a.categoryIndex("web") >= 0 ? a.categoryIndex("web") : 0);
    const SlackStudy median = slackStudy(a, web, -1, {}, &parity);
    ASSERT_FALSE(median.slackNs.empty());
    EXPECT_TRUE(std::is_sorted(median.slackNs.begin(), median.slackNs.end()));
    EXPECT_EQ(median.cutoffNs, quantile(median.slackNs, 0.5));
    EXPECT_EQ(median.buckets.size(), slackBuckets(a, web, 5).size());
    EXPECT_TRUE(median.predicted);
    EXPECT_EQ(median.prediction.pairs, predictSlack(a, web, median.cutoffNs, parity).pairs);
    const auto rows = rowsWithValue(parity, "three");
    EXPECT_EQ(rows.size(), (a.requests() + 2) / 3);
    const SlackStudy within = slackStudy(a, web, 1000000, rows, nullptr);
    EXPECT_EQ(within.cutoffNs, 1000000);
    EXPECT_FALSE(within.predicted);
    EXPECT_EQ(within.buckets.front().requests, slackBuckets(a, web, 5, rows).front().requests);
    // Of the selection only: its slacks, its median, and the prediction among its requests (they were the whole
    // database's, so a period's study counted requests outside it).
    std::vector<TimeNs> selected;
    for (auto r : rows)
        if (a.hasSlack(r, web)) selected.push_back(a.slack(r, web));
    std::sort(selected.begin(), selected.end());
    const SlackStudy ofThree = slackStudy(a, web, -1, rows, &parity);
    EXPECT_EQ(ofThree.slackNs, selected);
    EXPECT_EQ(ofThree.cutoffNs, quantile(selected, 0.5));
    std::vector<std::string> onlyThree(parity.size());
    for (auto r : rows) onlyThree[r] = parity[r];
    EXPECT_EQ(ofThree.prediction.pairs, predictSlack(a, web, ofThree.cutoffNs, onlyThree).pairs);
    EXPECT_EQ(valuesByFrequency(parity, 10), (std::vector<std::string>{"other", "three"}));
    EXPECT_EQ(valuesByFrequency({"b", "a", "", "b", "a", "c"}, 2), (std::vector<std::string>{"a", "b"}));
}

// --- Span data (issue 11): categories from the service, rows by operation.

namespace {

const std::string kRealData = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/";

struct SpanStudy {
    test::ScratchDir dir;
    std::unique_ptr<TraceStore> store;
    InMemoryAnalysis analysis;
    RequestAggregates aggregates;

    explicit SpanStudy(const std::vector<std::string>& inputs) {
        store = std::move(TraceStore::open(dir.file("s.tldb"), TraceStore::Mode::Create).value());
        ImportOptions options;
        options.inputs = inputs;
        auto imported = importTraces(*store, options);
        EXPECT_TRUE(imported) << imported.message();
        auto analysed = analyzeStore(*store, AnalysisOptions{});
        EXPECT_TRUE(analysed) << analysed.message();
        auto loaded = loadAnalysis(*store);
        EXPECT_TRUE(loaded) << loaded.message();
        analysis = std::move(loaded.value());
        auto a = computeAggregates(analysis, CategoryRules::defaults());
        EXPECT_TRUE(a) << a.message();
        aggregates = std::move(a.value());
    }
};

// Occurrence numbers ("Convert#2", "call svc:op#12") name a call, not an operation.
bool namesAnOccurrence(const std::string& name) { return std::regex_search(name, std::regex("#[0-9]+")); }

} // namespace

TEST(SpanCategories, OnlineBoutiqueMinuteHasOneCategoryPerService) {
    if (!std::filesystem::is_directory(kRealData)) GTEST_SKIP() << "no " << kRealData;
    SpanStudy s({kRealData + "nezha-onlineboutique/normal/2022-08-23_17_00_trace.csv"});
    const std::set<std::string> services = {"frontend", "adservice", "cartservice", "checkoutservice", "currencyservice",
                                            "emailservice", "paymentservice", "productcatalogservice", "recommendationservice",
                                            "shippingservice", "redis-cart"};
    const std::string arrow = " \xE2\x86\x92 ";
    std::set<std::string> own, seen;
    for (const auto& c : s.aggregates.categories) {
        EXPECT_TRUE(seen.insert(c).second) << c << " twice";
        if (c == "unused") continue;
        const auto at = c.find(arrow);
        if (at == std::string::npos) {
            EXPECT_TRUE(services.count(c)) << "category '" << c << "' is not a service";
            own.insert(c);
        } else {
            EXPECT_TRUE(services.count(c.substr(0, at))) << c;
            EXPECT_TRUE(services.count(c.substr(at + arrow.size()))) << c;
        }
        EXPECT_FALSE(std::regex_search(c, std::regex("-[a-z0-9]{5}$"))) << "pod name in category " << c;
    }
    EXPECT_GE(own.size(), 8u);
    // Every network category joins a caller to the service it calls, once per pair.
    EXPECT_TRUE(seen.count("frontend" + arrow + "currencyservice"));
    EXPECT_FALSE(seen.count("currencyservice" + arrow + "frontend"));
}

TEST(SpanCategories, OutliersAndSegmentTypesAreOperationsNotOccurrences) {
    if (!std::filesystem::is_directory(kRealData)) GTEST_SKIP() << "no " << kRealData;
    const std::string jaeger = kRealData + "jaeger/";
    SpanStudy s({jaeger + "TraceFlamegraph__testTrace.json", jaeger + "TraceTimelineViewer__genaiTestTrace.json",
                 jaeger + "TraceStatistics__traceWithOverlappingChildren.json"});
    const TraceData& td = s.analysis.data;
    for (std::uint32_t t = 0; t < td.segmentTypes.size(); ++t)
        EXPECT_FALSE(namesAnOccurrence(td.segmentName(SegmentTypeId(t)))) << td.segmentName(SegmentTypeId(t));
    EXPECT_LT(td.segmentTypes.size(), 196u);  // 196 when every occurrence was its own type
    const Outliers o = outliers(s.aggregates, 0.34, 1);
    EXPECT_FALSE(o.segments.empty());
    for (const auto& seg : o.segments)
        EXPECT_FALSE(namesAnOccurrence(td.segmentName(SegmentTypeId(seg.type)))) << td.segmentName(SegmentTypeId(seg.type));
}

// What-if on span data re-schedules each request through its span graph, checked by hand: shop's root
// (0-100 us) calls cart (10-60) and ads (20-40) and waits for both. Halving ads (off the path, under cart)
// changes nothing; halving cart (on it) ends it at 35, so the root then waits for ads until 40 and ends at
// 80; doubling the root's own work (10 before its first call, 10 between its calls, 40 after both returned)
// starts cart at 20, so it returns at 70 and the root ends at 150.
// The request of the span what-if tests: shop (0-100 us) calling cart (10-60) and ads (20-40), as Jaeger JSON.
std::string shopCartAdsTrace() {
    auto span = [](const char* id, const char* parent, const char* process, long startUs, long durationUs) {
        const std::string refs = parent ? std::string(R"([{"refType":"CHILD_OF","traceID":"t1","spanID":")") + parent + R"("}])" : "[]";
        return std::string(R"({"traceID":"t1","spanID":")") + id + R"(","operationName":"op-)" + id + R"(","references":)" + refs +
               R"(,"startTime":)" + std::to_string(1700000000000000L + startUs) + R"(,"duration":)" + std::to_string(durationUs) +
               R"(,"processID":")" + process + R"(","tags":[],"logs":[]})";
    };
    return std::string(R"({"data":[{"traceID":"t1","spans":[)") + span("a", nullptr, "ps", 0, 100) + "," + span("b", "a", "pc", 10, 50) +
           "," + span("c", "a", "pd", 20, 20) +
           R"(],"processes":{"ps":{"serviceName":"shop","tags":[]},"pc":{"serviceName":"cart","tags":[]},)"
           R"("pd":{"serviceName":"ads","tags":[]}}}]})";
}

TEST(SpanWhatIf, ReschedulesThroughTheSpanGraph) {
    test::ScratchDir dir;
    const std::string json = shopCartAdsTrace();
    SpanStudy s({dir.write("whatif.json", json)});
    ASSERT_EQ(s.analysis.data.requestCount(), 1u);
    auto latency = [&](const char* category, double factor) -> TimeNs {
        const int c = s.aggregates.categoryIndex(category);
        EXPECT_GE(c, 0) << category;
        auto out = whatIf(s.analysis, s.aggregates, {-1, c}, factor);
        EXPECT_TRUE(out) << out.message();
        return out ? out->at(0) : -1;
    };
    EXPECT_EQ(latency("ads", 1.0), 100'000);
    EXPECT_EQ(latency("ads", 0.5), 100'000);
    EXPECT_EQ(latency("cart", 0.5), 80'000);
    EXPECT_EQ(latency("cart", 2.0), 150'000);  // cart 10-110, then the root's own 40
    EXPECT_EQ(latency("shop", 2.0), 150'000);
}

// The keys the command line takes name what the app's What-if offers, and several changed at once re-schedule
// together: halving cart and ads ends both calls at 35, and the root (its own 40 after them) at 75.
TEST(SpanWhatIf, KeysNameTheAppsTargetsAndCombine) {
    test::ScratchDir dir;
    SpanStudy s({dir.write("whatif.json", shopCartAdsTrace())});
    ASSERT_EQ(s.analysis.data.requestCount(), 1u);
    const RequestAggregates& a = s.aggregates;
    auto typesOf = [&](std::string_view key) {
        auto types = whatIfKeyTypes(s.analysis, a, key);
        EXPECT_TRUE(types) << key << ": " << types.message();
        return types ? types.value() : std::vector<std::uint32_t>{};
    };
    const int cart = a.categoryIndex("cart");
    ASSERT_GE(cart, 0);
    std::vector<std::uint32_t> cartTypes;
    for (std::uint32_t t = 0; t < a.typeCategory.size(); ++t)
        if (a.typeCategory[t] == cart) cartTypes.push_back(t);
    EXPECT_EQ(typesOf("cart"), cartTypes);
    EXPECT_EQ(typesOf("category cart"), cartTypes);  // as the app lists it
    const std::string oneType = s.analysis.data.segmentName(SegmentTypeId(cartTypes.front()));
    EXPECT_EQ(typesOf(oneType), std::vector<std::uint32_t>{cartTypes.front()});
    const auto unknown = whatIfKeyTypes(s.analysis, a, "nope");
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.message().find("(categories: shop"), std::string::npos) << unknown.message();

    auto latency = [&](const std::vector<std::pair<std::string, double>>& scales) -> TimeNs {
        std::vector<double> factors(s.analysis.data.segmentTypes.size(), 1.0);
        for (const auto& [key, factor] : scales)
            for (const std::uint32_t t : typesOf(key)) factors[t] *= factor;
        auto out = whatIf(s.analysis, a, factors);
        EXPECT_TRUE(out) << out.message();
        return out ? out->at(0) : -1;
    };
    EXPECT_EQ(latency({{"cart", 0.5}}), 80'000);
    EXPECT_EQ(latency({{"ads", 0.5}}), 100'000);
    EXPECT_EQ(latency({{"cart", 0.5}, {"ads", 0.5}}), 75'000);
    EXPECT_EQ(latency({{"shop", 2.0}}), 150'000);
    // An operation (a span's service:operation): the root's own work, and cart's call.
    EXPECT_EQ(latency({{"shop:op-a", 2.0}}), 150'000);
    EXPECT_EQ(latency({{"cart:op-b", 0.5}}), 80'000);
}

// On real spans with a network delay injected into currencyservice (Online Boutique, 05:27-05:28 beside the
// normal minute), halving the calls' trip frontend → currencyservice lowers p95 by more than a quarter;
// halving adservice, which runs beside other calls, moves p95 by under 1 %.
TEST(SpanWhatIf, HalvingTheDelayedHopLowersTheTail) {
    const std::string ob = kRealData + "nezha-onlineboutique/";
    if (!std::filesystem::is_directory(ob)) GTEST_SKIP() << "no " << ob;
    SpanStudy s({ob + "normal/2022-08-23_17_00_trace.csv", ob + "fault/05_27_trace.csv", ob + "fault/05_28_trace.csv"});
    auto p95 = [&](const char* category, double factor) {
        auto out = whatIf(s.analysis, s.aggregates, {-1, s.aggregates.categoryIndex(category)}, factor);
        EXPECT_TRUE(out) << out.message();
        std::vector<TimeNs> v = out ? out.value() : std::vector<TimeNs>{0};
        std::sort(v.begin(), v.end());
        return double(v[(v.size() - 1) * 95 / 100]);
    };
    const double before = p95("frontend → currencyservice", 1.0);
    EXPECT_LT(p95("frontend → currencyservice", 0.5), 0.75 * before);
    EXPECT_NEAR(p95("adservice", 0.5), before, 0.01 * before);
    // The command line's key for the hop, typed with "->", re-schedules every request as the app's target does.
    const auto types = whatIfKeyTypes(s.analysis, s.aggregates, "frontend -> currencyservice");
    ASSERT_TRUE(types) << types.message();
    std::vector<double> factors(s.analysis.data.segmentTypes.size(), 1.0);
    for (const std::uint32_t t : types.value()) factors[t] = 0.5;
    const auto byKey = whatIf(s.analysis, s.aggregates, factors);
    const auto byCategory = whatIf(s.analysis, s.aggregates, {-1, s.aggregates.categoryIndex("frontend → currencyservice")}, 0.5);
    ASSERT_TRUE(byKey && byCategory);
    EXPECT_EQ(byKey.value(), byCategory.value());
}

// The scope of an analysis view: the aggregates of some rows are the studies of those rows, and what-if
// re-schedules just them, as it did them among all the requests.
TEST(Aggregates, RestrictedAggregatesAreTheStudiesOfTheirRows) {
    const Fixture& f = sample();
    std::vector<std::uint32_t> rows;
    for (std::uint32_t r = 1; r < f.aggregates.requests(); r += 3) rows.push_back(r);
    const RequestAggregates part = restrictAggregates(f.aggregates, rows);
    ASSERT_EQ(part.requests(), rows.size());
    const Breakdown direct = breakdown(f.aggregates, rows), restricted = breakdown(part);
    EXPECT_EQ(restricted.requests, direct.requests);
    EXPECT_DOUBLE_EQ(restricted.meanLatencyNs, direct.meanLatencyNs);
    ASSERT_EQ(restricted.categories.size(), direct.categories.size());
    for (std::size_t c = 0; c < direct.categories.size(); ++c) {
        EXPECT_NEAR(restricted.categories[c].criticalNs, direct.categories[c].criticalNs, 1e-6 * (1 + direct.categories[c].criticalNs));
        EXPECT_NEAR(restricted.categories[c].summedNs, direct.categories[c].summedNs, 1e-6 * (1 + direct.categories[c].summedNs));
    }
    for (std::size_t i = 0; i < rows.size(); i += 97) {
        EXPECT_EQ(part.ids[i], f.aggregates.ids[rows[i]]);
        EXPECT_EQ(part.pathBegin[i + 1] - part.pathBegin[i], f.aggregates.pathBegin[rows[i] + 1] - f.aggregates.pathBegin[rows[i]]);
    }
    const WhatIfTarget network{-1, f.aggregates.categoryIndex("network")};
    const auto all = whatIf(f.analysis, f.aggregates, network, 0.5);
    const auto some = whatIf(f.analysis, part, network, 0.5);
    ASSERT_TRUE(all && some);
    ASSERT_EQ(some->size(), rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) ASSERT_EQ(some->at(i), all->at(rows[i])) << "row " << rows[i];
    // A restriction of a restriction still knows each row's request.
    const RequestAggregates twice = restrictAggregates(part, {0, 5});
    ASSERT_EQ(twice.analysisRows.size(), 2u);
    EXPECT_EQ(twice.analysisRows[1], rows[5]);
    const auto two = whatIf(f.analysis, twice, network, 0.5);
    ASSERT_TRUE(two);
    EXPECT_EQ(two->at(1), all->at(rows[5]));
}

// The period is a dimension to stratify and slice by, like any request attribute: "period" gives each
// request's periods, and a request in two gets both names.
TEST(SpanCategories, PeriodIsAStratifyingKey) {
    const std::string ob = kRealData + "nezha-onlineboutique/";
    if (!std::filesystem::is_directory(ob)) GTEST_SKIP() << "no " << ob;
    test::ScratchDir dir;
    auto store = std::move(TraceStore::open(dir.file("p.tldb"), TraceStore::Mode::Create).value());
    for (const auto& [period, file] : {std::pair<std::string, std::string>{"normal", ob + "normal/2022-08-23_17_00_trace.csv"},
                                       {"fault", ob + "fault/05_27_trace.csv"}}) {
        ImportOptions options;
        options.inputs = {file};
        options.period = period;
        auto imported = importTraces(*store, options);
        ASSERT_TRUE(imported) << imported.message();
    }
    const auto normal = requestsInPeriod(*store, "normal"), fault = requestsInPeriod(*store, "fault");
    ASSERT_FALSE(normal.empty());
    ASSERT_FALSE(fault.empty());
    std::vector<RequestId> ids = normal;
    ids.insert(ids.end(), fault.begin(), fault.end());
    auto values = attributeValues(*store, ids, kPeriodKey);
    for (std::size_t r = 0; r < ids.size(); ++r) EXPECT_EQ(values[r], r < normal.size() ? "normal" : "fault") << r;
    auto everything = addPeriodByTime(*store, "everything", 0, std::numeric_limits<std::int64_t>::max());
    ASSERT_TRUE(everything) << everything.message();
    values = attributeValues(*store, ids, kPeriodKey);
    for (std::size_t r = 0; r < ids.size(); ++r) EXPECT_EQ(values[r], r < normal.size() ? "normal, everything" : "fault, everything") << r;
    const auto groups = groupByAttribute(values, values.size());
    std::size_t inNormal = 0;
    for (const auto& g : groups)
        if (g.value.rfind("normal", 0) == 0) inNormal += g.rows.size();
    EXPECT_EQ(inNormal, normal.size());
}

// One request's segments by category (critical-path --json) are the breakdown's: on the Online Boutique minute,
// each request's critical path summed per category is the breakdown's critical time of that category.
TEST(SpanCategories, RequestSegmentCategoriesAreTheBreakdowns) {
    if (!std::filesystem::is_directory(kRealData)) GTEST_SKIP() << "no " << kRealData;
    SpanStudy s({kRealData + "nezha-onlineboutique/normal/2022-08-23_17_00_trace.csv"});
    const RequestAggregates& a = s.aggregates;
    for (std::size_t row = 0; row < a.requests(); row += a.requests() / 6) {
        const std::string name = requestName(*s.store, a.ids[row]).value_or("");
        auto request = loadRequestAnalysis(*s.store, name);
        ASSERT_TRUE(request) << request.message();
        auto categories = requestSegmentCategories(*s.store, name, CategoryRules::defaults());
        ASSERT_TRUE(categories) << categories.message();
        ASSERT_EQ(categories->size(), request->segments.size()) << name;
        std::map<std::string, TimeNs> byCategory;
        forEachPathEntry(request->criticalPath.size(), request->clips, [&](std::size_t k, const PathClip* clip) {
            const RequestSegment& seg = request->segments[request->criticalPath[k]];
            byCategory[categories.value()[request->criticalPath[k]]] += clip ? clip->endNs - clip->startNs : seg.durationNs;
        });
        for (std::size_t c = 0; c < a.width(); ++c) {
            const auto it = byCategory.find(a.categories[c]);
            EXPECT_EQ(it == byCategory.end() ? 0 : it->second, a.critical(row, c)) << name << " " << a.categories[c];
        }
        for (const auto& [category, ns] : byCategory) EXPECT_GE(a.categoryIndex(category), 0) << category;
    }
    EXPECT_FALSE(requestSegmentCategories(*s.store, "no-such-request", CategoryRules::defaults()));
}

// A call's two legs are its hop `caller → callee`, its work the service's; category rules rename them as the
// breakdown's do. shop (0-100 us) calls cart (10-60).
TEST(SpanCategories, RequestSegmentCategoriesFollowTheRules) {
    test::ScratchDir dir;
    const std::string json =
        R"({"data":[{"traceID":"t1","spans":[)"
        R"({"traceID":"t1","spanID":"a","operationName":"buy","references":[],"startTime":1700000000000000,"duration":100,"processID":"ps","tags":[],"logs":[]},)"
        R"({"traceID":"t1","spanID":"b","operationName":"add","references":[{"refType":"CHILD_OF","traceID":"t1","spanID":"a"}],)"
        R"("startTime":1700000000000010,"duration":50,"processID":"pc","tags":[],"logs":[]}],)"
        R"("processes":{"ps":{"serviceName":"shop","tags":[]},"pc":{"serviceName":"cart","tags":[]}}}]})";
    SpanStudy s({dir.write("call.json", json)});
    auto request = loadRequestAnalysis(*s.store, "t1");
    ASSERT_TRUE(request) << request.message();
    auto expected = [&](const char* hop, const char* shop) {
        std::vector<std::string> out;
        for (const RequestSegment& seg : request->segments)
            out.push_back(seg.network ? hop : seg.task.starts_with("shop") && !seg.startEvent.starts_with("serve ") ? shop : "cart");
        return out;
    };
    auto categories = requestSegmentCategories(*s.store, "t1", CategoryRules::defaults());
    ASSERT_TRUE(categories) << categories.message();
    EXPECT_EQ(categories.value(), expected("shop \xE2\x86\x92 cart", "shop"));
    EXPECT_EQ(std::count(categories->begin(), categories->end(), "shop \xE2\x86\x92 cart"), 2);  // out and back
    auto rules = CategoryRules::fromJson(R"([{"category": "wire", "field": "network"}, {"category": "store", "field": "host", "pattern": "shop"}])");
    ASSERT_TRUE(rules) << rules.message();
    categories = requestSegmentCategories(*s.store, "t1", rules.value());
    ASSERT_TRUE(categories) << categories.message();
    EXPECT_EQ(categories.value(), expected("wire", "store"));
}

// ---- what the Aggregates tab starts on for span data (issue 40) -----------------------------------------

namespace {
// Requests over handmade categories: per request and category (critical, span, slack) in ms; the latency is
// the sum of the critical times, and every category's critical time is one segment type (its index) on the path.
struct Cell {
    double criticalMs, spanMs, slackMs;
};
RequestAggregates handmade(const std::vector<std::string>& categories, const std::vector<std::vector<Cell>>& rows) {
    RequestAggregates a;
    a.categories = categories;
    for (std::size_t c = 0; c < categories.size(); ++c) a.typeCategory.push_back(static_cast<int>(c));
    for (std::size_t r = 0; r < rows.size(); ++r) {
        a.ids.emplace_back(static_cast<std::uint32_t>(r + 1));
        TimeNs latency = 0;
        a.pathBegin.push_back(a.pathType.size());
        for (std::size_t c = 0; c < categories.size(); ++c) {
            const Cell& cell = rows[r][c];
            const TimeNs critical = static_cast<TimeNs>(cell.criticalMs * 1e6);
            latency += critical;
            a.criticalNs.push_back(critical);
            a.summedNs.push_back(static_cast<TimeNs>(cell.spanMs * 1e6));
            a.spanNs.push_back(static_cast<TimeNs>(cell.spanMs * 1e6));
            a.slackNs.push_back(cell.slackMs < 0 ? RequestAggregates::kNoSlack : static_cast<TimeNs>(cell.slackMs * 1e6));
            a.pathType.push_back(static_cast<std::uint32_t>(c));
            a.pathNs.push_back(critical);
        }
        a.latencyNs.push_back(latency);
        a.blindNs.push_back(0);
    }
    a.pathBegin.push_back(a.pathType.size());
    return a;
}
} // namespace

TEST(Aggregates, FoldSmallCategoriesKeepsTheMostCriticalAndSumsTheRest) {
    auto group = [](std::int64_t requests, std::vector<double> criticalMs) {
        Breakdown b;
        b.requests = requests;
        const std::vector<std::string> names = {"a", "b", "c", "d", "blind"};
        for (std::size_t c = 0; c < criticalMs.size(); ++c) {
            b.categories.push_back({names[c], 2e6 * criticalMs[c], 1e6 * criticalMs[c], 0.1 * double(c)});
            b.meanLatencyNs += 1e6 * criticalMs[c];
        }
        return b;
    };
    // By critical time over both groups (weighted by requests): d 9*10+0 = 90, c 1*10+8*1 = 18, a 12, b 11, blind 3.
    const auto folded = foldSmallCategories({{"x", group(10, {1, 1, 1, 9, 0.3})}, {"y", group(1, {2, 1, 8, 0, 0})}}, 2);
    ASSERT_EQ(folded.size(), 2u);
    for (const auto& [label, b] : folded) {
        ASSERT_EQ(b.categories.size(), 3u) << label;
        EXPECT_EQ(b.categories[0].name, "d");
        EXPECT_EQ(b.categories[1].name, "c");
        EXPECT_EQ(b.categories[2].name, kOtherCategory);
        double critical = 0;
        for (const auto& c : b.categories) critical += c.criticalNs;
        EXPECT_NEAR(critical, b.meanLatencyNs, 1e-6 * b.meanLatencyNs) << "nothing lost in the fold";
    }
    EXPECT_NEAR(folded[0].second.categories[2].criticalNs, 1e6 * (1 + 1 + 0.3), 1);  // a, b and blind
    EXPECT_NEAR(folded[0].second.categories[2].summedNs, 2e6 * (1 + 1 + 0.3), 1);
    EXPECT_NEAR(folded[0].second.categories[2].criticalShare, 0.0 + 0.1 + 0.4, 1e-9);
    // Few enough categories: ranked, none folded.
    const auto kept = foldSmallCategories({{"x", group(10, {1, 3, 2})}}, 10);
    ASSERT_EQ(kept[0].second.categories.size(), 3u);
    EXPECT_EQ(kept[0].second.categories[0].name, "b");
    EXPECT_EQ(kept[0].second.categories[2].name, "a");
}

TEST(Aggregates, SlackViewsStartOnTheCategoryWhoseSlackVariesNotTheRoot) {
    // frontend spans every request (its slack 0) and has the most critical time; cart's slack varies, currency's
    // does not; ads is in one request of 40.
    std::vector<std::vector<Cell>> rows;
    for (int r = 0; r < 40; ++r) {
        const double cart = 2, currency = 1, ads = r == 0 ? 1 : 0, frontend = 5 + r % 3;
        const double latency = cart + currency + ads + frontend;
        rows.push_back({{frontend, latency, 0}, {cart, cart, double(r % 5)}, {currency, currency, 1}, {ads, ads, ads > 0 ? 50.0 : -1}});
    }
    const RequestAggregates a = handmade({"frontend", "cart", "currency", "ads"}, rows);
    EXPECT_TRUE(spansWholeRequests(a, 0));
    EXPECT_FALSE(spansWholeRequests(a, 1));
    EXPECT_EQ(slackStudyCategory(a), 1);
    EXPECT_EQ(categoriesWithSlack(a), (std::vector<std::size_t>{1, 2, 3}));
    // No slack varies anywhere: the part with the most critical time, still not the root.
    for (auto& row : rows) row[1].slackMs = 1;
    EXPECT_EQ(slackStudyCategory(handmade({"frontend", "cart", "currency", "ads"}, rows)), 1);
    // Only the root: it is all there is.
    EXPECT_EQ(slackStudyCategory(handmade({"frontend"}, {{{3, 3, 0}}, {{4, 4, 0}}})), 0);
    EXPECT_EQ(slackStudyCategory(RequestAggregates{}), -1);
}

TEST(Aggregates, OutliersLeaveOutTypesWithNoCriticalTime) {
    // A zero-length span on every critical path is not a row of "0 % against 0 %".
    std::vector<std::vector<Cell>> rows;
    for (int r = 0; r < 100; ++r) rows.push_back({{double(1 + r), 1, 0}, {0, 0, 0}, {1, 1, 0}});
    const RequestAggregates a = handmade({"server", "instant", "network"}, rows);
    const Outliers o = outliers(a, 0.1);
    ASSERT_EQ(o.segments.size(), 2u);
    for (const auto& s : o.segments) EXPECT_NE(s.type, 1u);
    // The share CDFs follow critical time: the server first, not the first category by index.
    const RequestAggregates reordered = handmade({"network", "instant", "server"}, [&] {
        auto swapped = rows;
        for (auto& row : swapped) std::swap(row[0], row[2]);
        return swapped;
    }());
    EXPECT_EQ(breakdownStudy(reordered, nullptr).shareCdfs.front().first, "server");
}

// The Mystery Machine predicts a request's slack from the same user's previous request by time: rows whose
// ids are out of time order are taken in the order they started, and each pair's two slacks are kept.
TEST(Aggregates, SlackPredictionTakesEachUsersRequestsInTheOrderTheyStarted) {
    RequestAggregates a;
    a.categories = {"web"};
    // Row 0 started last; rows 1 and 2 first. Slack 10 ms, 100 ms, 100 ms; one user.
    a.ids = {RequestId(1), RequestId(2), RequestId(3)};
    a.startNs = {300'000'000, 100'000'000, 200'000'000};
    a.latencyNs = {1'000'000'000, 1'000'000'000, 1'000'000'000};
    a.slackNs = {10'000'000, 100'000'000, 100'000'000};
    const std::vector<std::string> users{"u", "u", "u"};
    const SlackPrediction p = predictSlack(a, 0, 50'000'000, users);  // slack means at least 50 ms
    EXPECT_EQ(p.pairs, 2);
    EXPECT_EQ(p.truePositive, 1);   // 100 ms after 100 ms
    EXPECT_EQ(p.falsePositive, 1);  // 10 ms after 100 ms
    EXPECT_EQ(p.falseNegative, 0);  // by row order, 100 ms after 10 ms would be one
    EXPECT_DOUBLE_EQ(p.accuracy(), 0.5);
    ASSERT_EQ(p.slackPairs.size(), 2u);
    EXPECT_EQ(p.slackPairs[0], (std::pair<TimeNs, TimeNs>{100'000'000, 100'000'000}));
    EXPECT_EQ(p.slackPairs[1], (std::pair<TimeNs, TimeNs>{100'000'000, 10'000'000}));
}

// Outliers on slack (Mystery Machine): per category, the median slack of the slowest requests against the rest's,
// checked against medians taken by hand; the category that lost its slack in the outliers comes first.
TEST(Aggregates, OutlierSlackIsEachCategorysMedianInEachSetTheMostLostFirst) {
    std::vector<std::vector<Cell>> rows;
    for (int r = 0; r < 100; ++r) {
        const bool slow = r >= 90;  // the 10 slowest: their db has next to no slack; the cache's slack is unchanged
        rows.push_back({{double(10 + r), 1, slow ? 0.5 + 0.01 * r : 40.0 + r % 7}, {1, 1, 20.0 + r % 3}, {1, 1, -1}});
    }
    const RequestAggregates a = handmade({"db", "cache", "never"}, rows);
    const Outliers o = outliers(a, 0.1);
    ASSERT_EQ(o.outlierRequests, 10);
    ASSERT_EQ(o.slack.size(), 2u);  // "never" has no slack anywhere
    const auto medianOf = [&](std::size_t c, bool slow) {
        std::vector<TimeNs> v;
        for (std::size_t r = 0; r < a.requests(); ++r)
            if ((a.latencyNs[r] > o.thresholdNs) == slow && a.hasSlack(r, c)) v.push_back(a.slack(r, c));
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    EXPECT_EQ(o.slack[0].category, 0u);
    EXPECT_EQ(o.slack[0].outlierRequests, 10);
    EXPECT_EQ(o.slack[0].restRequests, 90);
    EXPECT_EQ(o.slack[0].outlierMedianNs, medianOf(0, true));
    EXPECT_EQ(o.slack[0].restMedianNs, medianOf(0, false));
    EXPECT_LT(o.slack[0].ratio, 0.05);
    EXPECT_EQ(o.slack[1].category, 1u);
    EXPECT_EQ(o.slack[1].outlierMedianNs, medianOf(1, true));
    EXPECT_EQ(o.slack[1].restMedianNs, medianOf(1, false));
    EXPECT_NEAR(o.slack[1].ratio, 1.0, 0.06);
}

// Numeric strata in as many quantiles as asked for (the paper's Fig. 7 uses quintiles).
TEST(Aggregates, BreakdownStrataComeInTheQuantilesAskedFor) {
    std::vector<std::vector<Cell>> rows;
    std::vector<std::string> bytes;
    for (int r = 0; r < 100; ++r) {
        rows.push_back({{double(1 + r), 1, 0}});
        bytes.push_back(std::to_string(1000 + 10 * r));
    }
    const RequestAggregates a = handmade({"server"}, rows);
    for (int q : {2, 4, 5, 10}) {
        const BreakdownStudy study = breakdownStudy(a, &bytes, q);
        ASSERT_EQ(study.groups.size(), static_cast<std::size_t>(q)) << q;
        for (const auto& [value, b] : study.groups) EXPECT_EQ(b.requests, 100 / q) << q << " " << value;
    }
}
