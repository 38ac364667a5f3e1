// Reading a store in runs of requests, each on its own connection and merged after, gives exactly what one
// scan gives: the same requests, events, hosts, segment types, links, spans and labels, id for id. And each
// span request's spans are its stored spans, by index into its events.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "core/GeneratedStore.h"
#include "StoreAccess.h"
#include "TestUtil.h"
#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/analysis/TraceData.h"
#include "tracelight/store/SpanReads.h"

using namespace tracelight;

namespace {

void expectSameData(const TraceData& runs, const TraceData& one) {
    EXPECT_EQ(runs.requestIds, one.requestIds);
    EXPECT_EQ(runs.requestBegin, one.requestBegin);
    EXPECT_EQ(runs.fromSpans, one.fromSpans);
    EXPECT_EQ(runs.hostLabels, one.hostLabels);
    EXPECT_EQ(runs.linkBegin, one.linkBegin);
    EXPECT_EQ(runs.spanBegin, one.spanBegin);
    EXPECT_EQ(runs.labels, one.labels);
    ASSERT_EQ(runs.occurrences.size(), one.occurrences.size());
    for (std::size_t i = 0; i < one.occurrences.size(); ++i)
        EXPECT_TRUE(runs.occurrences[i].id == one.occurrences[i].id && runs.occurrences[i].name == one.occurrences[i].name &&
                    runs.occurrences[i].occurrence == one.occurrences[i].occurrence)
            << "occurrence " << i;
    ASSERT_EQ(runs.segmentTypes.size(), one.segmentTypes.size());
    for (std::size_t t = 0; t < one.segmentTypes.size(); ++t)
        EXPECT_EQ(runs.segmentName(SegmentTypeId(std::uint32_t(t))), one.segmentName(SegmentTypeId(std::uint32_t(t)))) << t;
    ASSERT_EQ(runs.links.size(), one.links.size());
    for (std::size_t i = 0; i < one.links.size(); ++i) {
        EXPECT_EQ(runs.links[i].from, one.links[i].from);
        EXPECT_EQ(runs.links[i].to, one.links[i].to);
    }
    ASSERT_EQ(runs.spans.size(), one.spans.size());
    for (std::size_t i = 0; i < one.spans.size(); ++i) {
        const SpanRef &a = runs.spans[i], &b = one.spans[i];
        EXPECT_TRUE(a.parent == b.parent && a.startEvent == b.startEvent && a.endEvent == b.endEvent && a.wait == b.wait) << "span " << i;
    }
    ASSERT_EQ(runs.events.size(), one.events.size());
    for (std::size_t i = 0; i < one.events.size(); ++i) {
        const EventRecord &a = runs.events[i], &b = one.events[i];
        ASSERT_TRUE(a.task == b.task && a.event == b.event && a.host == b.host && a.segmentType == b.segmentType &&
                    a.localNs == b.localNs)
            << "event " << i;
    }
}

// Page loads, event-log labels that look numbered, and span traces (links, operations) after them when the
// real files are here.
std::unique_ptr<TraceStore> mixedStore(const test::ScratchDir& dir) {
    auto store = test::generatedStore(dir, 600, 3);
    const std::string csv = dir.file("numbered.csv");
    std::ofstream(csv) << "request,host,task,event,ts_us,seq\nn-1,h,worker#3,retry#2,1,0\nn-1,h,worker#3,done#1,2,1\n";
    ImportOptions import;
    import.inputs = {csv};
    EXPECT_TRUE(importTraces(*store, import));
    test::addRealJaegerTraces(*store);
    return store;
}

// Read as analyze reads: inside one read snapshot, which the runs' connections must match.
Result<TraceData> readInSnapshot(TraceStore& store, RequestIdRange range, ReadRuns how) {
    EXPECT_TRUE(store.beginRead());
    auto data = loadTraceData(store, range, nullptr, nullptr, how);
    store.endRead();
    return data;
}

void execute(const TraceStore& store, const char* sql) {
    ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(store), sql, nullptr, nullptr, nullptr), SQLITE_OK) << sql;
}


// n generated page loads (event logs), then `traces` span requests.
std::unique_ptr<TraceStore> logsThenSpans(const test::ScratchDir& dir, std::int64_t n, int traces) {
    auto store = test::generatedStore(dir, n, 4);
    ImportOptions import;
    import.inputs = {dir.write("trace.json", test::jaegerCalls(traces))};
    EXPECT_TRUE(importTraces(*store, import));
    return store;
}

// Every span request's spans are its stored spans, by index: the same parent, and start and end events of
// the span's task at its start and end (local clocks, as recorded); event logs have none.
void expectStoredSpans(const TraceStore& store, const TraceData& data) {
    ASSERT_EQ(data.spanBegin.size(), data.requestCount() + 1);
    std::size_t spanRequests = 0;
    for (std::size_t r = 0; r < data.requestCount(); ++r) {
        const RequestSpanShapes shapes = requestSpanShapes(store, data.requestIds[r]);
        const RequestSpans records = requestSpans(store, data.requestIds[r]);
        const auto spans = data.spansOf(r);
        const auto events = data.eventsOf(r);
        EXPECT_EQ(data.isFromSpans(r), !shapes.spans.empty()) << "request " << r;
        ASSERT_EQ(spans.size(), shapes.spans.size()) << "request " << r;
        spanRequests += !spans.empty();
        for (std::size_t i = 0; i < spans.size(); ++i) {
            const SpanShape& shape = shapes.spans[i];
            SCOPED_TRACE("request " + std::to_string(r) + " span " + std::to_string(i));
            EXPECT_EQ(spans[i].parent, shape.parent);
            EXPECT_EQ(spans[i].wait == SpanWait::Detached, records.at(i).detached);
            ASSERT_LT(spans[i].startEvent, events.size());
            ASSERT_LT(spans[i].endEvent, events.size());
            const EventRecord &start = events[spans[i].startEvent], &end = events[spans[i].endEvent];
            EXPECT_EQ(start.localNs, shape.startNs);
            EXPECT_EQ(end.localNs, shape.endNs);
            EXPECT_EQ(data.label(start.task), shape.taskName());
            EXPECT_EQ(data.label(end.task), shape.taskName());
        }
    }
    EXPECT_GT(spanRequests, 0u);
}

} // namespace

TEST(TraceDataRuns, ThreeRunsReadWhatOneScanReads) {
    const test::ScratchDir dir;
    auto store = mixedStore(dir);
    auto one = loadTraceData(*store, RequestIdRange{}, nullptr, nullptr, ReadRuns{1});
    auto three = readInSnapshot(*store, RequestIdRange{}, ReadRuns{3, 1});
    ASSERT_TRUE(one && three);
    EXPECT_GE(one->requestCount(), 600u);
    expectSameData(three.value(), one.value());
    // A distributed run's share is read in runs too.
    const auto cuts = store->requestIdCuts(2);
    auto half = loadTraceData(*store, RequestIdRange{cuts[1], cuts[2]}, nullptr, nullptr, ReadRuns{1});
    auto halfInRuns = readInSnapshot(*store, RequestIdRange{cuts[1], cuts[2]}, ReadRuns{2, 1});
    ASSERT_TRUE(half && halfInRuns);
    EXPECT_LT(half->requestCount(), one->requestCount());
    expectSameData(halfInRuns.value(), half.value());
}

TEST(TraceDataRuns, EventCountsThatDisagreeWithTheEventsReadTheSame) {
    const test::ScratchDir dir;
    auto store = test::generatedStore(dir, 300, 5);
    auto expected = loadTraceData(*store, RequestIdRange{}, nullptr, nullptr, ReadRuns{1});
    ASSERT_TRUE(expected);
    // Counted too many in the first run (its slice has a gap), then too few (it overflows its slice).
    for (const char* sql : {"UPDATE requests SET event_count = event_count + 7 WHERE id = (SELECT MIN(id) FROM requests)",
                            "UPDATE requests SET event_count = event_count - 20 WHERE id = (SELECT MIN(id) FROM requests)"}) {
        execute(*store, sql);
        auto runs = readInSnapshot(*store, RequestIdRange{}, ReadRuns{2, 1});
        ASSERT_TRUE(runs) << runs.message();
        expectSameData(runs.value(), expected.value());
    }
}

TEST(TraceDataRuns, AnImportCommittedDuringTheReadIsNotSeen) {
    const test::ScratchDir dir;
    auto store = test::generatedStore(dir, 200, 8);
    auto before = loadTraceData(*store, RequestIdRange{}, nullptr, nullptr, ReadRuns{1});
    ASSERT_TRUE(before);
    ASSERT_TRUE(store->beginRead());
    ASSERT_EQ(store->requestCount(), 200);  // the snapshot starts here
    {
        auto other = TraceStore::open(dir.file("s.tldb"), TraceStore::Mode::ReadWrite);
        ASSERT_TRUE(other) << other.message();
        const std::string csv = dir.file("late.csv");
        std::ofstream(csv) << "request,host,task,event,ts_us,seq\nlate-1,h,t,a,1,0\nlate-1,h,t,b,2,1\n";
        ImportOptions import;
        import.inputs = {csv};
        ASSERT_TRUE(importTraces(*other.value(), import));
    }
    auto during = loadTraceData(*store, RequestIdRange{}, nullptr, nullptr, ReadRuns{2, 1});
    store->endRead();
    ASSERT_TRUE(during) << during.message();
    expectSameData(during.value(), before.value());
    EXPECT_EQ(store->requestCount(), 201);
}

// Each event's host is the one stored, whether its label id is small (found by id in a table) or far past
// any the import gives (a damaged store: found in a map instead, the table staying small), one scan or runs.
TEST(TraceDataRuns, EveryEventKeepsItsStoredHostWhateverItsLabelId) {
    const test::ScratchDir dir;
    auto store = test::generatedStore(dir, 300, 7);
    execute(*store, "UPDATE events SET host_id = host_id + 5000000 WHERE request_id % 3 = 1");
    execute(*store, "UPDATE events SET host_id = 4294967000 - host_id WHERE request_id % 3 = 2 AND task_id % 2 = 0");
    const auto stored = test::StoreAccess::rows(*store, "SELECT host_id FROM events ORDER BY request_id, task_id, ord");
    auto one = loadTraceData(*store, RequestIdRange{}, nullptr, nullptr, ReadRuns{1});
    ASSERT_TRUE(one) << one.message();
    ASSERT_EQ(one->events.size(), stored.size());
    std::set<std::uint32_t> distinct;
    for (std::size_t i = 0; i < stored.size(); ++i) {
        const std::uint32_t host = one->hostLabels.at(one->events[i].host.value).value;
        ASSERT_EQ(std::to_string(host), stored[i]) << "event " << i;
        distinct.insert(host);
    }
    EXPECT_EQ(distinct.size(), one->hostLabels.size()) << "a host interned twice";
    EXPECT_GT(*distinct.rbegin(), 4'000'000'000u);
    auto runs = readInSnapshot(*store, RequestIdRange{}, ReadRuns{3, 1});
    ASSERT_TRUE(runs) << runs.message();
    expectSameData(runs.value(), one.value());
}

TEST(TraceDataSpans, EverySpanIsItsStoredSpanByEventIndex) {
    const test::ScratchDir dir;
    auto store = logsThenSpans(dir, 20, 6);
    auto data = loadTraceData(*store);
    ASSERT_TRUE(data) << data.message();
    ASSERT_EQ(data->requestCount(), 26u);
    expectStoredSpans(*store, data.value());
    std::size_t logs = 0;
    for (std::size_t r = 0; r < data->requestCount(); ++r) {
        if (data->isFromSpans(r)) continue;
        EXPECT_TRUE(data->spansOf(r).empty()) << "an event log has no spans";
        ++logs;
    }
    EXPECT_EQ(logs, 20u);
    EXPECT_EQ(data->spans.size(), 30u);
    // The server joined into its client's task has its events there.
    const std::size_t r = data->requestCount() - 1;
    const auto spans = data->spansOf(r);
    const auto events = data->eventsOf(r);
    const RequestSpanShapes shapes = requestSpanShapes(*store, data->requestIds[r]);
    ASSERT_EQ(spans.size(), 5u);
    std::size_t client = 5, server = 5;
    for (std::size_t i = 0; i < shapes.spans.size(); ++i) {
        if (shapes.spans[i].operation == "call backend") client = i;
        if (shapes.spans[i].operation == "handle") server = i;
    }
    ASSERT_TRUE(client < 5 && server < 5);
    EXPECT_EQ(spans[server].parent, std::int32_t(client));
    EXPECT_EQ(events[spans[server].startEvent].task, events[spans[client].startEvent].task);
    EXPECT_LT(spans[client].startEvent, spans[server].startEvent);
    EXPECT_LT(spans[server].endEvent, spans[client].endEvent);
    // The request's detail resolves the same spans to the same events.
    for (std::size_t k : {std::size_t(0), r}) {
        auto detail = loadRequestDetail(*store, data->requestIds[k]);
        ASSERT_TRUE(detail) << detail.message();
        const auto expected = data->spansOf(k);
        ASSERT_EQ(detail->spanRefs.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i)
            EXPECT_TRUE(detail->spanRefs[i].parent == expected[i].parent && detail->spanRefs[i].startEvent == expected[i].startEvent &&
                        detail->spanRefs[i].endEvent == expected[i].endEvent)
                << "span " << i;
    }
}

TEST(TraceDataSpans, RealJaegerTracesSpansAreTheirStoredSpans) {
    const test::ScratchDir dir;
    auto store = mixedStore(dir);
    auto data = loadTraceData(*store);
    ASSERT_TRUE(data) << data.message();
    if (spanRequestIds(*store).empty()) GTEST_SKIP() << "no shared/realdata/jaeger beside this checkout";
    expectStoredSpans(*store, data.value());
}

// A missing span row (a damaged store) leaves a span without events at its index, so the others keep theirs;
// a span whose position names no event keeps its parent but not that event.
TEST(TraceDataSpans, AMissingSpanRowOrEventKeepsTheOthersAtTheirIndex) {
    const test::ScratchDir dir;
    auto store = logsThenSpans(dir, 2, 2);
    test::StoreAccess::storeEventModel(*store);  // events apart from the spans, as before schema 13
    auto before = loadTraceData(*store);
    ASSERT_TRUE(before) << before.message();
    const std::size_t r = before->requestCount() - 1;
    const std::string request = std::to_string(before->requestIds[r].value);
    execute(*store, ("DELETE FROM spans WHERE request_id = " + request + " AND idx = 1").c_str());
    execute(*store, ("UPDATE spans SET end_ord = 1000000 WHERE request_id = " + request + " AND idx = 3").c_str());
    auto after = loadTraceData(*store);
    ASSERT_TRUE(after) << after.message();
    const auto was = before->spansOf(r), is = after->spansOf(r);
    ASSERT_EQ(is.size(), was.size());
    EXPECT_EQ(is[1].startEvent, SpanRef::kNoEvent);
    EXPECT_EQ(is[1].endEvent, SpanRef::kNoEvent);
    EXPECT_EQ(is[3].startEvent, was[3].startEvent);
    EXPECT_EQ(is[3].endEvent, SpanRef::kNoEvent);
    for (std::size_t i : {std::size_t(0), std::size_t(2), std::size_t(4)}) {
        EXPECT_EQ(is[i].parent, was[i].parent) << i;
        EXPECT_EQ(is[i].startEvent, was[i].startEvent) << i;
        EXPECT_EQ(is[i].endEvent, was[i].endEvent) << i;
    }
    auto detail = loadRequestDetail(*store, after->requestIds[r]);
    ASSERT_TRUE(detail) << detail.message();
    ASSERT_EQ(detail->spanRefs.size(), is.size());
    for (std::size_t i = 0; i < is.size(); ++i)
        EXPECT_TRUE(detail->spanRefs[i].startEvent == is[i].startEvent && detail->spanRefs[i].endEvent == is[i].endEvent) << i;
}

// Span requests in two of three runs: the spans and their per-request ranges are one scan's.
TEST(TraceDataRuns, SpansReadInRunsAreOneScansSpans) {
    const test::ScratchDir dir;
    auto store = logsThenSpans(dir, 60, 120);
    auto one = loadTraceData(*store, RequestIdRange{}, nullptr, nullptr, ReadRuns{1});
    auto three = readInSnapshot(*store, RequestIdRange{}, ReadRuns{.runs = 3, .minEventsPerRun = 1});
    ASSERT_TRUE(one && three);
    ASSERT_EQ(one->spans.size(), 600u);
    expectSameData(three.value(), one.value());
    expectStoredSpans(*store, three.value());
    auto two = readInSnapshot(*store, RequestIdRange{}, ReadRuns{.runs = 2, .minEventsPerRun = 1});
    ASSERT_TRUE(two);
    expectSameData(two.value(), one.value());
}
