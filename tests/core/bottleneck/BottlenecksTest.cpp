// BOSS bottlenecks over requests (issue 14): span self time, bottleneck types and rules, the sharded
// aggregate, and exactness on the generator's page loads.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <numeric>

#include "TestUtil.h"
#include "core/GeneratedStore.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/RequestPass.h"
#include "tracelight/base/Json.h"
#include "tracelight/bottleneck/BottleneckRules.h"
#include "tracelight/bottleneck/BottleneckTrend.h"
#include "tracelight/bottleneck/Bottlenecks.h"
#include "tracelight/bottleneck/RequestBottlenecks.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

using namespace tracelight;

namespace {

constexpr TimeNs kMs = 1'000'000;

std::vector<std::uint32_t> allRows(const InMemoryAnalysis& a) {
    std::vector<std::uint32_t> rows(a.data.requestCount());
    std::iota(rows.begin(), rows.end(), 0u);
    return rows;
}

std::map<std::string, TypeContribution> byName(const BottleneckSummary& s) {
    std::map<std::string, TypeContribution> out;
    for (const auto& t : s.types) out[t.name] = t;
    return out;
}

SpanRecord span(std::int32_t parent, TimeNs start, TimeNs end) {
    SpanRecord s;
    s.parent = parent;
    s.startNs = start;
    s.endNs = end;
    return s;
}

// One Jaeger span (times in µs from a fixed origin).
std::string jaegerSpan(const char* id, const char* parent, const char* process, long startUs, long durationUs) {
    const std::string refs = parent ? std::string(R"([{"refType":"CHILD_OF","traceID":"t1","spanID":")") + parent + R"("}])" : "[]";
    return std::string(R"({"traceID":"t1","spanID":")") + id + R"(","operationName":"op-)" + id + R"(","references":)" + refs +
           R"(,"startTime":)" + std::to_string(1700000000000000L + startUs) + R"(,"duration":)" + std::to_string(durationUs) +
           R"(,"processID":")" + process + R"(","tags":[],"logs":[]})";
}

// Inputs imported into a new store in dir and analysed.
struct AnalysedStore {
    std::unique_ptr<TraceStore> store;
    InMemoryAnalysis analysis;
};
AnalysedStore importAndAnalyse(const test::ScratchDir& dir, const std::vector<std::string>& inputs) {
    AnalysedStore out;
    out.store = std::move(TraceStore::open(dir.file("spans.tldb"), TraceStore::Mode::Create).value());
    ImportOptions import;
    import.inputs = inputs;
    auto imported = importTraces(*out.store, import);
    EXPECT_TRUE(imported) << imported.message();
    EXPECT_TRUE(analyzeStore(*out.store, AnalysisOptions{}));
    auto analysis = loadAnalysis(*out.store);
    EXPECT_TRUE(analysis) << analysis.message();
    if (analysis) out.analysis = std::move(analysis.value());
    return out;
}

} // namespace

TEST(SpanSelfTime, OwnTimeNotCoveredByChildren) {
    // Parent [0, 100): children [10, 30) and [20, 50) overlap, [70, 80) later, [120, 130) outside it;
    // a grandchild inside the first child.
    const RequestSpans spans{span(-1, 0, 100), span(0, 10, 30), span(0, 20, 50), span(0, 70, 80), span(0, 120, 130), span(1, 15, 25)};
    std::vector<TimeNs> start, end;
    for (const auto& s : spans) {
        start.push_back(s.startNs);
        end.push_back(s.endNs);
    }
    std::vector<ActiveInterval> out;
    appendSpanSelfTime(spanShapes(spans), start, end, out);
    std::map<std::uint32_t, std::vector<std::pair<TimeNs, TimeNs>>> self;
    for (const auto& i : out) self[i.type].emplace_back(i.startNs, i.endNs);
    EXPECT_EQ(self[0], (std::vector<std::pair<TimeNs, TimeNs>>{{0, 10}, {50, 70}, {80, 100}}));
    EXPECT_EQ(self[1], (std::vector<std::pair<TimeNs, TimeNs>>{{10, 15}, {25, 30}}));
    EXPECT_EQ(self[2], (std::vector<std::pair<TimeNs, TimeNs>>{{20, 50}}));
    EXPECT_EQ(self[4], (std::vector<std::pair<TimeNs, TimeNs>>{{120, 130}}));
    EXPECT_EQ(self[5], (std::vector<std::pair<TimeNs, TimeNs>>{{15, 25}}));
}

TEST(BottleneckRules, ParsesMatchesAndRefusesBadRules) {
    auto rules = BottleneckRules::fromJson(R"([{"type": "Ads calls", "how_to_fix": "Do not block on ads", "service": "^ads", "kind": "client"},
                                               {"type": "Cache", "task": "^fetch-", "event": "CACHE"}])");
    ASSERT_TRUE(rules) << rules.message();
    ASSERT_EQ(rules->rules().size(), 2u);
    const BottleneckRule* ads = rules->match({"h", "adservice", "adservice:Get", "Get", "Get", "client"});
    ASSERT_NE(ads, nullptr);
    EXPECT_EQ(ads->type, "Ads calls");
    EXPECT_EQ(ads->howToFix, "Do not block on ads");
    EXPECT_EQ(rules->match({"h", "adservice", "adservice:Get", "Get", "Get", "server"}), nullptr);  // kind differs
    const BottleneckRule* cache = rules->match({"web-1", "web", "fetch-feed", "SRV_FORK", "CACHE_REQ", ""});
    ASSERT_NE(cache, nullptr);
    EXPECT_EQ(cache->type, "Cache");
    EXPECT_EQ(rules->match({"web-1", "web", "fetch-feed", "A", "B", ""}), nullptr);
    // Round trip.
    auto again = BottleneckRules::fromJson(rules->toJson());
    ASSERT_TRUE(again);
    EXPECT_EQ(again->toJson(), rules->toJson());
    // Refused, each with the rule's number.
    EXPECT_NE(BottleneckRules::fromJson(R"([{"how_to_fix": "x"}])").message().find("rule 1: no type"), std::string::npos);
    EXPECT_NE(BottleneckRules::fromJson(R"([{"type": "a"}, {"type": "b", "servce": "x"}])").message().find("rule 2: unknown key 'servce'"),
              std::string::npos);
    EXPECT_NE(BottleneckRules::fromJson(R"([{"type": "a", "task": "(("}])").message().find("bad task pattern"), std::string::npos);
    EXPECT_FALSE(BottleneckRules::fromJson(R"({"type": "a"})"));
    EXPECT_FALSE(BottleneckRules::fromJson("[1]"));
}

// Rules kept in the database (issue 14): what was saved is what is loaded; nothing stored, or an empty list,
// means the defaults; a new database has none.
TEST(BottleneckRules, StoredInTheDatabase) {
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("rules.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    EXPECT_TRUE(loadBottleneckRules(*store.value()).empty());
    auto rules = BottleneckRules::fromJson(R"([{"type": "Ads calls", "how_to_fix": "Do not block on ads", "service": "^ads", "kind": "client"}])");
    ASSERT_TRUE(rules);
    ASSERT_TRUE(saveBottleneckRules(*store.value(), rules.value()));
    store = TraceStore::open(dir.file("rules.tldb"), TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store) << store.message();
    EXPECT_EQ(loadBottleneckRules(*store.value()).toJson(), rules->toJson());
    store = TraceStore::open(dir.file("rules.tldb"), TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(saveBottleneckRules(*store.value(), BottleneckRules()));
    EXPECT_TRUE(loadBottleneckRules(*store.value()).empty());
}

// Every generated page load's contributions add up to its latency exactly, the latency the analysis reports.
TEST(Bottlenecks, GeneratedRequestsAddUpToTheirLatencyExactly) {
    test::ScratchDir dir;
    auto store = test::generatedStore(dir, 300, 5);
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    auto analysis = loadAnalysis(*store);
    ASSERT_TRUE(analysis) << analysis.message();
    const InMemoryAnalysis& a = analysis.value();
    BottleneckTypeTable types(a.data, BottleneckRules{}, CategoryRules::defaults());
    const auto hosts = hostsByName(a.data);
    RequestBottleneckPass pass(a, hosts, types);
    RequestPass requestPass(a.model, a.data);
    TimeNs latencySum = 0;
    for (std::size_t r = 0; r < a.data.requestCount(); ++r) {
        const RequestContribution& c = pass.run(r, nullptr);
        const TimeNs total = std::accumulate(c.byType.begin(), c.byType.end(), TimeNs{0});
        const TimeNs latency = requestPass.criticalPath(a.data.eventsOf(r), a.offsets, a.data.linksOf(r)).criticalPath.latencyNs;
        ASSERT_GT(latency, 0);
        ASSERT_EQ(total, latency) << "request row " << r;
        ASSERT_EQ(pass.latencyNs(), latency);
        for (auto ns : c.byType) ASSERT_GE(ns, 0);
        latencySum += latency;
    }
    // The aggregate: one type per category (network, client, web, cache, ...) plus the gaps; shares add up to 1.
    auto summaries = computeBottlenecks(a, store.get(), {allRows(a)}, BottleneckOptions{.rules = {}, .categories = CategoryRules::defaults(), .threads = 2});
    ASSERT_TRUE(summaries) << summaries.message();
    const BottleneckSummary& s = summaries->front();
    EXPECT_EQ(s.requests, 300);
    EXPECT_EQ(s.latencyTotalNs, latencySum);
    TimeNs contributed = 0;
    double shares = 0;
    for (const auto& t : s.types) {
        contributed += t.totalNs;
        shares += t.share;
        EXPECT_FALSE(t.howToFix.empty()) << t.name;
    }
    EXPECT_EQ(contributed, latencySum);
    EXPECT_NEAR(shares, 1.0, 1e-12);
    const auto named = byName(s);
    for (const char* type : {"network", "client", "web", "gaps"}) EXPECT_EQ(named.count(type), 1u) << type;
    EXPECT_GT(named.at("network").share, 0.1);  // page loads spend much of their time on the network
    for (std::size_t i = 1; i < s.types.size(); ++i) EXPECT_GE(s.types[i - 1].totalNs, s.types[i].totalNs);
    // One thread gives the same sums as two.
    auto single = computeBottlenecks(a, store.get(), {allRows(a)}, BottleneckOptions{.rules = {}, .categories = CategoryRules::defaults(), .threads = 1});
    ASSERT_TRUE(single);
    for (const auto& t : single->front().types) EXPECT_EQ(named.at(t.name).totalNs, t.totalNs) << t.name;
}

TEST(Bottlenecks, RulesNameTypesGroupsSplitAndCancelStops) {
    test::ScratchDir dir;
    auto store = test::generatedStore(dir, 120, 9);
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    auto analysis = loadAnalysis(*store);
    ASSERT_TRUE(analysis);
    auto rules = BottleneckRules::fromJson(R"([{"type": "Data fetches", "how_to_fix": "Fetch in parallel", "task": "^fetch-"}])");
    ASSERT_TRUE(rules);
    BottleneckOptions options;
    options.rules = rules.value();
    std::vector<std::uint32_t> even, odd;
    for (std::uint32_t r = 0; r < analysis->data.requestCount(); ++r) (r % 2 ? odd : even).push_back(r);
    auto summaries = computeBottlenecks(analysis.value(), store.get(), {allRows(analysis.value()), even, odd}, options);
    ASSERT_TRUE(summaries) << summaries.message();
    ASSERT_EQ(summaries->size(), 3u);
    const auto all = byName(summaries.value()[0]);
    ASSERT_EQ(all.count("Data fetches"), 1u);
    EXPECT_EQ(all.at("Data fetches").howToFix, "Fetch in parallel");
    EXPECT_GT(all.at("Data fetches").totalNs, 0);
    // The two halves add up to the whole, type by type.
    EXPECT_EQ(summaries.value()[1].requests + summaries.value()[2].requests, 120);
    const auto a = byName(summaries.value()[1]), b = byName(summaries.value()[2]);
    for (const auto& [name, t] : all) {
        const TimeNs halves = (a.count(name) ? a.at(name).totalNs : 0) + (b.count(name) ? b.at(name).totalNs : 0);
        EXPECT_EQ(halves, t.totalNs) << name;
    }
    CancelToken cancel;
    cancel.cancel();
    auto cancelled = computeBottlenecks(analysis.value(), store.get(), {allRows(analysis.value())}, options, nullptr, &cancel);
    ASSERT_FALSE(cancelled);
    EXPECT_EQ(cancelled.message(), "cancelled");
}

// The paper's page view as one Jaeger trace: a page span whose calls A, B and C (services a, b, c) cover it
// entirely, so the page itself is never charged; A 195 ms, B 65 ms and C 60 ms of 320 ms.
TEST(Bottlenecks, SpanSelfTimeOnThePapersCallsThroughImport) {
    test::ScratchDir dir;
    const std::string processes = R"("processes":{"pp":{"serviceName":"page","tags":[]},"pa":{"serviceName":"a","tags":[]},)"
                                  R"("pb":{"serviceName":"b","tags":[]},"pc":{"serviceName":"c","tags":[]}})";
    const std::string json = std::string(R"({"data":[{"traceID":"t1","spans":[)") + jaegerSpan("p", nullptr, "pp", 0, 320000) + "," +
                             jaegerSpan("a", "p", "pa", 0, 320000) + "," + jaegerSpan("b", "p", "pb", 100000, 160000) + "," +
                             jaegerSpan("c", "p", "pc", 170000, 150000) + "]," + processes + "}]}";
    const AnalysedStore a = importAndAnalyse(dir, {dir.write("paper.json", json)});
    auto summaries = computeBottlenecks(a.analysis, a.store.get(), {allRows(a.analysis)});
    ASSERT_TRUE(summaries) << summaries.message();
    const auto named = byName(summaries->front());
    EXPECT_EQ(summaries->front().latencyTotalNs, 320 * kMs);
    EXPECT_EQ(named.at("a").totalNs, 195 * kMs);
    EXPECT_EQ(named.at("b").totalNs, 65 * kMs);
    EXPECT_EQ(named.at("c").totalNs, 60 * kMs);
    EXPECT_EQ(named.at("gaps").totalNs, 0);
    EXPECT_EQ(named.count("page"), 0u);
    EXPECT_EQ(named.at("a").howToFix, serviceHowToFix("a"));  // a service's type, not the category of the same name
    // The JSON contract.
    JsonValue v;
    const std::string text = bottlenecksJson(summaries->front(), "", {});
    ASSERT_TRUE(JsonValue::parse(text, v, nullptr, nullptr)) << text;
    EXPECT_EQ(v.find("requests")->number(), 1);
    EXPECT_DOUBLE_EQ(v.find("mean_latency_us")->number(), 320000);
    ASSERT_EQ(v.find("types")->array().size(), 4u);
    const JsonValue& first = v.find("types")->array()[0];
    EXPECT_EQ(first.find("name")->string(), "a");
    EXPECT_DOUBLE_EQ(first.find("contribution_us")->number(), 195000);
    EXPECT_DOUBLE_EQ(first.find("share")->number(), 195.0 / 320.0);
    EXPECT_FALSE(first.find("how_to_fix")->string().empty());
    EXPECT_TRUE(v.find("strata")->isArray());
}

// Span data's timeline is the request as its caller waited for it (the root's 100 ms), and work no caller
// waited for is the type "[async]" while it runs within that: x, under a, runs 30 ms past a's end beside the
// page's own work, which the two share; "late", after the page ended, lengthens neither the latency nor the trend's.
// a's own time before x started is the hop of its call to b (all its children run in b).
TEST(Bottlenecks, WorkNoCallerWaitedForIsItsOwnType) {
    test::ScratchDir dir;
    const std::string processes = R"("processes":{"pp":{"serviceName":"page","tags":[]},"pa":{"serviceName":"a","tags":[]},)"
                                  R"("pb":{"serviceName":"b","tags":[]}})";
    const std::string json = std::string(R"({"data":[{"traceID":"t1","spans":[)") + jaegerSpan("p", nullptr, "pp", 0, 100000) + "," +
                             jaegerSpan("a", "p", "pa", 10000, 30000) + "," + jaegerSpan("x", "a", "pb", 20000, 50000) + "," +
                             jaegerSpan("late", "p", "pp", 120000, 10000) + "]," + processes +
                             "}]}";
    const AnalysedStore a = importAndAnalyse(dir, {dir.write("async.json", json)});
    auto summaries = computeBottlenecks(a.analysis, a.store.get(), {allRows(a.analysis)});
    ASSERT_TRUE(summaries) << summaries.message();
    const auto named = byName(summaries->front());
    EXPECT_EQ(summaries->front().latencyTotalNs, 100 * kMs);
    EXPECT_EQ(named.at("page").totalNs, 55 * kMs);
    EXPECT_EQ(named.at("a → b").totalNs, 10 * kMs);
    EXPECT_EQ(named.at("a → b").howToFix, hopHowToFix("a", "b"));
    EXPECT_EQ(named.count("a"), 0u);
    EXPECT_EQ(named.at("b").totalNs, 20 * kMs);
    EXPECT_EQ(named.at(std::string(kAsyncType)).totalNs, 15 * kMs);
    EXPECT_EQ(named.at(std::string(kAsyncType)).howToFix, asyncHowToFix());
    EXPECT_EQ(named.at("gaps").totalNs, 0);
    auto trend = computeBottleneckTrend(a.analysis, a.store.get(), allRows(a.analysis), BottleneckOptions{});
    ASSERT_TRUE(trend) << trend.message();
    ASSERT_EQ(trend->latencyNs.size(), 1u);
    EXPECT_EQ(trend->latencyNs[0], 100 * kMs);
}

// The currencyservice network delay (Online Boutique 05:27-05:28 beside the normal minute): the hop of
// frontend's calls to currencyservice leads, not frontend's own work.
TEST(Bottlenecks, TheDelayedHopLeadsOnRealSpans) {
    const std::string ob = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/nezha-onlineboutique/";
    if (!std::filesystem::is_directory(ob)) GTEST_SKIP() << "no " << ob;
    test::ScratchDir dir;
    const AnalysedStore a =
        importAndAnalyse(dir, {ob + "normal/2022-08-23_17_00_trace.csv", ob + "fault/05_27_trace.csv", ob + "fault/05_28_trace.csv"});
    auto summaries = computeBottlenecks(a.analysis, a.store.get(), {allRows(a.analysis)});
    ASSERT_TRUE(summaries) << summaries.message();
    const auto& types = summaries->front().types;
    ASSERT_FALSE(types.empty());
    EXPECT_EQ(types.front().name, "frontend → currencyservice");
    EXPECT_GT(types.front().share, 0.5);
    const auto named = byName(summaries->front());
    EXPECT_LT(named.at("frontend").share, 0.1);
}
