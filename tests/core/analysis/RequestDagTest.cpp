// The per-request graph stays linear in the request: no n x n reachability, implied edges removed.
#include <gtest/gtest.h>

#include "tracelight/analysis/CriticalPath.h"
#include "tracelight/analysis/RequestDag.h"
#include "tracelight/analysis/Slack.h"

using namespace tracelight;

namespace {

// n segments of 10 time units one after another (one task), plus an edge from the first to every other
// one: all of those are implied by the chain.
RequestDag chainWithFanOut(std::uint32_t n) {
    RequestDag dag;
    dag.segments.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        SegmentInstance& s = dag.segments[i];
        s.type = SegmentTypeId(i);
        s.startNs = 10 * TimeNs{i};
        s.endNs = 10 * TimeNs{i + 1};
        s.task = 1;
        s.network = false;
    }
    dag.startNs = 0;
    dag.endNs = 10 * TimeNs{n};
    std::vector<DagEdge> edges;
    for (std::uint32_t i = 0; i + 1 < n; ++i) edges.push_back({i, i + 1, EdgeKind::TaskOrder});
    for (std::uint32_t i = 2; i < n; ++i) edges.push_back({0, i, EdgeKind::HappensBefore});
    RequestDagBuilder::finish(dag, std::move(edges));
    return dag;
}

} // namespace

TEST(RequestDag, AQuarterMillionSegmentRequestReducesToItsChain) {
    // The reduction used an n x n bitset: 7.8 GB for this request.
    constexpr std::uint32_t n = 250'000;
    const RequestDag dag = chainWithFanOut(n);
    ASSERT_EQ(dag.edges.size(), n - 1);
    for (const DagEdge& e : dag.edges) {
        EXPECT_EQ(e.to, e.from + 1);
        EXPECT_EQ(e.kind, EdgeKind::TaskOrder);
    }
    const CriticalPath cp = computeCriticalPath(dag);
    EXPECT_EQ(cp.segments.size(), n);
    EXPECT_EQ(cp.blindNs, 0);
    const auto slack = computeSlack(dag);
    for (TimeNs s : slack) ASSERT_EQ(s, 0);
}

TEST(RequestDag, AHostileGraphKeepsItsEdgesWhenTheSearchBudgetRunsOut) {
    // Every segment depends on every earlier one: n^2/2 edges, nearly all implied. The reduction may stop
    // early, but the critical path and slack must not depend on how far it got.
    constexpr std::uint32_t n = 600;
    RequestDag dag;
    dag.segments.resize(n);
    std::vector<DagEdge> edges;
    for (std::uint32_t i = 0; i < n; ++i) {
        dag.segments[i] = SegmentInstance{SegmentTypeId(i), 5 * TimeNs{i}, 5 * TimeNs{i} + 3 + TimeNs{i % 3}, i, false};
        for (std::uint32_t j = 0; j < i; ++j)
            if (dag.segments[j].endNs <= dag.segments[i].startNs) edges.push_back({j, i, EdgeKind::HappensBefore});
    }
    dag.startNs = 0;
    dag.endNs = dag.segments.back().endNs;
    RequestDagBuilder::finish(dag, std::move(edges));
    EXPECT_LT(dag.edges.size(), std::size_t{n} * n / 4);
    const CriticalPath cp = computeCriticalPath(dag);
    EXPECT_EQ(cp.latencyNs, dag.endNs);
    const auto slack = computeSlack(dag);
    for (std::uint32_t v = 0; v < n; v += 37) {
        // Brute force: growing by the slack keeps the latency, one more unit grows it.
        EXPECT_EQ(rescheduledLatency(dag, v, slack[v]), cp.latencyNs) << v;
        EXPECT_GT(rescheduledLatency(dag, v, slack[v] + 1), cp.latencyNs) << v;
    }
}
