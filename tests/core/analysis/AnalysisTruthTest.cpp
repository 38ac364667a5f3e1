// The analysis engine against the page-load generator's ground truth.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/GeneratedTraces.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/RequestDag.h"
#include "tracelight/analysis/Slack.h"

using namespace tracelight;
using samples::PageLoadGenerator;

namespace {

constexpr std::int64_t kRequests = 20000;

const test::GeneratedTraces& traces() {
    static const test::GeneratedTraces t = [] {
        samples::GeneratorOptions options;
        options.seed = 2;
        options.requests = kRequests;
        return test::generateTraces(PageLoadGenerator(options), kRequests);
    }();
    return t;
}

const InMemoryAnalysis& analysis() {
    static const InMemoryAnalysis a = [] {
        auto r = analyzeInMemory(traces().data, AnalysisOptions{});
        EXPECT_TRUE(r) << r.message();
        return std::move(r.value());
    }();
    return a;
}

using PairSet = std::set<std::pair<std::string, std::string>>;

struct Inferred {
    PairSet happensBefore, mutualExclusion, pipelineLinks;
};

Inferred inferredSets(const TraceData& data, const CausalModel& model) {
    Inferred out;
    const auto n = static_cast<std::uint32_t>(model.typeCount());
    for (std::uint32_t a = 0; a < n; ++a)
        for (std::uint32_t b = 0; b < n; ++b) {
            const SegmentTypeId x(a), y(b);
            if (model.happensBefore(x, y)) out.happensBefore.emplace(data.segmentName(x), data.segmentName(y));
            if (a < b && model.mutuallyExclusive(x, y))
                out.mutualExclusion.emplace(std::min(data.segmentName(x), data.segmentName(y)),
                                            std::max(data.segmentName(x), data.segmentName(y)));
        }
    for (const auto& p : model.pipelines())
        for (const auto& l : {p.first, p.second}) out.pipelineLinks.emplace(data.segmentName(l.producer), data.segmentName(l.consumer));
    return out;
}

double precision(const PairSet& inferred, const PairSet& truth) {
    if (inferred.empty()) return 1.0;
    std::size_t hit = 0;
    for (const auto& p : inferred) hit += truth.count(p);
    return double(hit) / double(inferred.size());
}
double recall(const PairSet& inferred, const PairSet& truth) {
    std::size_t hit = 0;
    for (const auto& p : truth) hit += inferred.count(p);
    return truth.empty() ? 1.0 : double(hit) / double(truth.size());
}

} // namespace

TEST(AnalysisTruth, ModelConvergesToTheTrueModel) {
    const samples::TrueModel truth = PageLoadGenerator::trueModel();
    PairSet trueMutex(truth.mutualExclusion.begin(), truth.mutualExclusion.end());
    PairSet truePipeline;
    for (const auto& p : truth.pipelines)
        for (std::size_t i = 0; i < p.producers.size(); ++i) truePipeline.emplace(p.producers[i], p.consumers[i]);
    const auto& t = traces();
    const ClockOffsets& offsets = analysis().offsets;
    for (std::int64_t requests : {1000, 5000, 20000}) {
        InferenceOptions options;
        options.maxRequests = requests;
        auto model = inferModel(t.data, offsets, options);
        ASSERT_TRUE(model);
        const Inferred inferred = inferredSets(t.data, model.value());
        const double hbP = precision(inferred.happensBefore, truth.happensBefore), hbR = recall(inferred.happensBefore, truth.happensBefore);
        const double meP = precision(inferred.mutualExclusion, trueMutex), meR = recall(inferred.mutualExclusion, trueMutex);
        const double plP = precision(inferred.pipelineLinks, truePipeline), plR = recall(inferred.pipelineLinks, truePipeline);
        std::printf("  after %6lld requests: happens-before P=%.3f R=%.3f | mutual exclusion P=%.3f R=%.3f | pipeline P=%.3f R=%.3f\n",
                    static_cast<long long>(requests), hbP, hbR, meP, meR, plP, plR);
        RecordProperty("hb_precision_" + std::to_string(requests), std::to_string(hbP));
        // A true relation is never contradicted, whatever the sample size.
        EXPECT_EQ(hbR, 1.0) << requests;
        EXPECT_EQ(meR, 1.0) << requests;
        EXPECT_EQ(plR, 1.0) << requests;
        if (requests == 20000) {
            EXPECT_EQ(inferred.happensBefore, truth.happensBefore);
            EXPECT_EQ(inferred.mutualExclusion, trueMutex);
            EXPECT_EQ(inferred.pipelineLinks, truePipeline);
        }
    }
    // The convergence curve falls as counterexamples arrive.
    const auto& curve = analysis().model.convergence();
    ASSERT_GE(curve.size(), 5u);
    EXPECT_EQ(curve.back().requests, kRequests);
    EXPECT_GT(curve.front().happensBeforeAlive, curve.back().happensBeforeAlive);
}

// Inference compares times within a request only, so stretching each request's time (monotone, per request)
// must not change the model. Stretched to about 2^62 ns, the longest requests no longer fit the packed
// sweep of mutual exclusion and take the general one: both ways give the same relations.
TEST(AnalysisTruth, StretchingEachRequestsTimeKeepsTheModel) {
    TraceData plain = traces().data;
    const ClockOffsets& offsets = analysis().offsets;
    for (auto& e : plain.events) e.localNs = offsets.adjusted(e.host, e.localNs);
    TraceData stretched = plain;
    TimeNs longest = 1;
    for (std::size_t r = 0; r + 1 < plain.requestBegin.size(); ++r) {
        const auto events = plain.eventsOf(r);
        const auto [lo, hi] = std::minmax_element(events.begin(), events.end(), [](const EventRecord& a, const EventRecord& b) { return a.localNs < b.localNs; });
        longest = std::max(longest, hi->localNs - lo->localNs);
    }
    const TimeNs factor = (TimeNs{1} << 61) / longest;
    ASSERT_GT(factor, 1);
    for (std::size_t r = 0; r + 1 < plain.requestBegin.size(); ++r) {
        const auto events = plain.eventsOf(r);
        const TimeNs first = std::min_element(events.begin(), events.end(), [](const EventRecord& a, const EventRecord& b) { return a.localNs < b.localNs; })->localNs;
        for (std::uint64_t i = plain.requestBegin[r]; i < plain.requestBegin[r + 1]; ++i)
            stretched.events[i].localNs = (plain.events[i].localNs - first) * factor;
    }
    const ClockOffsets none = ClockOffsets::none(plain.hostLabels.size());
    auto a = inferModel(plain, none, InferenceOptions{});
    auto b = inferModel(stretched, none, InferenceOptions{});
    ASSERT_TRUE(a && b);
    const Inferred x = inferredSets(plain, a.value()), y = inferredSets(stretched, b.value());
    EXPECT_EQ(x.happensBefore, y.happensBefore);
    EXPECT_EQ(x.mutualExclusion, y.mutualExclusion);
    const samples::TrueModel truth = PageLoadGenerator::trueModel();
    EXPECT_EQ(PairSet(truth.mutualExclusion.begin(), truth.mutualExclusion.end()), y.mutualExclusion);
}

// A model of few types walks its rows as bitsets of the types present, one of many types walks their
// lists: 600 more requests, each of a type of its own (seen with no other, so relating to none), make
// the model too large for bitsets and must leave every graph of the page loads as it was.
TEST(AnalysisTruth, AModelOfManyTypesBuildsTheSameGraphs) {
    const TraceData& few = traces().data;
    TraceDataBuilder builder;
    for (const auto& [id, text] : few.labels) builder.setLabel(id, text);
    for (std::size_t r = 0; r < few.requestCount(); ++r) {
        builder.beginRequest(few.requestIds[r]);
        for (const EventRecord& e : few.eventsOf(r)) builder.addEvent(e.task, e.event, few.hostLabels[e.host.value].value, e.localNs);
    }
    std::uint32_t label = 1;
    for (const auto& [id, text] : few.labels) label = std::max(label, id + 1);
    const std::uint32_t host = few.hostLabels.front().value;
    for (std::uint32_t k = 0; k < 600; ++k) {
        builder.beginRequest(RequestId(static_cast<std::uint32_t>(few.requestCount() + 1 + k)));
        const std::uint32_t task = label++, start = label++, end = label++;
        builder.setLabel(task, "lone-task-" + std::to_string(k));
        builder.setLabel(start, "lone-start-" + std::to_string(k));
        builder.setLabel(end, "lone-end-" + std::to_string(k));
        builder.addEvent(task, start, host, 1000);
        builder.addEvent(task, end, host, 2000 + k);
    }
    const TraceData many = builder.finish();
    const ClockOffsets& offsets = analysis().offsets;
    auto fewModel = inferModel(few, offsets, InferenceOptions{});
    auto manyModel = inferModel(many, offsets, InferenceOptions{});
    ASSERT_TRUE(fewModel && manyModel);
    ASSERT_LE(fewModel.value().typeCount(), 512u);
    ASSERT_GT(manyModel.value().typeCount(), 512u);
    EXPECT_EQ(inferredSets(few, fewModel.value()).happensBefore, inferredSets(many, manyModel.value()).happensBefore);
    RequestDagBuilder fewGraphs(fewModel.value(), few), manyGraphs(manyModel.value(), many);
    RequestDag a, b;
    std::size_t edges = 0;
    for (std::size_t r = 0; r < few.requestCount(); ++r) {
        fewGraphs.build(few.eventsOf(r), offsets, a);
        manyGraphs.build(many.eventsOf(r), offsets, b);
        ASSERT_EQ(a.segments.size(), b.segments.size()) << "request " << r;
        ASSERT_EQ(a.edges.size(), b.edges.size()) << "request " << r;
        for (std::size_t k = 0; k < a.edges.size(); ++k) {
            EXPECT_EQ(a.edges[k].from, b.edges[k].from) << "request " << r;
            EXPECT_EQ(a.edges[k].to, b.edges[k].to) << "request " << r;
            EXPECT_EQ(a.edges[k].kind, b.edges[k].kind) << "request " << r;
        }
        edges += a.edges.size();
    }
    EXPECT_GT(edges, 10 * few.requestCount());  // graphs with inferred edges, not chains alone
}

TEST(AnalysisTruth, SkewEstimatesAreOffByExactlyTheRoundTripAsymmetry) {
    // On true clocks, each pair's chosen estimate is (up - down) / 2: precisely the error the same
    // round trip (chosen by RTT, which no clock offset changes) makes on skewed clocks.
    samples::GeneratorOptions options;
    options.seed = 2;
    options.requests = 3000;
    const PageLoadGenerator gen(options);
    const auto skewed = test::generateTraces(gen, 3000, false);
    const auto trueClock = test::generateTraces(gen, 3000, true);
    const SkewEstimates local = collectSkewEstimates(skewed.data, 2);
    const SkewEstimates asymmetry = collectSkewEstimates(trueClock.data, 2);
    ASSERT_EQ(local.pairs().size(), asymmetry.pairs().size());
    auto generatorHost = [&](const test::GeneratedTraces& t, std::uint32_t dense) {
        return t.hostOfLabel.at(t.data.hostLabels[dense].value);
    };
    TimeNs largest = 0;
    for (const auto& [key, estimate] : local.pairs()) {
        const auto a = generatorHost(skewed, static_cast<std::uint32_t>(key >> 32));
        const auto b = generatorHost(skewed, static_cast<std::uint32_t>(key & 0xFFFFFFFF));
        const TimeNs trueSkew = gen.clockOffsetNs(b) - gen.clockOffsetNs(a);
        // Same host numbering in both (same generation order), so the same key. Exact to the ns but for
        // the halving of an odd round trip.
        ASSERT_TRUE(asymmetry.find(key));
        const auto& err = *asymmetry.find(key);
        EXPECT_EQ(estimate.rttNs, err.rttNs);
        EXPECT_LE(std::abs(estimate.offsetNs - trueSkew - err.offsetNs), 1);
        largest = std::max<TimeNs>(largest, std::abs(err.offsetNs));
    }
    std::printf("  largest pair error |up-down|/2 = %.3f us over %zu host pairs\n", nsToUs(largest), local.pairs().size());

    // Offsets of hosts seconds apart come out within the summed asymmetry of their tree path.
    const ClockOffsets offsets = solveClockOffsets(local, skewed.data.hostLabels.size());
    std::size_t corrected = 0;
    for (std::size_t h = 0; h < offsets.offsetNs.size(); ++h) {
        if (offsets.parent[h] < 0) continue;
        ++corrected;
        TimeNs bound = 0;
        std::size_t root = h;
        for (std::int32_t v = static_cast<std::int32_t>(h); offsets.parent[v] >= 0; v = offsets.parent[v]) {
            ++bound;  // each hop's RTT/2 may round by a nanosecond
            const auto p = static_cast<std::uint32_t>(offsets.parent[v]);
            const std::uint64_t down = (std::uint64_t(p) << 32) | static_cast<std::uint32_t>(v);
            const std::uint64_t up = (std::uint64_t(static_cast<std::uint32_t>(v)) << 32) | p;
            const SkewEstimate* pair = asymmetry.find(down) ? asymmetry.find(down) : asymmetry.find(up);
            ASSERT_TRUE(pair);
            bound += std::abs(pair->offsetNs);
            root = p;
        }
        const TimeNs trueRelative = gen.clockOffsetNs(generatorHost(skewed, static_cast<std::uint32_t>(h))) -
                                    gen.clockOffsetNs(generatorHost(skewed, static_cast<std::uint32_t>(root)));
        EXPECT_LE(std::abs(offsets.offsetNs[h] - offsets.offsetNs[root] - trueRelative), bound);
        EXPECT_NE(trueRelative, 0);
    }
    EXPECT_EQ(corrected + 1, skewed.data.hostLabels.size()) << "every host but the reference is corrected";
}

TEST(AnalysisTruth, LatencyAfterCorrectionMatchesTrueTime) {
    const auto& t = traces();
    const auto& a = analysis();
    std::vector<SegmentInstance> segs;
    for (std::size_t r = 0; r < t.data.requestCount(); ++r) {
        const RequestSpan span = buildSegments(t.data.eventsOf(r), a.offsets, segs);
        // First and last events are both on the client: no skew error can enter the latency.
        ASSERT_EQ(span.endNs - span.startNs, t.truth[r].latencyNs) << "request " << r;
    }
}

TEST(AnalysisTruth, CriticalPathsAndSlackMatchTheTruth) {
    const auto& t = traces();
    const auto& a = analysis();
    RequestDagBuilder builder(a.model, t.data);
    RequestDag dag;
    std::size_t pathMatches = 0, blindExact = 0, slackExact = 0, slacks = 0;
    TimeNs worstSlackError = 0;
    for (std::size_t r = 0; r < t.data.requestCount(); ++r) {
        const auto& truth = t.truth[r];
        builder.build(t.data.eventsOf(r), a.offsets, dag);
        const CriticalPath cp = computeCriticalPath(dag);
        ASSERT_EQ(cp.latencyNs, truth.latencyNs);
        std::vector<std::string> inferredPath, truePath;
        for (auto v : cp.segments) inferredPath.push_back(t.data.segmentName(dag.segments[v].type));
        for (int v : truth.criticalPath) truePath.push_back(PageLoadGenerator::segmentLabel(truth.segments[v]));
        pathMatches += inferredPath == truePath;
        if (r < 200) {
            EXPECT_EQ(inferredPath, truePath) << "request " << r;
        }
        // Exact to the nanosecond: the path's hops between hosts are network segments, whose skew errors
        // cancel along it, so the blind time is free of them.
        if (inferredPath == truePath) {
            EXPECT_EQ(cp.blindNs, truth.blindNs) << "request " << r;
            blindExact += cp.blindNs == truth.blindNs;
        }

        // Slack, segment by segment (segments are matched by type), to the nanosecond.
        std::map<std::string, std::int64_t> trueSlack;
        for (std::size_t s = 0; s < truth.segments.size(); ++s) trueSlack[PageLoadGenerator::segmentLabel(truth.segments[s])] = truth.slackNs[s];
        const std::vector<TimeNs> slack = computeSlack(dag);
        ASSERT_EQ(slack.size(), truth.segments.size());
        for (std::size_t s = 0; s < slack.size(); ++s) {
            const TimeNs error = std::abs(slack[s] - trueSlack.at(t.data.segmentName(dag.segments[s].type)));
            if (r < 2000) {
                EXPECT_EQ(error, 0) << "request " << r << " segment " << t.data.segmentName(dag.segments[s].type);
            }
            worstSlackError = std::max(worstSlackError, error);
            slackExact += error == 0;
            ++slacks;
        }
    }
    const double pathShare = double(pathMatches) / double(t.data.requestCount());
    std::printf("  critical path equals the true one in %.2f%% of %zu requests, its blind time exact in %zu; "
                "%zu of %zu segment slacks exact, worst error %.3f us\n",
                100 * pathShare, t.data.requestCount(), blindExact, slackExact, slacks, nsToUs(worstSlackError));
    EXPECT_GE(pathShare, 0.995);
    EXPECT_GE(double(slackExact), 0.995 * double(slacks));
}

// On the true clocks (no skew to estimate), the engine's dependency graphs are the generator's: every
// request's latency, critical path, blind time and every segment's slack equal the truth to the nanosecond.
TEST(AnalysisTruth, OnTrueClocksBlindTimeAndEverySlackAreExact) {
    samples::GeneratorOptions options;
    options.seed = 2;
    options.requests = kRequests;
    const auto t = test::generateTraces(PageLoadGenerator(options), kRequests, true);
    const ClockOffsets none = ClockOffsets::none(t.data.hostLabels.size());
    auto model = inferModel(t.data, none, InferenceOptions{});
    ASSERT_TRUE(model);
    RequestDagBuilder builder(model.value(), t.data);
    RequestDag dag;
    std::size_t subMicrosecond = 0, checked = 0;
    for (std::size_t r = 0; r < t.data.requestCount(); ++r) {
        const auto& truth = t.truth[r];
        builder.build(t.data.eventsOf(r), none, dag);
        const CriticalPath cp = computeCriticalPath(dag);
        ASSERT_EQ(cp.latencyNs, truth.latencyNs) << "request " << r;
        std::vector<std::string> inferredPath, truePath;
        for (auto v : cp.segments) inferredPath.push_back(t.data.segmentName(dag.segments[v].type));
        for (int v : truth.criticalPath) truePath.push_back(PageLoadGenerator::segmentLabel(truth.segments[v]));
        ASSERT_EQ(inferredPath, truePath) << "request " << r;
        ASSERT_EQ(cp.blindNs, truth.blindNs) << "request " << r;
        subMicrosecond += truth.blindNs % 1000 != 0;
        std::map<std::string, std::int64_t> trueSlack;
        for (std::size_t s = 0; s < truth.segments.size(); ++s) trueSlack[PageLoadGenerator::segmentLabel(truth.segments[s])] = truth.slackNs[s];
        const std::vector<TimeNs> slack = computeSlack(dag);
        ASSERT_EQ(slack.size(), truth.segments.size());
        for (std::size_t s = 0; s < slack.size(); ++s) {
            ASSERT_EQ(slack[s], trueSlack.at(t.data.segmentName(dag.segments[s].type)))
                << "request " << r << " segment " << t.data.segmentName(dag.segments[s].type);
            ++checked;
        }
    }
    // The generator's times have sub-microsecond parts, so this is exactness, not rounding luck.
    EXPECT_GT(subMicrosecond, t.data.requestCount() * 9 / 10);
    EXPECT_GT(checked, 20u * t.data.requestCount());
}
