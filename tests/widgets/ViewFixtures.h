#pragma once
// Small request details and model graphs built by hand for the view tests and benchmarks.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "tracelight/studies/Aggregates.h"
#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/analysis/Slack.h"

namespace tracelight::test {

struct SegmentSpec {
    const char* task;
    const char* start;
    const char* end;
    int startHost, endHost;
    double startUs, endUs;  // handmade in microseconds; core gets nanoseconds
};

// A request from segments (tasks and hosts by index) and dependency edges; critical path and slack computed by core.
inline std::shared_ptr<RequestDetail> makeDetail(const std::vector<std::string>& hosts, const std::vector<SegmentSpec>& specs,
                                                 const std::vector<std::pair<int, int>>& deps) {
    auto d = std::make_shared<RequestDetail>();
    d->name = "handmade";
    d->analysed = true;
    d->hosts = hosts;
    std::vector<DagEdge> edges;
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const auto& s = specs[i];
        std::uint32_t task = 0;
        while (task < d->taskCount() && d->task(task) != s.task) ++task;
        if (task == d->taskCount()) d->addTask(s.task);
        const TimeNs start = usToNs(s.startUs), end = usToNs(s.endUs);
        d->dag.segments.push_back({SegmentTypeId(static_cast<std::uint32_t>(i)), start, end, task, s.startHost != s.endHost});
        d->nameSegmentEvents(s.start, s.end);
        d->segmentTask.push_back(task);
        d->segmentStartHost.push_back(static_cast<std::uint32_t>(s.startHost));
        d->segmentEndHost.push_back(static_cast<std::uint32_t>(s.endHost));
        d->localStartNs.push_back(start + 1000000 * s.startHost);  // host clocks 1 ms apart
        d->localEndNs.push_back(end + 1000000 * s.endHost);
        if (i == 0 || start < d->dag.startNs) d->dag.startNs = start;
        d->dag.endNs = std::max(d->dag.endNs, end);
    }
    for (auto [a, b] : deps) edges.push_back({static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b), EdgeKind::HappensBefore});
    RequestDagBuilder::finish(d->dag, edges);
    d->criticalPath = computeCriticalPath(d->dag);
    d->slackNs = computeSlack(d->dag);
    d->critical.assign(specs.size(), false);
    for (auto v : d->criticalPath.segments) d->critical[v] = true;
    return d;
}

// One task on one host with n back-to-back segments of 1 us: what folding is for.
inline std::shared_ptr<RequestDetail> makeLongRequest(int n) {
    std::vector<SegmentSpec> specs;
    static std::vector<std::string> names;
    names.resize(static_cast<std::size_t>(n) + 1);
    for (int i = 0; i <= n; ++i) names[static_cast<std::size_t>(i)] = "E" + std::to_string(i);
    std::vector<std::pair<int, int>> deps;
    for (int i = 0; i < n; ++i) {
        specs.push_back({"loop", names[static_cast<std::size_t>(i)].c_str(), names[static_cast<std::size_t>(i) + 1].c_str(), 0, 0, double(i), double(i + 1)});
        if (i > 0) deps.emplace_back(i - 1, i);
    }
    return makeDetail({"host"}, specs, deps);
}

// A model graph with n segment types in chains of ten, joined at a common root.
inline std::shared_ptr<ModelGraph> makeGraph(int n) {
    auto g = std::make_shared<ModelGraph>();
    g->requests = 1000;
    g->supportFloor = 10;
    for (int i = 0; i < n; ++i) {
        SegmentTypeStats t;
        t.task = "task-" + std::to_string(i / 10);
        t.startEvent = "E" + std::to_string(i);
        t.endEvent = "E" + std::to_string(i + 1);
        t.occurrences = 1000;
        t.meanDurationNs = 100000.0 * (i % 7 + 1);
        t.criticalCount = (i * 37) % 1000;
        g->types.push_back(t);
        if (i % 10 != 0) g->happensBefore.push_back({static_cast<std::uint32_t>(i - 1), static_cast<std::uint32_t>(i), 1000 - i, true});
        else if (i > 0) g->happensBefore.push_back({0, static_cast<std::uint32_t>(i), 5, false});
    }
    g->convergence = {{10, 500, 400}, {100, 300, 200}, {1000, 250, 150}};
    return g;
}

// n requests over two categories, "server" and "network". Deterministic: server time (r % 100) ms with
// (100 - r % 100) ms of slack, network 10 ms. Randomised (benchmarks): times spread pseudo-randomly.
inline std::shared_ptr<RequestAggregates> makeAggregates(std::size_t n, bool randomised = false) {
    auto a = std::make_shared<RequestAggregates>();
    a->categories = {"server", "network"};
    a->typeCategory = {0, 1};
    std::uint32_t seed = 1;
    auto next = [&] { return (seed = seed * 1664525u + 1013904223u) >> 8; };
    for (std::size_t r = 0; r < n; ++r) {
        a->ids.emplace_back(static_cast<std::uint32_t>(r + 1));
        const TimeNs server = 1000 * (randomised ? TimeNs(next() % 200000) : 1000 * TimeNs(r % 100));
        const TimeNs network = 1000 * (randomised ? TimeNs(next() % 800000) : 10000);
        a->latencyNs.push_back(server + network);
        a->blindNs.push_back(0);
        for (TimeNs v : {server, network}) {
            a->summedNs.push_back(v);
            a->criticalNs.push_back(v);
            a->spanNs.push_back(v);
        }
        a->slackNs.push_back(1000 * (randomised ? TimeNs(next() % 300000) : 1000 * TimeNs(100 - r % 100)));
        a->slackNs.push_back(0);
        a->pathBegin.push_back(r * 2);
        a->pathType.insert(a->pathType.end(), {0, 1});
        a->pathNs.insert(a->pathNs.end(), {server, network});
    }
    a->pathBegin.push_back(n * 2);
    a->typesByCriticalTime = typesByCriticalTime(*a);  // as computeAggregates fills it
    return a;
}

} // namespace tracelight::test
