// The per-request graph stays linear in the request: no n x n reachability, implied edges removed.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

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

TEST(RequestDag, RandomGraphsReduceLikeTheBruteForceDefinition) {
    // Kept: one edge per pair, of the strongest kind (first offered among equals), unless the target is
    // reachable through another successor. Sizes on both sides of each way of reducing (bitsets of one,
    // two and four words, the search above 256), few enough edges that the search budget never runs out.
    std::mt19937 rng(11);
    auto strength = [](EdgeKind k) { return k == EdgeKind::Link ? 0 : k == EdgeKind::TaskOrder ? 1 : 2; };
    for (int trial = 0; trial < 2400; ++trial) {
        const std::uint32_t sizes[] = {2 + static_cast<std::uint32_t>(rng() % 11), 60 + static_cast<std::uint32_t>(rng() % 10),
                                       124 + static_cast<std::uint32_t>(rng() % 10), 250 + static_cast<std::uint32_t>(rng() % 12)};
        const std::uint32_t n = trial < 2000 ? sizes[0] : sizes[1 + trial % 3];
        RequestDag dag;
        for (std::uint32_t i = 0; i < n; ++i) {
            const TimeNs start = 10 * TimeNs{i}, length = rng() % 25;  // distinct starts: time order is unique
            dag.segments.push_back(SegmentInstance{SegmentTypeId(i), start, start + length, static_cast<std::uint32_t>(rng() % 3), false});
        }
        dag.startNs = 0;
        dag.endNs = 10 * TimeNs{n} + 25;
        std::vector<DagEdge> edges;
        const std::uint32_t offered = rng() % (3 * n);
        for (std::uint32_t k = 0; k < offered; ++k) {
            // Mostly near each other (chains that imply longer edges), some far.
            const std::uint32_t a = rng() % n, b = k % 2 ? std::min(n - 1, a + 1 + static_cast<std::uint32_t>(rng() % 6)) : rng() % n;
            if (dag.segments[a].endNs <= dag.segments[b].startNs && a != b) edges.push_back({a, b, static_cast<EdgeKind>(rng() % 5)});
        }
        std::map<std::pair<std::uint32_t, std::uint32_t>, EdgeKind> best;
        for (const DagEdge& e : edges) {
            auto [it, fresh] = best.try_emplace({e.from, e.to}, e.kind);
            if (!fresh && strength(e.kind) < strength(it->second)) it->second = e.kind;
        }
        std::vector<std::vector<std::uint32_t>> out(n);
        for (const auto& [pair, kind] : best) out[pair.first].push_back(pair.second);
        std::vector<std::vector<bool>> reaches(n, std::vector<bool>(n, false));  // by a path of one edge or more
        for (std::uint32_t from = 0; from < n; ++from) {
            std::vector<std::uint32_t> stack(out[from]);
            while (!stack.empty()) {
                const std::uint32_t u = stack.back();
                stack.pop_back();
                if (reaches[from][u]) continue;
                reaches[from][u] = true;
                stack.insert(stack.end(), out[u].begin(), out[u].end());
            }
        }
        std::vector<DagEdge> expected;
        for (const auto& [pair, kind] : best) {
            bool implied = false;
            for (std::uint32_t other : out[pair.first])
                if (other != pair.second && reaches[other][pair.second]) implied = true;
            if (!implied) expected.push_back({pair.first, pair.second, kind});
        }
        std::sort(expected.begin(), expected.end(), [](const DagEdge& a, const DagEdge& b) { return a.to != b.to ? a.to < b.to : a.from < b.from; });
        RequestDagBuilder::finish(dag, edges);
        ASSERT_EQ(dag.edges.size(), expected.size()) << trial << " n=" << n;
        for (std::size_t i = 0; i < expected.size(); ++i) {
            EXPECT_EQ(dag.edges[i].from, expected[i].from) << trial;
            EXPECT_EQ(dag.edges[i].to, expected[i].to) << trial;
            EXPECT_EQ(dag.edges[i].kind, expected[i].kind) << trial;
        }
    }
}

TEST(RequestDag, TypeOrderIsTheSortByTypeStartAndIndexAtEverySize) {
    // Small requests take one comparison sort, large ones are counted into their types first: both must
    // give the one order (type, start, index), here against std::stable_sort of the indices.
    std::mt19937 rng(3);
    for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(100), std::size_t(4095), std::size_t(4096), std::size_t(20000)}) {
        for (const std::uint32_t types : {1u, 7u, 5000u, 200000u}) {
            std::uniform_int_distribution<std::uint32_t> type(0, types - 1);
            std::uniform_int_distribution<TimeNs> start(0, 50);  // many ties in start
            std::vector<SegmentInstance> segs(n);
            for (auto& s : segs) {
                s.type = SegmentTypeId(type(rng));
                s.startNs = start(rng);
                s.endNs = s.startNs + 1;
            }
            std::vector<std::uint32_t> expected(n);
            std::iota(expected.begin(), expected.end(), 0u);
            std::stable_sort(expected.begin(), expected.end(), [&](std::uint32_t a, std::uint32_t b) {
                return segs[a].type.value != segs[b].type.value ? segs[a].type.value < segs[b].type.value : segs[a].startNs < segs[b].startNs;
            });
            std::vector<std::uint32_t> order, counts;
            typeOrder(segs, types, order, counts);
            EXPECT_EQ(order, expected) << n << " segments, " << types << " types";
        }
    }
}

TEST(RequestDag, TimeOrderIsTheSortByStartEndAndIndexAtEverySize) {
    // Small requests sort indices, large ones sort (start, end, index) keys side by side: both must give
    // the one order, here against std::stable_sort of the indices by (start, end).
    std::mt19937 rng(5);
    for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(100), std::size_t(4095), std::size_t(4096), std::size_t(30000)}) {
        for (const TimeNs spread : {TimeNs(3), TimeNs(1000), TimeNs(1) << 40}) {  // from ties everywhere to none
            std::uniform_int_distribution<TimeNs> start(0, spread), length(0, 2);
            RequestDag dag;
            dag.segments.resize(n);
            for (auto& s : dag.segments) {
                s.startNs = start(rng);
                s.endNs = s.startNs + length(rng);
            }
            std::vector<std::uint32_t> expected(n);
            std::iota(expected.begin(), expected.end(), 0u);
            std::stable_sort(expected.begin(), expected.end(), [&](std::uint32_t a, std::uint32_t b) {
                const auto& x = dag.segments[a];
                const auto& y = dag.segments[b];
                return x.startNs != y.startNs ? x.startNs < y.startNs : x.endNs < y.endNs;
            });
            EXPECT_EQ(timeOrder(dag), expected) << n << " segments, starts within " << spread;
        }
    }
}

TEST(RequestDag, ItsOrderIsTopologicalAndSlackReachesWhatRelaxationReaches) {
    // Clusters of simultaneous segments (zero-length ones at one instant, as a child's end, its parent's
    // return and end) with links among them in any direction: the order the graph keeps must put every
    // kept edge forward, and slack's one backward pass over it must give what relaxing every edge until
    // nothing changes gives, in no particular order.
    std::mt19937 rng(11);
    for (int trial = 0; trial < 200; ++trial) {
        const std::uint32_t n = 2 + static_cast<std::uint32_t>(rng() % 40);
        RequestDag dag;
        dag.segments.resize(n);
        for (std::uint32_t i = 0; i < n; ++i) {
            const TimeNs at = 10 * TimeNs(rng() % 6);
            dag.segments[i] = {SegmentTypeId(i), at, at + TimeNs(rng() % 3 == 0 ? 0 : rng() % 10), i % 3, false};
        }
        dag.startNs = 0;
        dag.endNs = 0;
        for (const auto& s : dag.segments) dag.endNs = std::max(dag.endNs, s.endNs);
        std::vector<DagEdge> edges;
        for (int k = 0; k < int(2 * n); ++k) {
            const std::uint32_t a = static_cast<std::uint32_t>(rng() % n), b = static_cast<std::uint32_t>(rng() % n);
            if (dag.segments[a].endNs <= dag.segments[b].startNs) edges.push_back({a, b, rng() % 2 ? EdgeKind::Link : EdgeKind::HappensBefore});
        }
        RequestDagBuilder::finish(dag, std::move(edges));
        ASSERT_EQ(dag.order.size(), n);
        std::vector<std::uint32_t> rank(n, n);
        for (std::uint32_t i = 0; i < n; ++i) rank[dag.order[i]] = i;
        for (std::uint32_t v = 0; v < n; ++v) ASSERT_LT(rank[v], n) << "not a permutation";
        for (const DagEdge& e : dag.edges) ASSERT_LT(rank[e.from], rank[e.to]) << e.from << " -> " << e.to;

        std::vector<int> lastArriving(n);
        for (std::uint32_t v = 0; v < n; ++v) lastArriving[v] = lastArrivingDependency(dag, v);
        std::vector<TimeNs> latestFinish(n, dag.endNs);
        const std::uint32_t last = lastEndingSegment(dag);
        latestFinish[last] = dag.segments[last].endNs;
        for (bool changed = true; changed;) {
            changed = false;
            for (const DagEdge& e : dag.edges) {
                const SegmentInstance &sv = dag.segments[e.from], &sw = dag.segments[e.to];
                const TimeNs wait = lastArriving[e.to] == static_cast<int>(e.from) ? sw.startNs - sv.endNs : 0;
                const TimeNs bound = latestFinish[e.to] - sw.durationNs() - wait;
                if (bound < latestFinish[e.from]) {
                    latestFinish[e.from] = bound;
                    changed = true;
                }
            }
        }
        const std::vector<TimeNs> slack = computeSlack(dag);
        for (std::uint32_t v = 0; v < n; ++v)
            ASSERT_EQ(slack[v], std::max<TimeNs>(0, latestFinish[v] - dag.segments[v].endNs)) << "trial " << trial << ", segment " << v;
    }
}
