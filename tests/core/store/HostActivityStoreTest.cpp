// Host activity in the store: records round-trip with their labels shared with the traces' hosts, a marker
// resolves to the request it names (imported before or after), and a failed add leaves what was stored.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "TestUtil.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/HostActivityStore.h"
#include "tracelight/store/RequestReads.h"

using namespace tracelight;

namespace {
HostActivityInput input(std::string host, TimeNs start, TimeNs end, std::string what, std::string request = {}) {
    return {std::move(host), start, end, std::move(what), std::move(request), {}};
}
} // namespace

TEST(HostActivityStore, RoundTripsAndResolvesMarkersToRequests) {
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("h.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    TraceStore& st = *store.value();
    EXPECT_EQ(hostActivityCount(st), 0);
    EXPECT_FALSE(hasHostActivity(st));
    // Activity first (a marker naming a request not yet imported), then the traces, then more activity.
    const std::vector<HostActivityInput> first{input("db-1", 500, 900, "compaction"), input("web-1", 100, 150, "syscall:read", "r1")};
    ASSERT_TRUE(addHostActivity(st, first));
    ImportOptions import;
    import.inputs = {dir.write("t.csv", "request,host,task,event,ts_ns\nr1,web-1,t,S,100\nr1,db-1,t,M,120\nr1,web-1,t,E,200\n")};
    ASSERT_TRUE(importTraces(st, import));
    std::vector<HostActivityInput> second{input("web-1", 10, 20, "gc", "r-unknown")};
    second[0].span = "s9";
    ASSERT_TRUE(addHostActivity(st, second));
    EXPECT_EQ(hostActivityCount(st), 3);

    const auto set = loadHostActivity(st);
    ASSERT_TRUE(set) << set.message();
    ASSERT_EQ(set->records.size(), 3u);
    const auto r1 = requestByName(st, "r1");
    ASSERT_TRUE(r1);
    int marked = 0;
    for (const HostActivity& a : set->records) {
        // The host is the traces' own label: the same id as the events' host of that name.
        EXPECT_EQ(st.label(a.host), set->name(a.host));
        if (set->name(a.what) == "syscall:read") {
            EXPECT_EQ(a.request, *r1);
            EXPECT_EQ(a.requestMarker, "r1");
            EXPECT_EQ(a.startNs, 100);
            EXPECT_EQ(a.endNs, 150);
            ++marked;
        }
        if (set->name(a.what) == "gc") {
            EXPECT_FALSE(a.request.isValid());  // names no stored request
            EXPECT_EQ(a.requestMarker, "r-unknown");
            EXPECT_EQ(a.span, "s9");
        }
    }
    EXPECT_EQ(marked, 1);
    // The traces still read as before: the host activity's labels did not take theirs.
    auto info = st.info();
    ASSERT_TRUE(info);
    EXPECT_EQ(info->requests, 1);
    EXPECT_EQ(info->hosts, 2);
}

TEST(HostActivityStore, AFailedAddStoresNothingAndKeepsWhatWasThere) {
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("h.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    TraceStore& st = *store.value();
    ASSERT_TRUE(addHostActivity(st, std::vector<HostActivityInput>{input("db-1", 500, 900, "compaction")}));
    // A second add that fails half-way (the table is made to refuse its second row).
    ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(st),
                           "CREATE TRIGGER refuse BEFORE INSERT ON host_activity WHEN NEW.start_ns = 7 BEGIN SELECT RAISE(ABORT, 'refused'); END",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    const auto failed = addHostActivity(st, std::vector<HostActivityInput>{input("web-9", 1, 2, "gc"), input("web-9", 7, 8, "cron")});
    ASSERT_FALSE(failed);
    EXPECT_NE(failed.message().find("refused"), std::string::npos) << failed.message();
    EXPECT_EQ(hostActivityCount(st), 1);
    const auto set = loadHostActivity(st);
    ASSERT_TRUE(set);
    ASSERT_EQ(set->records.size(), 1u);
    EXPECT_EQ(set->name(set->records[0].what), "compaction");
}

TEST(HostActivityStore, AQueryReadsWhatAFilterOfEveryRecordKeeps) {
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("h.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    TraceStore& st = *store.value();
    ImportOptions import;
    import.inputs = {dir.write("t.csv", "request,host,task,event,ts_ns\nr1,web-1,t,S,100\nr1,web-1,t,E,200\n")};
    ASSERT_TRUE(importTraces(st, import));
    std::vector<HostActivityInput> records;
    const char* hosts[] = {"web-1", "web-2", "db-1"};
    for (int i = 0; i < 300; ++i) {
        const TimeNs start = (i * 37) % 1000, length = (i * 13) % 120;
        records.push_back(input(hosts[i % 3], start, start + length, i % 2 ? "gc" : "cron", i % 17 == 0 ? "r1" : ""));
    }
    ASSERT_TRUE(addHostActivity(st, records));
    const auto all = loadHostActivity(st);
    ASSERT_TRUE(all);
    // web-1 in [100, 200], db-1 in [500, 520], and r1's records wherever they ran.
    const auto web1 = all->records.front().host;  // records come by host label: web-1's label was made by the import
    LabelId db1;
    for (const HostActivity& a : all->records)
        if (all->name(a.host) == "db-1") db1 = a.host;
    ASSERT_EQ(all->name(web1), "web-1");
    HostActivityQuery query{{{web1, 100, 200}, {db1, 500, 520}}, "r1"};
    const auto some = loadHostActivity(st, query);
    ASSERT_TRUE(some) << some.message();
    std::multiset<std::tuple<std::string, TimeNs, TimeNs, std::string>> got, want;
    for (const HostActivity& a : some->records) got.insert({some->name(a.host), a.startNs, a.endNs, a.requestMarker});
    for (const HostActivity& a : all->records) {
        const bool inWindow = (a.host == web1 && a.startNs <= 200 && a.endNs >= 100) || (a.host == db1 && a.startNs <= 520 && a.endNs >= 500);
        if (inWindow || a.requestMarker == "r1") want.insert({all->name(a.host), a.startNs, a.endNs, a.requestMarker});
    }
    EXPECT_EQ(got, want);
    EXPECT_LT(got.size(), all->records.size());
    EXPECT_GT(got.size(), 20u);
}

// A window reads a host's records from its start less the host's longest record: a record that began long before
// the window and runs across it is found, whichever add brought it, and a later, shorter add keeps the bound.
TEST(HostActivityStore, ALongRecordIsFoundByAWindowLongAfterItsStart) {
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("h.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    TraceStore& st = *store.value();
    std::vector<HostActivityInput> shortOnes;
    for (int i = 0; i < 100; ++i) shortOnes.push_back(input("db-1", i * 100, i * 100 + 10, "gc", ""));
    ASSERT_TRUE(addHostActivity(st, shortOnes));
    ASSERT_TRUE(addHostActivity(st, std::vector<HostActivityInput>{input("db-1", 50, 1'000'000, "compaction", "")}));
    ASSERT_TRUE(addHostActivity(st, std::vector<HostActivityInput>{input("db-1", 20'000, 20'005, "cron", "")}));
    const auto all = loadHostActivity(st);
    ASSERT_TRUE(all);
    const LabelId db1 = all->records.front().host;
    const auto late = loadHostActivity(st, HostActivityQuery{{{db1, 500'000, 500'100}}, ""});
    ASSERT_TRUE(late) << late.message();
    ASSERT_EQ(late->records.size(), 1u);
    EXPECT_EQ(late->name(late->records[0].what), "compaction");
    const auto early = loadHostActivity(st, HostActivityQuery{{{db1, 9'905, 9'906}}, ""});
    ASSERT_TRUE(early) << early.message();
    EXPECT_EQ(early->records.size(), 2u);  // the gc at 9,900-9,910 and the compaction
    EXPECT_TRUE(hasHostActivity(st));
}

// The same records added again (a file given twice) are passed over: the counts of a context do not double.
TEST(HostActivityStore, RecordsAddedAgainAreStoredOnce) {
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("h.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    TraceStore& st = *store.value();
    const std::vector<HostActivityInput> records{input("web-1", 0, 10, "gc"), input("web-1", 0, 10, "gc", "r1"),
                                                 input("web-1", 5, 10, "gc"), input("db-1", 0, 10, "gc")};
    auto first = addHostActivity(st, records);
    ASSERT_TRUE(first) << first.message();
    EXPECT_EQ(first.value(), 4);
    auto again = addHostActivity(st, records);
    ASSERT_TRUE(again) << again.message();
    EXPECT_EQ(again.value(), 0);
    EXPECT_EQ(hostActivityCount(st), 4);
    auto more = addHostActivity(st, std::vector<HostActivityInput>{input("web-1", 0, 10, "gc"), input("web-1", 0, 11, "gc")});
    ASSERT_TRUE(more) << more.message();
    EXPECT_EQ(more.value(), 1);
    EXPECT_EQ(hostActivityCount(st), 5);
}
