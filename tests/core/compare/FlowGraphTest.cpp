// The flow graphs of a comparison entry (side by side and diff views), on the storage generator's truth:
// metadata writes sent to another node change the structure; a spin loop in storage-node writes changes
// the latency of one segment only.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "TestUtil.h"
#include "generator/StorageGenerator.h"
#include "tracelight/analysis/RequestPass.h"
#include "tracelight/compare/FlowGraph.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

using namespace tracelight;
using namespace tracelight::samples;

namespace {

struct Compared {
    std::unique_ptr<TraceStore> store;
    InMemoryAnalysis analysis;
    PeriodComparison pc;
};

Compared compareStorage(const test::ScratchDir& dir, StorageChange change, std::int64_t n) {
    StorageOptions o;
    o.seed = 4;
    o.requests = n;
    o.change = change;
    const StorageGenerator g(o);
    Compared out;
    auto store = TraceStore::open(dir.file("s.tldb"), TraceStore::Mode::Create);
    EXPECT_TRUE(store) << store.message();
    out.store = std::move(store.value());
    for (StoragePeriod period : {StoragePeriod::Baseline, StoragePeriod::Problem}) {
        std::string csv = StorageGenerator::csvHeader();
        for (std::int64_t i = 0; i < n; ++i) g.appendCsv(g.generate(period, i), csv);
        ImportOptions options;
        options.inputs = {dir.write(std::string(storagePeriodName(period)) + ".csv", csv)};
        options.period = std::string(storagePeriodName(period));
        EXPECT_TRUE(importTraces(*out.store, options));
    }
    EXPECT_TRUE(analyzeStore(*out.store, AnalysisOptions{}));
    auto analysis = loadAnalysis(*out.store);
    EXPECT_TRUE(analysis) << analysis.message();
    out.analysis = std::move(analysis.value());
    auto pc = comparePeriods(*out.store, out.analysis, "baseline", "problem", CompareOptions{});
    EXPECT_TRUE(pc) << pc.message();
    out.pc = std::move(pc.value());
    return out;
}

// Every edge joins two nodes of the side it belongs to; every node belongs to a side.
void expectConsistent(const FlowGraphPair& g) {
    for (const FlowNode& n : g.nodes) EXPECT_TRUE(n.inFirst || n.inSecond) << n.label;
    for (const FlowEdge& e : g.edges) {
        ASSERT_LT(e.from, g.nodes.size());
        ASSERT_LT(e.to, g.nodes.size());
        if (e.inFirst) { EXPECT_TRUE(g.nodes[e.from].inFirst && g.nodes[e.to].inFirst); }
        if (e.inSecond) { EXPECT_TRUE(g.nodes[e.from].inSecond && g.nodes[e.to].inSecond); }
    }
}

} // namespace

TEST(FlowGraph, AStructuralMutationAgainstItsPrecursorShowsWhatMoved) {
    test::ScratchDir dir;
    const Compared c = compareStorage(dir, StorageChange::MetadataOtherNode, 1500);
    const CompareEntry* structural = nullptr;
    for (const auto& e : c.pc.comparison.entries)
        if (e.kind == CompareEntry::Kind::Structural && !e.precursors.empty()) {
            structural = &e;
            break;
        }
    ASSERT_TRUE(structural);
    auto g = entryFlowGraphs(c.analysis, c.pc, *structural);
    ASSERT_TRUE(g) << g.message();
    expectConsistent(g.value());
    std::size_t onlyFirst = 0, onlySecond = 0, both = 0;
    for (const FlowNode& n : g->nodes) {
        onlyFirst += n.inFirst && !n.inSecond;
        onlySecond += n.inSecond && !n.inFirst;
        both += n.inFirst && n.inSecond;
        if (n.inFirst) { EXPECT_GT(n.firstMeanNs, 0) << n.label; }
        if (n.inSecond) { EXPECT_GT(n.secondMeanNs, 0) << n.label; }
    }
    EXPECT_GT(onlyFirst + onlySecond, 0u);  // the structures differ: that is what made it a mutation
    EXPECT_GT(both, 0u);                    // and share their root work
    EXPECT_NE(g->firstTitle.find("problem"), std::string::npos) << g->firstTitle;
    EXPECT_NE(g->secondTitle.find("precursor"), std::string::npos) << g->secondTitle;
    EXPECT_TRUE(g->firstRequest.isValid() && g->secondRequest.isValid());
}

TEST(FlowGraph, AResponseTimeMutationKeepsItsStructureAndMarksTheSlowerSegment) {
    test::ScratchDir dir;
    const Compared c = compareStorage(dir, StorageChange::Spin1ms, 1500);
    const CompareEntry* timed = nullptr;
    for (const auto& e : c.pc.comparison.entries)
        if (e.kind == CompareEntry::Kind::ResponseTime && !e.changedEdges.empty()) {
            timed = &e;
            break;
        }
    ASSERT_TRUE(timed);
    auto g = entryFlowGraphs(c.analysis, c.pc, *timed);
    ASSERT_TRUE(g) << g.message();
    expectConsistent(g.value());
    std::size_t changed = 0, slower = 0;
    for (const FlowNode& n : g->nodes) {
        EXPECT_TRUE(n.inFirst && n.inSecond) << n.label;  // one category: one structure on both sides
        if (!n.changed) continue;
        ++changed;
        // The red edges are every changed segment (some a little faster); the 1 ms spin makes one much slower.
        slower += n.firstMeanNs > n.secondMeanNs + 500000 ? 1 : 0;
    }
    EXPECT_GE(changed, 1u);
    EXPECT_GE(slower, 1u);
    for (const FlowEdge& e : g->edges) EXPECT_TRUE(e.inFirst && e.inSecond);
    // Each node's mean and variance on each side, by brute force: every walked request's k-th segment of the type.
    const auto [first, second] = entrySides(c.pc, *timed);
    const TraceData& td = c.analysis.data;
    RequestPass pass(c.analysis.model, td);
    for (const auto* side : {&first, &second}) {
        std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<double>> durations;  // (type, k) -> per request
        for (std::size_t i = 0; i < side->entries.size() && i < 2000; ++i) {
            const std::uint32_t row = c.pc.categories->rows[side->entries[i]];
            const RequestDag dag = structureGraph(pass.graph(td.eventsOf(row), c.analysis.offsets, td.linksOf(row)), c.analysis.model);
            std::vector<std::uint32_t> scratch;
            std::map<std::uint32_t, std::uint32_t> seen;
            for (std::uint32_t v : topologicalOrder(dag, scratch)) {
                const std::uint32_t type = dag.segments[v].type.value;
                durations[{type, seen[type]++}].push_back(double(dag.segments[v].durationNs()));
            }
        }
        for (const FlowNode& n : g->nodes) {
            const auto& x = durations[{n.type, n.occurrence}];
            ASSERT_GT(x.size(), 1u) << n.label;
            double mean = 0, sq = 0;
            for (double d : x) mean += d / double(x.size());
            for (double d : x) sq += (d - mean) * (d - mean);
            const double variance = sq / double(x.size() - 1);
            EXPECT_NEAR(side == &first ? n.firstMeanNs : n.secondMeanNs, mean, 1e-6 * mean + 1e-6) << n.label;
            EXPECT_NEAR(side == &first ? n.firstVarianceNs2 : n.secondVarianceNs2, variance, 1e-6 * variance + 1e-3) << n.label;
        }
    }
}

// Spectroscope "allows developers to pick a mutation category and candidate precursor category": the side by
// side, the diff, the swim lanes' representative and the regression tree then use the candidate picked; a
// category that is no candidate is refused, naming the candidates.
TEST(FlowGraph, TheUserPicksTheCandidatePrecursorTheEntryIsComparedWith) {
    test::ScratchDir dir;
    const Compared c = compareStorage(dir, StorageChange::MetadataOtherNode, 1500);
    const Comparison& cmp = c.pc.comparison;
    const CompareEntry* structural = nullptr;
    for (const auto& e : cmp.entries)
        if (e.kind == CompareEntry::Kind::Structural && e.precursors.size() >= 2) {
            structural = &e;
            break;
        }
    ASSERT_TRUE(structural) << "no structural mutation with two candidate precursors";
    CompareEntry e = *structural;
    EXPECT_EQ(e.comparedPrecursor(), &e.precursors.front());  // the closest unless the user picks another
    const ComparedCategory& picked = cmp.categories[e.precursors[1].category];
    ASSERT_TRUE(choosePrecursor(cmp, e, picked.id));
    ASSERT_EQ(e.comparedPrecursor(), &e.precursors[1]);
    const auto sides = entrySides(c.pc, e);
    EXPECT_EQ(sides.first.entries, cmp.categories[e.category].problemEntries);
    EXPECT_EQ(sides.second.category, e.precursors[1].category);
    EXPECT_TRUE(sides.second.baseline && sides.second.precursor);
    EXPECT_EQ(sides.second.entries, picked.baselineEntries);
    auto g = entryFlowGraphs(c.analysis, c.pc, e);
    ASSERT_TRUE(g) << g.message();
    expectConsistent(g.value());
    EXPECT_NE(g->secondTitle.find("category " + std::to_string(picked.id) + ","), std::string::npos) << g->secondTitle;
    bool representative = false;  // the request drawn, and shown in the swim lanes
    for (auto entry : picked.baselineEntries) representative = representative || c.pc.requestIds[entry] == g->secondRequest;
    EXPECT_TRUE(representative);
    // The precursors differ in structure, so the picked one's graph is not the closest one's.
    auto closest = entryFlowGraphs(c.analysis, c.pc, *structural);
    ASSERT_TRUE(closest);
    EXPECT_NE(closest->secondRequest, g->secondRequest);
    // Each side's edge latencies cover its requests' critical paths: means times counts add up to their latencies.
    double edgeTime = 0, latency = 0;
    for (const EdgeStats& s : g->secondEdges) edgeTime += s.stats.meanNs * double(s.stats.count);
    for (auto entry : picked.baselineEntries) latency += double(c.pc.categories->latencyNs[entry]);
    EXPECT_NEAR(edgeTime, latency, 1e-6 * latency + 1);
    // The tree: the mutation's problem-period requests against the picked precursor's baseline requests.
    const RegressionTree tree = explainEntry(*c.store, c.pc, e, {});
    EXPECT_EQ(tree.classNames[0], "precursor");
    EXPECT_DOUBLE_EQ(tree.root.counts[0], double(std::min(picked.baselineEntries.size(), kTreeRowsPerClass)));
    EXPECT_DOUBLE_EQ(tree.root.counts[1], double(std::min(cmp.categories[e.category].problemEntries.size(), kTreeRowsPerClass)));
    // Not a candidate (the mutation itself): refused, naming the candidates; the choice stays.
    CompareEntry other = *structural;
    const Status refused = choosePrecursor(cmp, other, cmp.categories[structural->category].id);
    EXPECT_FALSE(refused);
    EXPECT_NE(refused.message().find("its candidates: " + std::to_string(cmp.categories[structural->precursors[0].category].id) + ", "),
              std::string::npos)
        << refused.message();
    EXPECT_EQ(other.chosenPrecursor, 0u);
}

// Any category can be drawn, ranked or not (Spectroscope shows categories as graphs with their statistics per
// period): as its response-time view, its problem-period requests against its baseline ones, and a category with
// requests in one period only has that side alone.
TEST(FlowGraph, AnyCategoryIsDrawnWithTheSideItHas) {
    test::ScratchDir dir;
    const Compared c = compareStorage(dir, StorageChange::MetadataOtherNode, 1500);
    const Comparison& cmp = c.pc.comparison;
    std::size_t drawn = 0;
    for (std::uint32_t i = 0; i < cmp.categories.size(); ++i) {
        const ComparedCategory& cc = cmp.categories[i];
        CompareEntry view;
        view.category = i;
        auto g = entryFlowGraphs(c.analysis, c.pc, view);
        ASSERT_TRUE(g) << "category " << cc.id << ": " << g.message();
        expectConsistent(g.value());
        bool first = false, second = false;
        for (const FlowNode& n : g->nodes) first = first || n.inFirst, second = second || n.inSecond;
        EXPECT_EQ(first, cc.problem.count > 0) << cc.id;
        EXPECT_EQ(second, cc.baseline.count > 0) << cc.id;
        EXPECT_EQ(g->firstRequest.isValid(), cc.problem.count > 0);
        EXPECT_EQ(g->secondRequest.isValid(), cc.baseline.count > 0);
        if (cc.problem.count == 0) { EXPECT_EQ(g->firstTitle, "no problem-period requests of this structure"); }
        // Each side's edges: the category's own statistics in that period.
        const auto both = categoryEdgeStatistics(*c.pc.categories, cc);
        std::size_t withBaseline = 0;
        for (const auto& e : both) withBaseline += e.baseline.count > 0;
        EXPECT_EQ(g->secondEdges.size(), withBaseline);
        ++drawn;
    }
    EXPECT_EQ(drawn, cmp.categories.size());
    bool oneSided = false;
    for (const auto& cc : cmp.categories) oneSided = oneSided || cc.problem.count == 0 || cc.baseline.count == 0;
    EXPECT_TRUE(oneSided) << "the change leaves categories in one period only";
}
