// Reading a store in runs of requests, each on its own connection and merged after, gives exactly what one
// scan gives: the same requests, events, hosts, segment types, links and labels, id for id.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "core/GeneratedStore.h"
#include "StoreAccess.h"
#include "TestUtil.h"
#include "tracelight/analysis/TraceData.h"

using namespace tracelight;

namespace {

void expectSameData(const TraceData& runs, const TraceData& one) {
    EXPECT_EQ(runs.requestIds, one.requestIds);
    EXPECT_EQ(runs.requestBegin, one.requestBegin);
    EXPECT_EQ(runs.fromSpans, one.fromSpans);
    EXPECT_EQ(runs.hostLabels, one.hostLabels);
    EXPECT_EQ(runs.linkBegin, one.linkBegin);
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
