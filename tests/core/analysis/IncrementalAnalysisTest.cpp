// Incremental analysis: a model refined with a new batch of requests equals the model inferred from every
// request at once (Mystery Machine, section 3: hypotheses are refuted by counterexamples, so the new requests
// need to meet only the hypotheses that survived the earlier ones), and `analyze` after an import that added
// requests stores what a full analysis of the whole database stores, byte for byte.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

#include "core/GeneratedTraces.h"
#include "core/OnlineBoutiqueStore.h"
#include "StoreAccess.h"
#include "TestUtil.h"
#include "generator/PageLoadGenerator.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/ModelInference.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

namespace {

InferenceOptions twoThreads() {
    InferenceOptions o;
    o.threads = 2;
    return o;
}

// The model of data's first `split` requests refined with the rest, as the state refinement keeps.
std::string refinedState(const TraceData& first, const TraceData& all, const ClockOffsets& offsets, std::size_t split) {
    auto prior = inferModel(first, offsets, twoThreads());
    EXPECT_TRUE(prior) << prior.message();
    if (!prior) return {};
    EXPECT_EQ(first.requestCount(), split);
    // As an analysis stores it and the next one reads it back.
    auto stored = CausalModel::deserializeState(prior->serializeState());
    EXPECT_TRUE(stored) << stored.message();
    if (!stored) return {};
    auto refined = refineModel(stored.value(), all, offsets, split, twoThreads());
    EXPECT_TRUE(refined) << refined.message();
    if (!refined) return {};
    EXPECT_TRUE(refined->model.has_value()) << refined->fullBecause;
    if (!refined->model) return {};
    // The model first (what the views and the per-request pass read), then the hypotheses' state beside it.
    auto scratch = inferModel(all, offsets, twoThreads());
    EXPECT_EQ(refined->model->serialize(), scratch->serialize()) << "split at " << split;
    EXPECT_EQ(refined->model->pipelineCandidates().size(), scratch->pipelineCandidates().size()) << "split at " << split;
    return refined->model->serializeState();
}

std::string scratchState(const TraceData& all, const ClockOffsets& offsets) {
    auto model = inferModel(all, offsets, twoThreads());
    EXPECT_TRUE(model) << model.message();
    return model ? model->serializeState() : std::string();
}

// Enum labels for a small event log on one host (no clock correction), built request by request.
enum Label : std::uint32_t { Host = 1, Fetch, Render, FStart, FEnd, RStart, REnd };

// Requests where fetch's segment comes before render's, but the first `overlapping` of them overlap.
TraceData fetchThenRender(int requests, int overlapping) {
    TraceDataBuilder b;
    b.setLabel(Host, "host");
    b.setLabel(Fetch, "fetch");
    b.setLabel(Render, "render");
    b.setLabel(FStart, "F_START");
    b.setLabel(FEnd, "F_END");
    b.setLabel(RStart, "R_START");
    b.setLabel(REnd, "R_END");
    for (int r = 0; r < requests; ++r) {
        b.beginRequest(RequestId(static_cast<std::uint32_t>(r + 1)));
        const std::int64_t t = 10'000 * r;
        b.addEvent(Fetch, FStart, Host, t);
        b.addEvent(Fetch, FEnd, Host, t + 100);
        const std::int64_t renderStart = r < overlapping ? t + 50 : t + 150;
        b.addEvent(Render, RStart, Host, renderStart);
        b.addEvent(Render, REnd, Host, renderStart + 100);
    }
    return b.finish();
}

} // namespace

TEST(ModelRefinement, PageLoadsRefinedBatchByBatchEqualTheModelOfAllAtOnce) {
    samples::GeneratorOptions options;
    options.seed = 21;
    options.requests = 700;
    const samples::PageLoadGenerator gen(options);
    const TraceData all = test::generateTraces(gen, 700).data;
    const ClockOffsets offsets = ClockOffsets::none(all.hostLabels.size());
    const std::string expected = scratchState(all, offsets);
    ASSERT_FALSE(expected.empty());
    // A split before any relation is confirmed, on a convergence checkpoint, between checkpoints, near the end.
    for (std::size_t split : {3u, 50u, 333u, 699u}) {
        const TraceData first = test::generateTraces(gen, static_cast<std::int64_t>(split)).data;
        ASSERT_LE(first.segmentTypes.size(), all.segmentTypes.size());
        EXPECT_EQ(refinedState(first, all, offsets, split), expected) << "split at " << split;
    }
}

TEST(ModelRefinement, PipelinesFoundInALaterBatchAreTestedAgainstEveryRequest) {
    // One producer task and one consumer in FIFO order: the pipeline hypotheses exist only once their links
    // are confirmed (support floor 10), so a split at 4 makes them all in the second batch.
    const auto build = [&](int requests) {
        TraceDataBuilder builder;
        std::mt19937 r(5);
        std::uniform_int_distribution<int> work(50, 400), net(5, 30);
        builder.setLabel(1, "host");
        builder.setLabel(2, "render");
        builder.setLabel(3, "display");
        builder.setLabel(4, "R_START");
        builder.setLabel(5, "D_START");
        for (int i = 0; i < 3; ++i) {
            builder.setLabel(100 + 2 * static_cast<std::uint32_t>(i), "produce_p" + std::to_string(i));
            builder.setLabel(101 + 2 * static_cast<std::uint32_t>(i), "show_p" + std::to_string(i));
        }
        for (int q = 0; q < requests; ++q) {
            builder.beginRequest(RequestId(static_cast<std::uint32_t>(q + 1)));
            std::vector<int> order(3);
            std::iota(order.begin(), order.end(), 0);
            std::shuffle(order.begin(), order.end(), r);
            std::int64_t t = 10'000 * q, d = t + 10;
            std::vector<std::int64_t> at(3);
            builder.addEvent(2, 4, 1, t);
            for (int item : order) builder.addEvent(2, 100 + 2 * static_cast<std::uint32_t>(item), 1, at[item] = t += work(r));
            builder.addEvent(3, 5, 1, d);
            for (int item : order) builder.addEvent(3, 101 + 2 * static_cast<std::uint32_t>(item), 1, d = std::max(d + 20, at[item] + net(r)));
        }
        return builder.finish();
    };
    const TraceData all = build(400);
    const ClockOffsets offsets = ClockOffsets::none(all.hostLabels.size());
    auto scratch = inferModel(all, offsets, twoThreads());
    ASSERT_TRUE(scratch);
    ASSERT_FALSE(scratch->pipelines().empty()) << "the workload has no pipeline to find";
    for (std::size_t split : {4u, 200u}) EXPECT_EQ(refinedState(build(static_cast<int>(split)), all, offsets, split), scratch->serializeState());
}

TEST(ModelRefinement, AHypothesisRefutedInAnEarlierBatchStaysRefuted) {
    // The first request overlaps fetch and render; the 40 after it keep fetch before render.
    const TraceData all = fetchThenRender(41, 1);
    const ClockOffsets offsets = ClockOffsets::none(all.hostLabels.size());
    const SegmentTypeId fetch(0), render(1);
    ASSERT_EQ(all.segmentName(fetch), "fetch:F_START->F_END");
    ASSERT_EQ(all.segmentName(render), "render:R_START->R_END");
    // The later requests alone would confirm fetch -> render: the test means something.
    auto laterOnly = inferModel(fetchThenRender(40, 0), offsets, InferenceOptions{});
    ASSERT_TRUE(laterOnly);
    EXPECT_TRUE(laterOnly->happensBefore(fetch, render));

    auto prior = inferModel(fetchThenRender(1, 1), offsets, InferenceOptions{});
    ASSERT_TRUE(prior);
    EXPECT_FALSE(prior->happensBefore(fetch, render, false));
    auto refined = refineModel(prior.value(), all, offsets, 1, InferenceOptions{});
    ASSERT_TRUE(refined && refined->model) << (refined ? refined->fullBecause : refined.message());
    EXPECT_FALSE(refined->model->happensBefore(fetch, render, false));
    EXPECT_EQ(refined->model->support(fetch, render), 41);
    EXPECT_EQ(refined->model->requestsAnalysed(), 41);
}

TEST(ModelRefinement, RefusesWhatItCannotRefineExactly) {
    const TraceData all = fetchThenRender(20, 0);
    const ClockOffsets offsets = ClockOffsets::none(all.hostLabels.size());
    auto prior = inferModel(fetchThenRender(10, 0), offsets, InferenceOptions{});
    ASSERT_TRUE(prior);
    InferenceOptions otherFloor;
    otherFloor.supportFloor = 3;
    auto refused = refineModel(prior.value(), all, offsets, 10, otherFloor);
    ASSERT_TRUE(refused);
    EXPECT_FALSE(refused->model);
    EXPECT_FALSE(refused->fullBecause.empty());
    auto wrongSplit = refineModel(prior.value(), all, offsets, 12, InferenceOptions{});
    ASSERT_TRUE(wrongSplit);
    EXPECT_FALSE(wrongSplit->model);
}

namespace {

// Every cached result of a store, byte for byte: the per-request results, the requests' adjusted times, the
// clocks and every named result (model, segment statistics, the state refinement starts from).
std::vector<std::string> storedAnalysis(const TraceStore& store) {
    std::vector<std::string> out;
    for (const char* sql : {"SELECT request_id, latency_ns, blind_ns, hex(data) FROM request_analysis ORDER BY request_id",
                            "SELECT id, name, start_ns, latency_ns FROM requests ORDER BY id",
                            "SELECT * FROM clock_offsets ORDER BY host_id",
                            "SELECT * FROM clock_pairs ORDER BY client_host_id, server_host_id",
                            "SELECT name, analysis_version, params, hex(data) FROM results ORDER BY name"})
        for (auto& row : test::StoreAccess::rows(store, sql)) out.push_back(std::move(row));
    return out;
}

// The rows of a spans CSV (header first) split by trace: the first `firstTraces` traces, and the rest.
std::pair<std::string, std::string> splitSpanCsv(const std::string& path, std::size_t firstTraces) {
    std::ifstream in(path);
    std::string header, line;
    std::getline(in, header);
    std::vector<std::string> order;
    std::map<std::string, std::string> rows;
    while (std::getline(in, line)) {
        const std::string trace = line.substr(0, line.find(','));
        if (!rows.count(trace)) order.push_back(trace);
        rows[trace] += line + "\n";
    }
    std::string a = header + "\n", b = header + "\n";
    for (std::size_t i = 0; i < order.size(); ++i) (i < firstTraces ? a : b) += rows[order[i]];
    return {a, b};
}

// The first row where two stores' results differ, for a readable failure.
// Page loads [from, to) of the generator as an events CSV on the hosts' own (skewed) clocks.
std::string pageLoadCsv(const samples::PageLoadGenerator& gen, std::int64_t from, std::int64_t to) {
    std::ostringstream out;
    out << "request,host,task,event,ts_us,seq\n";
    for (std::int64_t i = from; i < to; ++i) {
        const auto r = gen.generate(i);
        for (const auto& e : r.events)
            out << r.name << ',' << gen.hostName(e.host) << ',' << samples::PageLoadGenerator::taskNames()[e.task] << ','
                << samples::PageLoadGenerator::eventNames()[e.event] << ',' << formatMicroseconds(e.trueNs + gen.clockOffsetNs(e.host))
                << ',' << e.seq << '\n';
    }
    return out.str();
}

std::string firstDifference(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::string names;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        if (a[i] != b[i]) names += a[i].substr(0, 20) + "; ";
    if (!names.empty()) std::cerr << "rows that differ: " << names << "\n";
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        if (a[i] != b[i]) {
            std::size_t at = 0;
            while (at < std::min(a[i].size(), b[i].size()) && a[i][at] == b[i][at]) ++at;
            const std::size_t from = at > 60 ? at - 60 : 0;
            return "row " + std::to_string(i) + " (" + a[i].substr(0, 30) + "), from character " + std::to_string(from) + " of " +
                   std::to_string(a[i].size()) + ":\n" + a[i].substr(from, 200) + "\n" + b[i].substr(from, 200);
        }
    return a.size() == b.size() ? std::string() : "rows " + std::to_string(a.size()) + " and " + std::to_string(b.size());
}

Result<AnalysisSummary> importAndAnalyse(TraceStore& store, const std::string& file, const std::string& period) {
    ImportOptions import;
    import.inputs = {file};
    import.period = period;
    if (auto imported = importTraces(store, import); !imported) return imported.status();
    return analyzeStore(store, AnalysisOptions{});
}

} // namespace

TEST(IncrementalAnalysis, RealSpansInTwoBatchesStoreWhatOneAnalysisOfBothStores) {
    if (!test::haveOnlineBoutique()) GTEST_SKIP() << "no shared real data";
    test::ScratchDir dir;
    // The minute's last 22 traces come after the first 480: a capture's round. (An earlier split makes the analysis
    // full: the later traces' round trips still move a host pair's clock offset.)
    const auto [first, second] = splitSpanCsv(test::kOnlineBoutique + test::kObNormalMinute, 480);
    std::ofstream(dir.file("a.csv")) << first;
    std::ofstream(dir.file("b.csv")) << second;

    auto incremental = TraceStore::open(dir.file("incremental.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(incremental);
    auto a = importAndAnalyse(*incremental.value(), dir.file("a.csv"), "first");
    ASSERT_TRUE(a) << a.message();
    EXPECT_FALSE(a->incremental);
    EXPECT_EQ(a->derivedRequests, 480);
    auto b = importAndAnalyse(*incremental.value(), dir.file("b.csv"), "second");
    ASSERT_TRUE(b) << b.message();
    EXPECT_TRUE(b->incremental) << b->fullBecause;
    const std::int64_t added = b->requests - 480;
    ASSERT_GT(added, 0);
    // Only the new requests met the hypotheses; the pass ran on them and on the earlier ones the refined
    // model's new or lost relations reach, never on all.
    EXPECT_EQ(b->inferredRequests, added);
    EXPECT_GE(b->derivedRequests, added);
    EXPECT_LT(b->derivedRequests, b->requests);

    auto whole = TraceStore::open(dir.file("whole.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(whole);
    for (const auto& [file, period] : {std::pair{"a.csv", "first"}, std::pair{"b.csv", "second"}}) {
        ImportOptions import;
        import.inputs = {dir.file(file)};
        import.period = period;
        ASSERT_TRUE(importTraces(*whole.value(), import));
    }
    auto once = analyzeStore(*whole.value(), AnalysisOptions{});
    ASSERT_TRUE(once) << once.message();
    EXPECT_FALSE(once->incremental);
    EXPECT_EQ(once->derivedRequests, once->requests);
    EXPECT_EQ(firstDifference(storedAnalysis(*incremental.value()), storedAnalysis(*whole.value())), "");

    // Nothing new: nothing is inferred or derived again, and the results stay as they are.
    auto again = analyzeStore(*incremental.value(), AnalysisOptions{});
    ASSERT_TRUE(again) << again.message();
    EXPECT_TRUE(again->incremental);
    EXPECT_EQ(again->inferredRequests, 0);
    EXPECT_EQ(again->derivedRequests, 0);
    EXPECT_EQ(firstDifference(storedAnalysis(*incremental.value()), storedAnalysis(*whole.value())), "");
}

TEST(IncrementalAnalysis, GeneratedPageLoadsInBatchesStoreWhatOneAnalysisStores) {
    // Event logs on skewed clocks: a batch that moves a host's offset makes the analysis full, one that does
    // not refines; either way the stored results equal one analysis of everything.
    samples::GeneratorOptions options;
    options.seed = 8;
    options.requests = 900;
    const samples::PageLoadGenerator gen(options);
    test::ScratchDir dir;
    const auto csvOf = [&](std::int64_t from, std::int64_t to) { return pageLoadCsv(gen, from, to); };
    // Five requests after 700 move no clock: that batch refines.
    const std::vector<std::int64_t> cuts = {0, 400, 700, 705, 900};
    int refined = 0;
    auto batches = TraceStore::open(dir.file("batches.tldb"), TraceStore::Mode::Create);
    auto whole = TraceStore::open(dir.file("whole.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(batches && whole);
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
        const std::string file = dir.file("batch" + std::to_string(i) + ".csv");
        std::ofstream(file) << csvOf(cuts[i], cuts[i + 1]);
        auto summary = importAndAnalyse(*batches.value(), file, "batch" + std::to_string(i));
        ASSERT_TRUE(summary) << summary.message();
        EXPECT_EQ(summary->requests, cuts[i + 1]);
        if (summary->incremental) EXPECT_EQ(summary->inferredRequests, cuts[i + 1] - cuts[i]);
        else EXPECT_FALSE(summary->fullBecause.empty());
        refined += summary->incremental ? 1 : 0;
        ImportOptions import;
        import.inputs = {file};
        import.period = "batch" + std::to_string(i);
        ASSERT_TRUE(importTraces(*whole.value(), import));
    }
    EXPECT_GE(refined, 1);
    ASSERT_TRUE(analyzeStore(*whole.value(), AnalysisOptions{}));
    EXPECT_EQ(firstDifference(storedAnalysis(*batches.value()), storedAnalysis(*whole.value())), "");
}

// Two analyses of one database at once (serve --analyze-every and an analyze, say): the one that comes to write
// after the other stored its results finds them, and starts again from them instead of storing over them.
TEST(IncrementalAnalysis, AnAnalysisThatFindsAnothersResultsStartsAgainFromThem) {
    samples::GeneratorOptions options;
    options.seed = 8;
    options.requests = 705;
    const samples::PageLoadGenerator gen(options);
    test::ScratchDir dir;
    const auto csvOf = [&](std::int64_t from, std::int64_t to) { return pageLoadCsv(gen, from, to); };
    std::ofstream(dir.file("first.csv")) << csvOf(0, 700);
    std::ofstream(dir.file("more.csv")) << csvOf(700, 705);
    auto store = TraceStore::open(dir.file("s.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store);
    ASSERT_TRUE(importAndAnalyse(*store.value(), dir.file("first.csv"), "first"));
    ImportOptions import;
    import.inputs = {dir.file("more.csv")};
    ASSERT_TRUE(importTraces(*store.value(), import));

    auto other = TraceStore::open(dir.file("s.tldb"), TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(other);
    bool overtaken = false;
    const ProgressSink progress = [&](double, std::string_view stage) {
        if (stage != "writing results" || overtaken) return;
        overtaken = true;  // the other connection analyses and writes first
        auto first = analyzeStore(*other.value(), AnalysisOptions{});
        ASSERT_TRUE(first) << first.message();
        EXPECT_TRUE(first->incremental) << first->fullBecause;
        EXPECT_EQ(first->inferredRequests, 5);
    };
    auto summary = analyzeStore(*store.value(), AnalysisOptions{}, &progress);
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_TRUE(overtaken);
    // Started again from what the other stored: nothing left to infer or derive.
    EXPECT_TRUE(summary->incremental);
    EXPECT_EQ(summary->inferredRequests, 0);
    EXPECT_EQ(summary->derivedRequests, 0);
    const auto stored = storedAnalysis(*store.value());
    AnalysisOptions full;
    full.full = true;
    ASSERT_TRUE(analyzeStore(*store.value(), full));
    EXPECT_EQ(firstDifference(stored, storedAnalysis(*store.value())), "");
}
