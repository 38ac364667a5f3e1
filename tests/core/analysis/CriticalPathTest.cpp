// Critical path, slack and the per-request DAG on handcrafted requests, brute force and Boost.Graph.
#include <gtest/gtest.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/transitive_reduction.hpp>
#include <random>

#include "core/GeneratedTraces.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/RequestDag.h"
#include "tracelight/analysis/RequestPass.h"
#include "tracelight/analysis/Slack.h"

using namespace tracelight;

namespace {

// A DAG from segments "start end" (task per segment) and explicit edges.
// Times in nanoseconds.
RequestDag makeDag(std::vector<std::pair<TimeNs, TimeNs>> intervals, std::vector<std::pair<int, int>> deps,
                   TimeNs requestStart, TimeNs requestEnd) {
    RequestDag dag;
    std::uint32_t id = 0;
    for (auto [s, e] : intervals) dag.segments.push_back({SegmentTypeId(id), s, e, id, false}), ++id;
    dag.startNs = requestStart;
    dag.endNs = requestEnd;
    std::vector<DagEdge> edges;
    for (auto [a, b] : deps) edges.push_back({static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b), EdgeKind::HappensBefore});
    RequestDagBuilder::finish(dag, edges);
    return dag;
}

} // namespace

TEST(CriticalPath, FollowsTheLastArrivingDependencyAndReportsBlindTime) {
    //   0: [0,10]  ->  1: [10,30] ---------> 3: [42,50]
    //              ->  2: [12,40] --(wait 2)-^
    // 3 waits for 2 (ends last, at 40) then 2 us of blind wait, held fixed on the edge 2 -> 3, so 3
    // starts at 42 whatever 1 does: 1 has slack 42 - 30 = 12.
    RequestDag dag = makeDag({{0, 10}, {10, 30}, {12, 40}, {42, 50}}, {{0, 1}, {0, 2}, {1, 3}, {2, 3}}, 0, 50);
    const CriticalPath cp = computeCriticalPath(dag);
    EXPECT_EQ(cp.segments, (std::vector<std::uint32_t>{0, 2, 3}));
    EXPECT_EQ(cp.latencyNs, 50);
    EXPECT_EQ(cp.blindNs, 4);  // 10->12 before segment 2, 40->42 before segment 3
    ASSERT_EQ(cp.blind.size(), 2u);
    EXPECT_EQ(cp.blind[0].startNs, 10);
    EXPECT_EQ(cp.blind[1].startNs, 40);
    const auto slack = computeSlack(dag);
    EXPECT_EQ(slack, (std::vector<TimeNs>{0, 12, 0, 0}));
    EXPECT_EQ(rescheduledLatency(dag, 1, 12), 50);
    EXPECT_EQ(rescheduledLatency(dag, 1, 13), 51);
}

TEST(CriticalPath, BlindTimeAtTheEndAndWithNoSegments) {
    RequestDag dag = makeDag({{5, 10}}, {}, 0, 20);  // request ends with an event no segment covers
    const CriticalPath cp = computeCriticalPath(dag);
    EXPECT_EQ(cp.blindNs, 15);
    ASSERT_EQ(cp.blind.size(), 2u);
    EXPECT_EQ(cp.blind[0].durationNs, 5);
    EXPECT_EQ(cp.blind[1].startNs, 10);
    EXPECT_EQ(computeSlack(dag), std::vector<TimeNs>{0});  // the trailing wait is fixed: growing the segment delays the end
    EXPECT_EQ(rescheduledLatency(dag, 0, 4), 24);
    RequestDag empty = makeDag({}, {}, 0, 7);
    EXPECT_EQ(computeCriticalPath(empty).blindNs, 7);
}

TEST(RequestDag, TransitiveReductionMatchesBoostGraph) {
    std::mt19937 rng(3);
    for (int trial = 0; trial < 200; ++trial) {
        const int n = 2 + static_cast<int>(rng() % 40);
        // Segments ordered in time so any forward edge is valid.
        std::vector<std::pair<TimeNs, TimeNs>> intervals;
        for (int i = 0; i < n; ++i) intervals.emplace_back(i * 10, i * 10 + 5);
        std::vector<std::pair<int, int>> deps;
        for (int a = 0; a < n; ++a)
            for (int b = a + 1; b < n; ++b)
                if (rng() % 100 < 15) deps.emplace_back(a, b);
        const RequestDag dag = makeDag(intervals, deps, 0, n * 10);
        std::set<std::pair<int, int>> ours;
        for (const auto& e : dag.edges) ours.emplace(e.from, e.to);

        using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
        Graph g(static_cast<std::size_t>(n)), reduced;
        for (auto [a, b] : deps) boost::add_edge(static_cast<std::size_t>(a), static_cast<std::size_t>(b), g);
        std::vector<std::size_t> toReduced(static_cast<std::size_t>(n));
        boost::transitive_reduction(g, reduced, boost::make_iterator_property_map(toReduced.begin(), boost::get(boost::vertex_index, g)),
                                    boost::get(boost::vertex_index, g));
        std::vector<std::size_t> fromReduced(static_cast<std::size_t>(n));
        for (std::size_t v = 0; v < toReduced.size(); ++v) fromReduced[toReduced[v]] = v;
        std::set<std::pair<int, int>> theirs;
        for (auto [it, end] = boost::edges(reduced); it != end; ++it)
            theirs.emplace(static_cast<int>(fromReduced[boost::source(*it, reduced)]), static_cast<int>(fromReduced[boost::target(*it, reduced)]));
        ASSERT_EQ(ours, theirs) << "trial " << trial;
    }
}

// Brute force on the analysis's own graphs: growing a segment by delta raises the re-scheduled
// latency by exactly max(0, delta - slack), to the nanosecond; a critical segment grown by epsilon
// raises it by epsilon.
TEST(Slack, ConfirmedByReschedulingEverySegment) {
    samples::GeneratorOptions options;
    options.seed = 9;
    options.requests = 3000;
    auto traces = test::generateTraces(samples::PageLoadGenerator(options), 3000);
    auto analysis = analyzeInMemory(traces.data, AnalysisOptions{});
    ASSERT_TRUE(analysis);
    RequestDagBuilder builder(analysis->model, analysis->data);
    RequestDag dag;
    std::mt19937 rng(1);
    int criticalChecked = 0, slackChecked = 0;
    for (int k = 0; k < 300; ++k) {
        const std::size_t r = rng() % analysis->data.requestCount();
        builder.build(analysis->data.eventsOf(r), analysis->offsets, dag);
        const CriticalPath cp = computeCriticalPath(dag);
        const auto slack = computeSlack(dag);
        const std::set<std::uint32_t> critical(cp.segments.begin(), cp.segments.end());
        for (std::uint32_t s = 0; s < dag.segments.size(); ++s) {
            if (critical.count(s)) {
                EXPECT_EQ(slack[s], 0);
                EXPECT_EQ(rescheduledLatency(dag, s, 7), cp.latencyNs + 7);
                ++criticalChecked;
                continue;
            }
            if (slack[s] > 2) {
                const TimeNs inside = std::uniform_int_distribution<TimeNs>(1, slack[s])(rng);
                EXPECT_EQ(rescheduledLatency(dag, s, inside), cp.latencyNs);
                ++slackChecked;
            }
            EXPECT_EQ(rescheduledLatency(dag, s, slack[s] + 3), cp.latencyNs + 3)
                << analysis->data.segmentName(dag.segments[s].type);
        }
    }
    EXPECT_GT(criticalChecked, 1000);
    EXPECT_GT(slackChecked, 1000);
}

TEST(CriticalPath, AChildReturningExplainsItsParentsWait) {
    // Parent task: [0,10] then a wait [10,50] for its child, then [50,60]. The child [10,50] ends exactly
    // when the wait does; the link child -> parent wins the tie, so the path descends into the child.
    RequestDag dag;
    dag.segments = {{SegmentTypeId(0), 0, 10, 0, false}, {SegmentTypeId(1), 10, 50, 0, false}, {SegmentTypeId(2), 50, 60, 0, false},
                    {SegmentTypeId(3), 10, 50, 1, false}};
    dag.startNs = 0;
    dag.endNs = 60;
    RequestDagBuilder::finish(dag, {{0, 1, EdgeKind::TaskOrder}, {1, 2, EdgeKind::TaskOrder}, {0, 3, EdgeKind::HappensBefore},
                                    {3, 2, EdgeKind::HappensBefore}, {3, 2, EdgeKind::Link}});
    EXPECT_EQ(computeCriticalPath(dag).segments, (std::vector<std::uint32_t>{0, 3, 2}));
    // Without the link, the task's own wait segment is the last-arriving dependency.
    RequestDag inferred = dag;
    RequestDagBuilder::finish(inferred, {{0, 1, EdgeKind::TaskOrder}, {1, 2, EdgeKind::TaskOrder}, {0, 3, EdgeKind::HappensBefore},
                                         {3, 2, EdgeKind::HappensBefore}});
    EXPECT_EQ(computeCriticalPath(inferred).segments, (std::vector<std::uint32_t>{0, 1, 2}));
}

// A server span that starts a little before its client on uncorrected clocks (Online Boutique: the
// adservice pod 0.3 ms ahead of the frontend) gave its client task a segment of negative duration; the
// graph's time order then lost the edges through it and the critical path stopped at the server,
// calling everything before it blind (80 ms of a 103 ms request). A task's events are ordered by the
// task itself: its segments never run backwards, so the path continues through the client.
TEST(CriticalPath, AServerAheadOfItsClientDoesNotCutThePath) {
    enum : std::uint32_t { Root = 1, Client, Start, Call, Return, End, Serve, Work, Served, HostA, HostB };
    TraceDataBuilder b;
    for (auto [id, text] : {std::pair{Root, "fe:recv"}, {Client, "fe:getads"}, {Start, "start"}, {Call, "call fe:getads"},
                            {Return, "return fe:getads"}, {End, "end"}, {Serve, "serve ad:getads"}, {Work, "call ad:impl"},
                            {Served, "served ad:getads"}, {HostA, "frontend-1"}, {HostB, "adservice-1"}})
        b.setLabel(id, text);
    b.beginRequest(RequestId(1), true);
    b.addEvent(Root, Start, HostA, 0);
    b.addEvent(Root, Call, HostA, 100'000);
    b.addEvent(Root, Return, HostA, 400'000);
    b.addEvent(Root, End, HostA, 500'000);
    b.addEvent(Client, Start, HostA, 100'000);
    b.addEvent(Client, Serve, HostB, 70'000);  // 30 µs before its client started
    b.addEvent(Client, Work, HostB, 80'000);
    b.addEvent(Client, Served, HostB, 300'000);
    b.addEvent(Client, End, HostA, 400'000);
    b.addLink(1, 4);  // the root's call starts the client
    b.addLink(8, 2);  // the client's end returns to the root
    TraceData data = b.finish();
    const ClockOffsets offsets = ClockOffsets::none(data.hostLabels.size());
    auto model = inferModel(data, offsets, InferenceOptions{});
    ASSERT_TRUE(model) << model.message();
    RequestPass pass(model.value(), data);
    const RequestPassResult& result = pass.run(data.eventsOf(0), offsets, data.linksOf(0));
    EXPECT_EQ(result.criticalPath.latencyNs, 500'000);
    EXPECT_EQ(result.criticalPath.blindNs, 0);
    for (const auto& s : result.dag.segments) EXPECT_GE(s.durationNs(), 0);
    // The root's work before the call is on the path.
    bool rootFirst = false;
    for (auto v : result.criticalPath.segments) rootFirst = rootFirst || (result.dag.segments[v].task == Root && result.dag.segments[v].startNs == 0);
    EXPECT_TRUE(rootFirst);
}
