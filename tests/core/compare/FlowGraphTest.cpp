// The flow graphs of a comparison entry (side by side and diff views), on the storage generator's truth:
// metadata writes sent to another node change the structure; a spin loop in storage-node writes changes
// the latency of one segment only.
#include <gtest/gtest.h>

#include <fstream>

#include "TestUtil.h"
#include "generator/StorageGenerator.h"
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
}
