// The GUI's request detail and the CLI's critical-path / slack read the same cached result (issue 10).
#include <filesystem>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>

#include "TestUtil.h"
#include "core/GeneratedStore.h"
#include "core/GeneratedTraces.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/base/Time.h"
#include "tracelight/import/Import.h"
#include "tracelight/import/TraceFileContents.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/RequestTable.h"
#include "tracelight/store/SpanReads.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

namespace {

std::unique_ptr<TraceStore> analysedStore(const test::ScratchDir& dir, std::int64_t n) {
    auto store = test::generatedStore(dir, n, 11);
    EXPECT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    return store;
}

// The detail's critical path, blind intervals and slack against the CLI's loader, field by field.
void expectSameAsCli(const TraceStore& store, const std::string& name) {
    SCOPED_TRACE(name);
    const auto id = requestByName(store, name);
    ASSERT_TRUE(id);
    auto detail = loadRequestDetail(store, *id);
    ASSERT_TRUE(detail) << detail.message();
    auto cli = loadRequestAnalysis(store, name);
    ASSERT_TRUE(cli) << cli.message();
    const RequestDetail& d = detail.value();
    EXPECT_TRUE(d.analysed);
    EXPECT_EQ(d.fromSpans, requestSpans(store, *id).size() > 0) << "the view offers a span tree when the store has one";
    ASSERT_EQ(d.dag.segments.size(), cli->segments.size());
    for (std::size_t s = 0; s < cli->segments.size(); ++s) {
        const auto& seg = cli->segments[s];
        ASSERT_EQ(d.segmentName(s), std::string(seg.task) + ":" + std::string(seg.startEvent) + "->" + std::string(seg.endEvent)) << s;
        EXPECT_EQ(d.slackNs[s], seg.slackNs) << s;
        EXPECT_EQ(d.dag.segments[s].startNs - d.dag.startNs, seg.startNs) << s;
        EXPECT_EQ(d.dag.segments[s].durationNs(), seg.durationNs) << s;
    }
    EXPECT_EQ(d.criticalPath.segments, cli->criticalPath);
    EXPECT_EQ(d.criticalPath.latencyNs, cli->latencyNs);
    EXPECT_EQ(d.criticalPath.blindNs, cli->blindNs);
    ASSERT_EQ(d.criticalPath.blind.size(), cli->blind.size());
    for (std::size_t b = 0; b < cli->blind.size(); ++b) {
        EXPECT_EQ(d.criticalPath.blind[b].startNs - d.dag.startNs, cli->blind[b].startNs) << b;
        EXPECT_EQ(d.criticalPath.blind[b].durationNs, cli->blind[b].durationNs) << b;
    }
    for (std::size_t s = 0; s < d.critical.size(); ++s)
        EXPECT_EQ(d.critical[s], std::find(cli->criticalPath.begin(), cli->criticalPath.end(), s) != cli->criticalPath.end()) << s;
    // The graph (for drawing) is still there.
    if (d.dag.segments.size() > 1) {
        EXPECT_FALSE(d.dag.edges.empty());
    }
}

} // namespace

TEST(RequestDetail, CriticalPathBlindAndSlackAreTheCliCachedResult) {
    test::ScratchDir dir;
    auto store = analysedStore(dir, 300);
    for (const char* name : {"req-1", "req-2", "req-17", "req-150", "req-298"}) expectSameAsCli(*store, name);
}

TEST(RequestDetail, SpanTracesWithLinksAgreeWithTheCliToo) {
    // Span data brings explicit links into the graph: the detail still shows the cached result, every request.
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("spans.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store);
    ImportOptions import;
    const std::string jaeger = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/jaeger/";
    if (!std::filesystem::is_directory(jaeger)) GTEST_SKIP() << "no " << jaeger << " beside this checkout";
    import.inputs = {jaeger + "TraceFlamegraph__testTrace.json", jaeger + "TraceTimelineViewer__genaiTestTrace.json",
                     jaeger + "TraceStatistics__traceWithOverlappingChildren.json"};
    auto imported = importTraces(*store.value(), import);
    ASSERT_TRUE(imported) << imported.message();
    ASSERT_TRUE(analyzeStore(*store.value(), AnalysisOptions{}));
    auto table = loadRequestTable(*store.value());
    ASSERT_TRUE(table);
    ASSERT_GE(table->size(), 3u);
    for (const RequestId id : table->ids) expectSameAsCli(*store.value(), *requestName(*store.value(), id));
}

TEST(RequestDetail, ReadsTheCacheRatherThanRecomputing) {
    // Alter one request's cached latency and blind time: a detail that recomputed would not see it; the
    // detail must show what the CLI shows.
    test::ScratchDir dir;
    auto store = analysedStore(dir, 100);
    const auto id = requestByName(*store, "req-5");
    ASSERT_TRUE(id);
    const std::string sql = "UPDATE request_analysis SET latency_ns = latency_ns + 777, blind_ns = blind_ns + 777 WHERE request_id = " +
                            std::to_string(id->value);
    ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(*store), sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    auto cli = loadRequestAnalysis(*store, "req-5");
    ASSERT_TRUE(cli);
    auto detail = loadRequestDetail(*store, *id);
    ASSERT_TRUE(detail) << detail.message();
    EXPECT_EQ(detail->criticalPath.latencyNs, cli->latencyNs);
    EXPECT_EQ(detail->criticalPath.blindNs, cli->blindNs);
    expectSameAsCli(*store, "req-5");
}

TEST(RequestDetail, CancelledLoadSaysCancelled) {
    test::ScratchDir dir;
    auto store = analysedStore(dir, 20);
    CancelToken cancel;
    cancel.cancel();
    auto detail = loadRequestDetail(*store, *requestByName(*store, "req-3"), &cancel);
    ASSERT_FALSE(detail);
    EXPECT_EQ(detail.message(), "cancelled");
    auto graph = loadModelGraph(*store, &cancel);
    ASSERT_FALSE(graph);
    EXPECT_EQ(graph.message(), "cancelled");
}

// A store of the named real Jaeger files, or null when shared/realdata is not beside this checkout.
std::unique_ptr<TraceStore> realJaegerStore(const test::ScratchDir& dir, const std::vector<std::string>& files) {
    const std::string jaeger = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/jaeger/";
    if (!std::filesystem::is_directory(jaeger)) return nullptr;
    auto store = TraceStore::open(dir.file("jaeger.tldb"), TraceStore::Mode::Create);
    EXPECT_TRUE(store) << store.message();
    if (!store) return nullptr;
    ImportOptions import;
    for (const auto& f : files) import.inputs.push_back(jaeger + f);
    EXPECT_TRUE(importTraces(*store.value(), import));
    return std::move(store.value());
}

TEST(RequestDetail, EveryStoredLinkIsALinkEdgeOfTheGraph) {
    // The detail finds a link's ends among the request's events by (task, position); here they are found by
    // brute force, and each link between a segment's end and a later segment's start must be a Link edge.
    test::ScratchDir dir;
    auto store = realJaegerStore(dir, {"TraceFlamegraph__testTrace.json", "TraceTimelineViewer__genaiTestTrace.json"});
    if (!store) GTEST_SKIP() << "no shared/realdata/jaeger beside this checkout";
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    auto table = loadRequestTable(*store);
    ASSERT_TRUE(table);
    std::size_t checked = 0;
    for (const RequestId id : table->ids) {
        std::vector<EventRow> rows;
        const Status read = store->scanRequestEvents(id, [&](const EventRow& row) { rows.push_back(row); });
        ASSERT_TRUE(read) << read.message();
        auto detail = loadRequestDetail(*store, id);
        ASSERT_TRUE(detail) << detail.message();
        const RequestDag& dag = detail->dag;
        // Segment k ends at the event of row endRow[k] (an event following one of its own task).
        std::vector<int> segmentEndingAt(rows.size(), -1);
        for (std::size_t r = 1, k = 0; r < rows.size(); ++r)
            if (rows[r].task == rows[r - 1].task) segmentEndingAt[r] = static_cast<int>(k++);
        auto rowOf = [&](std::uint32_t task, std::int64_t ord) {
            for (std::size_t r = 0; r < rows.size(); ++r)
                if (rows[r].task == task && rows[r].ord == ord) return static_cast<int>(r);
            return -1;
        };
        const auto links = store->causalLinks(id);
        ASSERT_TRUE(links) << links.message();
        for (const LinkRow& l : links.value()) {
            const int a = rowOf(l.fromTask, l.fromOrd), b = rowOf(l.toTask, l.toOrd);
            if (a < 0 || b < 0 || static_cast<std::size_t>(b) + 1 >= rows.size()) continue;
            const int from = segmentEndingAt[static_cast<std::size_t>(a)], to = segmentEndingAt[static_cast<std::size_t>(b) + 1];
            if (from < 0 || to < 0 || dag.segments[from].endNs > dag.segments[to].startNs) continue;
            const bool present = std::any_of(dag.edges.begin(), dag.edges.end(), [&](const DagEdge& e) {
                return e.from == static_cast<std::uint32_t>(from) && e.to == static_cast<std::uint32_t>(to) && e.kind == EdgeKind::Link;
            });
            EXPECT_TRUE(present) << "request " << id.value << ": link " << from << " -> " << to;
            ++checked;
        }
    }
    EXPECT_GT(checked, 10u);
}

TEST(RequestDetail, DamagedLinkPositionsAndEventCountsStillOpen) {
    // A link position at the integer limit (the run's index arithmetic must not overflow; UBSan in CI)
    // and a request whose stored event count is absurd (only a hint for reserving).
    test::ScratchDir dir;
    auto store = realJaegerStore(dir, {"TraceFlamegraph__testTrace.json"});
    if (!store) GTEST_SKIP() << "no shared/realdata/jaeger beside this checkout";
    test::StoreAccess::storeEventModel(*store);  // links as rows that can be damaged
    const auto id = RequestId(1);
    const auto links = store->causalLinks(id).value().size();
    ASSERT_GT(links, 2u);
    ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(*store),
                           "UPDATE causal_links SET from_ord = -9223372036854775808 WHERE rowid IN (SELECT rowid FROM causal_links "
                           "WHERE request_id = 1 LIMIT 1); UPDATE causal_links SET to_ord = 9223372036854775807 WHERE rowid IN "
                           "(SELECT rowid FROM causal_links WHERE request_id = 1 LIMIT 1 OFFSET 1); "
                           "UPDATE requests SET event_count = 1000000000000 WHERE id = 1",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    auto detail = loadRequestDetail(*store, id);
    ASSERT_TRUE(detail) << detail.message();
    EXPECT_FALSE(detail->dag.segments.empty());
    const auto linkEdges = std::count_if(detail->dag.edges.begin(), detail->dag.edges.end(),
                                         [](const DagEdge& e) { return e.kind == EdgeKind::Link; });
    EXPECT_LE(static_cast<std::size_t>(linkEdges), links - 2);  // the two damaged links find no event
}

// A request's detail reads its events and labels on the store's connection and the rest (model, offsets,
// cached result, links) beside them on a second one when the store is a file. The same traces in memory,
// read on one connection, must give the same detail, field by field.
TEST(RequestDetail, ReadBesideTheEventsEqualsReadOnOneConnection) {
    test::ScratchDir dir;
    const std::vector<std::string> files = {"TraceFlamegraph__testTrace.json", "TraceTimelineViewer__genaiTestTrace.json"};
    auto onFile = realJaegerStore(dir, files);
    if (!onFile) GTEST_SKIP() << "no shared/realdata/jaeger beside this checkout";
    auto inMemory = TraceStore::open(":memory:", TraceStore::Mode::Create);
    ASSERT_TRUE(inMemory) << inMemory.message();
    ImportOptions import;
    for (const auto& f : files) import.inputs.push_back(std::string(TRACELIGHT_SHARED_DIR) + "/realdata/jaeger/" + f);
    import.period = "jaeger";
    ASSERT_TRUE(importTraces(*inMemory.value(), import));
    for (const bool analysed : {false, true}) {
        if (analysed) {
            ASSERT_TRUE(analyzeStore(*onFile, AnalysisOptions{}));
            ASSERT_TRUE(analyzeStore(*inMemory.value(), AnalysisOptions{}));
        }
        auto table = loadRequestTable(*onFile);
        ASSERT_TRUE(table);
        ASSERT_FALSE(table->ids.empty());
        for (const RequestId id : table->ids) {
            auto a = loadRequestDetail(*onFile, id);
            auto b = loadRequestDetail(*inMemory.value(), id);
            ASSERT_TRUE(a) << a.message();
            ASSERT_TRUE(b) << b.message();
            EXPECT_EQ(a->analysed, analysed);
            EXPECT_EQ(a->analysed, b->analysed);
            EXPECT_EQ(a->hosts, b->hosts);
            ASSERT_EQ(a->taskCount(), b->taskCount());
            for (std::size_t t = 0; t < a->taskCount(); ++t) EXPECT_EQ(a->task(t), b->task(t)) << t;
            ASSERT_EQ(a->dag.segments.size(), b->dag.segments.size());
            for (std::size_t k = 0; k < a->dag.segments.size(); ++k) {
                EXPECT_EQ(a->dag.segments[k].type, b->dag.segments[k].type);
                EXPECT_EQ(a->dag.segments[k].startNs, b->dag.segments[k].startNs);
                EXPECT_EQ(a->dag.segments[k].endNs, b->dag.segments[k].endNs);
                EXPECT_EQ(a->segmentName(k), b->segmentName(k));
            }
            ASSERT_EQ(a->dag.edges.size(), b->dag.edges.size());
            for (std::size_t k = 0; k < a->dag.edges.size(); ++k) {
                EXPECT_EQ(a->dag.edges[k].from, b->dag.edges[k].from);
                EXPECT_EQ(a->dag.edges[k].to, b->dag.edges[k].to);
                EXPECT_EQ(a->dag.edges[k].kind, b->dag.edges[k].kind);
            }
            EXPECT_EQ(a->criticalPath.segments, b->criticalPath.segments);
            EXPECT_EQ(a->criticalPath.latencyNs, b->criticalPath.latencyNs);
            EXPECT_EQ(a->slackNs, b->slackNs);
            EXPECT_TRUE(std::any_of(a->dag.edges.begin(), a->dag.edges.end(), [](const DagEdge& e) { return e.kind == EdgeKind::Link; }))
                << "request " << id.value << ": the links were read";
        }
    }
}

// Loaded with its dependencies to follow, an analysed request's detail has everything but the graph's
// edges, and the work left for later finds exactly the edges the whole detail has. A request not analysed
// yet needs its graph for the critical path: it comes whole, with nothing left for later.
TEST(RequestDetail, DependenciesThatFollowAreTheGraphsEdges) {
    test::ScratchDir dir;
    auto store = realJaegerStore(dir, {"TraceFlamegraph__testTrace.json", "TraceTimelineViewer__genaiTestTrace.json"});
    if (!store) GTEST_SKIP() << "no shared/realdata/jaeger beside this checkout";
    for (const bool analysed : {false, true}) {
        if (analysed) {
            ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
        }
        auto table = loadRequestTable(*store);
        ASSERT_TRUE(table);
        for (const RequestId id : table->ids) {
            auto whole = loadRequestDetail(*store, id);
            DependencyWork later = [](std::span<const SegmentInstance>) { return RequestDependencies{}; };  // to be replaced or cleared
            auto first = loadRequestDetail(*store, id, nullptr, &later);
            ASSERT_TRUE(whole) << whole.message();
            ASSERT_TRUE(first) << first.message();
            EXPECT_EQ(first->dependenciesFollow, analysed);
            EXPECT_EQ(static_cast<bool>(later), analysed);
            EXPECT_EQ(first->critical, whole->critical);
            EXPECT_EQ(first->slackNs, whole->slackNs);
            EXPECT_EQ(first->dag.startNs, whole->dag.startNs);
            EXPECT_EQ(first->dag.endNs, whole->dag.endNs);
            ASSERT_EQ(first->dag.segments.size(), whole->dag.segments.size());
            for (std::size_t k = 0; k < whole->dag.segments.size(); ++k) {
                EXPECT_EQ(first->dag.segments[k].startNs, whole->dag.segments[k].startNs);
                EXPECT_EQ(first->dag.segments[k].endNs, whole->dag.segments[k].endNs);
                EXPECT_EQ(first->dag.segments[k].type, whole->dag.segments[k].type);
            }
            if (!analysed) {
                EXPECT_EQ(first->dag.edges.size(), whole->dag.edges.size());
                continue;
            }
            EXPECT_TRUE(first->dag.edges.empty());
            ASSERT_FALSE(whole->dag.edges.empty());
            const RequestDependencies found = later(first->dag.segments);
            ASSERT_EQ(found.edges.size(), whole->dag.edges.size());
            for (std::size_t k = 0; k < found.edges.size(); ++k) {
                EXPECT_EQ(found.edges[k].from, whole->dag.edges[k].from);
                EXPECT_EQ(found.edges[k].to, whole->dag.edges[k].to);
                EXPECT_EQ(found.edges[k].kind, whole->dag.edges[k].kind);
            }
            EXPECT_EQ(found.firstEdgeTo, whole->dag.firstEdgeTo);
        }
    }
}

namespace {

// Each request of the span files read straight into memory against the same files imported into a new database
// (not analysed yet): the detail the window shows from the file first is the one it shows from the database
// next, segment for segment, edge for edge, with the same critical path and slack.
void expectSameDetailAsImported(const std::vector<std::string>& files) {
    test::ScratchDir dir;
    auto opened = TraceStore::open(dir.file("file.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(opened) << opened.message();
    const TraceStore& store = *opened.value();
    ImportOptions options;
    options.inputs = files;
    ASSERT_TRUE(importTraces(*opened.value(), options));
    auto contents = readSpanFiles(options);
    ASSERT_TRUE(contents) << contents.message();
    ASSERT_GT(contents->data.requestCount(), 0u);
    for (std::size_t r = 0; r < contents->data.requestCount(); ++r) {
        const std::string& name = contents->requestNames[r];
        SCOPED_TRACE(name);
        const auto id = requestByName(store, name);
        ASSERT_TRUE(id);
        auto stored = loadRequestDetail(store, *id);
        ASSERT_TRUE(stored) << stored.message();
        auto read = requestDetailFromData(contents->data, r, name);
        ASSERT_TRUE(read) << read.message();
        const RequestDetail &a = read.value(), &b = stored.value();
        EXPECT_EQ(a.id, b.id);
        EXPECT_EQ(a.name, b.name);
        EXPECT_FALSE(a.analysed);
        EXPECT_FALSE(b.analysed);
        EXPECT_EQ(a.fromSpans, b.fromSpans);
        EXPECT_EQ(a.hosts, b.hosts);
        ASSERT_EQ(a.taskCount(), b.taskCount());
        for (std::size_t t = 0; t < a.taskCount(); ++t) EXPECT_EQ(a.task(t), b.task(t)) << t;
        ASSERT_EQ(a.dag.segments.size(), b.dag.segments.size());
        EXPECT_EQ(a.dag.startNs, b.dag.startNs);
        EXPECT_EQ(a.dag.endNs, b.dag.endNs);
        for (std::size_t s = 0; s < a.dag.segments.size(); ++s) {
            const SegmentInstance &x = a.dag.segments[s], &y = b.dag.segments[s];
            ASSERT_EQ(a.segmentName(s), b.segmentName(s)) << s;
            EXPECT_TRUE(x.type == y.type && x.startNs == y.startNs && x.endNs == y.endNs && x.task == y.task && x.network == y.network) << s;
            EXPECT_EQ(a.segmentTask[s], b.segmentTask[s]) << s;
            EXPECT_EQ(a.segmentStartHost[s], b.segmentStartHost[s]) << s;
            EXPECT_EQ(a.segmentEndHost[s], b.segmentEndHost[s]) << s;
            EXPECT_EQ(a.localStartNs[s], b.localStartNs[s]) << s;
            EXPECT_EQ(a.localEndNs[s], b.localEndNs[s]) << s;
        }
        ASSERT_EQ(a.dag.edges.size(), b.dag.edges.size());
        for (std::size_t e = 0; e < a.dag.edges.size(); ++e)
            EXPECT_TRUE(a.dag.edges[e].from == b.dag.edges[e].from && a.dag.edges[e].to == b.dag.edges[e].to && a.dag.edges[e].kind == b.dag.edges[e].kind)
                << e;
        EXPECT_EQ(a.criticalPath.segments, b.criticalPath.segments);
        EXPECT_EQ(a.criticalPath.latencyNs, b.criticalPath.latencyNs);
        EXPECT_EQ(a.criticalPath.blindNs, b.criticalPath.blindNs);
        ASSERT_EQ(a.criticalPath.blind.size(), b.criticalPath.blind.size());
        for (std::size_t k = 0; k < a.criticalPath.blind.size(); ++k)
            EXPECT_TRUE(a.criticalPath.blind[k].startNs == b.criticalPath.blind[k].startNs &&
                        a.criticalPath.blind[k].durationNs == b.criticalPath.blind[k].durationNs) << k;
        ASSERT_EQ(a.criticalPath.clips.size(), b.criticalPath.clips.size());
        for (std::size_t k = 0; k < a.criticalPath.clips.size(); ++k)
            EXPECT_TRUE(a.criticalPath.clips[k].entry == b.criticalPath.clips[k].entry && a.criticalPath.clips[k].startNs == b.criticalPath.clips[k].startNs &&
                        a.criticalPath.clips[k].endNs == b.criticalPath.clips[k].endNs) << k;
        EXPECT_EQ(a.criticalPath.entrySpan, b.criticalPath.entrySpan);
        ASSERT_EQ(a.criticalPath.async.size(), b.criticalPath.async.size());
        for (std::size_t k = 0; k < a.criticalPath.async.size(); ++k)
            EXPECT_TRUE(a.criticalPath.async[k].span == b.criticalPath.async[k].span && a.criticalPath.async[k].startNs == b.criticalPath.async[k].startNs &&
                        a.criticalPath.async[k].endNs == b.criticalPath.async[k].endNs) << k;
        EXPECT_EQ(a.slackNs, b.slackNs);
        EXPECT_EQ(a.critical, b.critical);
        ASSERT_EQ(a.spanRefs.size(), b.spanRefs.size());
        for (std::size_t k = 0; k < a.spanRefs.size(); ++k)
            EXPECT_TRUE(a.spanRefs[k].parent == b.spanRefs[k].parent && a.spanRefs[k].startEvent == b.spanRefs[k].startEvent &&
                        a.spanRefs[k].endEvent == b.spanRefs[k].endEvent && a.spanRefs[k].wait == b.spanRefs[k].wait) << k;
    }
}

} // namespace

TEST(RequestDetail, FromAFileInMemoryIsTheDetailOfItsImport) {
    const std::string realdata = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/";
    if (!std::filesystem::is_directory(realdata + "jaeger")) GTEST_SKIP() << "no " << realdata << " beside this checkout";
    std::size_t files = 0;
    for (const char* folder : {"jaeger", "otlp", "zipkin"}) {
        std::vector<std::filesystem::path> paths;
        for (const auto& entry : std::filesystem::directory_iterator(realdata + folder))
            if (entry.path().extension() == ".json") paths.push_back(entry.path());
        std::sort(paths.begin(), paths.end());
        for (const auto& path : paths) {
            ImportOptions probe;
            probe.inputs = {path.string()};
            if (!readSpanFiles(probe)) continue;  // a file the import refuses too (an error example)
            expectSameDetailAsImported({path.string()});
            ++files;
        }
    }
    EXPECT_GE(files, 20u);
    // Several files in one read: requests, hosts and segment types of the others come first in the data.
    expectSameDetailAsImported({realdata + "jaeger/TraceFlamegraph__testTrace.json", realdata + "jaeger/TraceTimelineViewer__genaiTestTrace.json",
                                realdata + "otlp/otlp2jaeger-multi-in-combined.json"});
}

TEST(RequestDetail, FromAFileInMemoryRefusesARowItDoesNotHaveAndStopsWhenCancelled) {
    test::ScratchDir dir;
    const std::string file = dir.file("one.json");
    {
        std::ofstream out(file);
        out << R"({"data":[{"traceID":"t1","spans":[{"traceID":"t1","spanID":"s1","operationName":"GET /","references":[],)"
               R"("startTime":1700000000000000,"duration":250,"processID":"p","tags":[],"logs":[]}],"processes":{"p":{"serviceName":"shop","tags":[]}}}]})";
    }
    ImportOptions options;
    options.inputs = {file};
    auto contents = readSpanFiles(options);
    ASSERT_TRUE(contents) << contents.message();
    auto read = requestDetailFromData(contents->data, 0, "t1");
    ASSERT_TRUE(read) << read.message();
    EXPECT_EQ(read->criticalPath.latencyNs, 250'000);  // the one span's 250 µs, by hand
    EXPECT_EQ(read->hosts.size(), 1u);
    auto missing = requestDetailFromData(contents->data, 1, "t2");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.message(), "no request 't2'");
    CancelToken cancel;
    cancel.cancel();
    auto cancelled = requestDetailFromData(contents->data, 0, "t1", &cancel);
    ASSERT_FALSE(cancelled);
    EXPECT_EQ(cancelled.message(), "cancelled");
}
