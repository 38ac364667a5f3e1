// Host activity in the store: records round-trip with their labels shared with the traces' hosts, a marker
// resolves to the request it names (imported before or after), and a failed add leaves what was stored.
#include <gtest/gtest.h>

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
