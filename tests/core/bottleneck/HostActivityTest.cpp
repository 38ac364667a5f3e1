// Host activity (NSDI'18's non-traced load and vertical context injection): the index against a plain scan of
// every record, a request's context and strip on a hand-made set whose overlaps are known, and the burst windows.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/TraceData.h"
#include "tracelight/bottleneck/BurstWindows.h"
#include "tracelight/bottleneck/HostActivity.h"
#include "tracelight/bottleneck/TemporalContext.h"

using namespace tracelight;

namespace {
constexpr TimeNs ms = 1'000'000;

HostActivity record(std::uint32_t host, std::uint32_t what, TimeNs start, TimeNs end, RequestId request = {}) {
    HostActivity a;
    a.host = LabelId(host);
    a.what = LabelId(what);
    a.startNs = start;
    a.endNs = end;
    a.request = request;
    return a;
}
} // namespace

TEST(HostActivityIndex, FindsWhatAScanOfEveryRecordFinds) {
    std::mt19937_64 rng(42);
    HostActivitySet set;
    HostOffsets offsets{{0, 3 * ms}, {1, -7 * ms}};  // host 2 keeps its own clock
    for (int i = 0; i < 600; ++i) {
        const TimeNs start = static_cast<TimeNs>(rng() % 1000) * ms / 4;
        // Mostly short, a few long (a compaction running across many queries).
        const TimeNs length = i % 50 == 0 ? static_cast<TimeNs>(rng() % 200) * ms : static_cast<TimeNs>(rng() % 3000) * 1000;
        set.records.push_back(record(static_cast<std::uint32_t>(rng() % 3), 10, start, start + length));
    }
    const HostActivityIndex index(set, offsets);
    for (int q = 0; q < 300; ++q) {
        const auto host = static_cast<std::uint32_t>(rng() % 4);  // 3: a host without activity
        const TimeNs from = static_cast<TimeNs>(rng() % 260) * ms, to = from + static_cast<TimeNs>(rng() % 20) * ms;
        std::multiset<const HostActivity*> found, scanned;
        index.forEachOverlapping(LabelId(host), from, to, [&](const PlacedActivity& p) {
            found.insert(p.record);
            const TimeNs shift = offsets.count(host) ? offsets.at(host) : 0;
            EXPECT_EQ(p.startNs, p.record->startNs - shift);
        });
        for (const HostActivity& a : set.records) {
            const TimeNs shift = offsets.count(a.host.value) ? offsets.at(a.host.value) : 0;
            if (a.host.value == host && a.startNs - shift <= to && a.endNs - shift >= from) scanned.insert(&a);
        }
        EXPECT_EQ(found, scanned) << "host " << host << " [" << from << ", " << to << "]";
    }
}

TEST(HostActivity, CountsTheWorkBesideARequestAndAttributesItsOwn) {
    enum : std::uint32_t { Task = 1, S, E, M, Web, Db, Cache, Gc = 100, Compaction, Cron, Read, Write };
    TraceDataBuilder b;
    for (auto [id, text] : {std::pair{Task, "t"}, {S, "S"}, {E, "E"}, {M, "M"}, {Web, "web-1"}, {Db, "db-1"}, {Cache, "cache-1"}})
        b.setLabel(id, text);
    // 1: the request, on web-1 from 100 to 200 ms and on db-1 at 150 ms; 2: another, on cache-1.
    b.beginRequest(RequestId(1));
    b.addEvent(Task, S, Web, 100 * ms);
    b.addEvent(Task, M, Db, 150 * ms);
    b.addEvent(Task, E, Web, 200 * ms);
    b.beginRequest(RequestId(2));
    b.addEvent(Task, S, Cache, 100 * ms);
    b.addEvent(Task, E, Cache, 120 * ms);
    InMemoryAnalysis analysis;
    analysis.data = b.finish();
    analysis.offsets = ClockOffsets::none(analysis.data.hostLabels.size());

    HostActivitySet set;
    set.names = {{Web, "web-1"}, {Db, "db-1"}, {Cache, "cache-1"}, {Gc, "gc"}, {Compaction, "compaction"}, {Cron, "cron"},
                 {Read, "syscall:read"}, {Write, "syscall:write"}};
    set.records = {
        record(Web, Gc, 90 * ms, 110 * ms),           // 10 ms inside the window
        record(Web, Compaction, 150 * ms, 250 * ms),  // 50 ms inside
        record(Web, Cron, 300 * ms, 310 * ms),        // after it
        record(Db, Gc, 120 * ms, 125 * ms),           // 5 ms inside
        record(Db, Read, 160 * ms, 161 * ms, RequestId(1)),   // the request's own low-level work
        record(Db, Write, 170 * ms, 172 * ms, RequestId(2)),  // another request's: beside it, 2 ms
        record(Cache, Gc, 100 * ms, 200 * ms),        // on a host the request never touched
    };
    set.records[4].span = "s-7";
    const HostActivityIndex activity(set, hostOffsetsByLabel(analysis.data, analysis.offsets));
    const HostTimeIndex index(analysis.data, analysis.offsets);

    const TemporalContext c = temporalContext(analysis, index, 0, false, &activity);
    ASSERT_EQ(c.hosts.size(), 2u);
    EXPECT_EQ(c.hosts[0].host, "web-1");
    EXPECT_EQ(c.hosts[0].activityRecords, 2);
    EXPECT_EQ(c.hosts[0].activityNs, 60 * ms);
    ASSERT_EQ(c.hosts[0].activity.size(), 2u);
    EXPECT_EQ(c.hosts[0].activity[0].what, "compaction");  // most time first
    EXPECT_EQ(c.hosts[0].activity[0].overlapNs, 50 * ms);
    EXPECT_EQ(c.hosts[0].activity[1].what, "gc");
    EXPECT_EQ(c.hosts[0].activity[1].overlapNs, 10 * ms);
    EXPECT_EQ(c.hosts[1].host, "db-1");
    EXPECT_EQ(c.hosts[1].activityRecords, 2);  // gc and the other request's write, not its own read
    EXPECT_EQ(c.hosts[1].activityNs, 7 * ms);
    ASSERT_EQ(c.own.size(), 1u);
    EXPECT_EQ(c.own[0].host, "db-1");
    EXPECT_EQ(c.own[0].what, "syscall:read");
    EXPECT_EQ(c.own[0].span, "s-7");
    EXPECT_EQ(c.own[0].startNs, 160 * ms);
    EXPECT_EQ(c.own[0].endNs, 161 * ms);

    // Without the index nothing of it: the context as before.
    const TemporalContext plain = temporalContext(analysis, index, 0);
    EXPECT_EQ(plain.hosts[0].activityRecords, 0);
    EXPECT_TRUE(plain.own.empty());

    // Over time, 10 slices of 10 ms: the slices' time adds up to the whole window's per host (they share only
    // their bounds), gc fills slice 0 and the compaction slices 5 to 9.
    const ContextStrip strip = temporalContextStrip(analysis, index, 0, 10, 50, false, &activity);
    EXPECT_TRUE(strip.withActivity);
    ASSERT_EQ(strip.own.size(), 1u);
    for (std::size_t h = 0; h < 2; ++h) {
        ASSERT_EQ(strip.hosts[h].activityNs.size(), 10u);
        TimeNs sum = 0;
        for (TimeNs t : strip.hosts[h].activityNs) sum += t;
        EXPECT_EQ(sum, c.hosts[h].activityNs) << strip.hosts[h].host;
    }
    const auto& web = strip.hosts[0];
    EXPECT_EQ(web.activityNs[0], 10 * ms);
    EXPECT_EQ(web.activityNs[2], 0);
    EXPECT_EQ(web.activityRecords[2], 0);
    for (std::size_t s = 5; s < 10; ++s) EXPECT_EQ(web.activityNs[s], 10 * ms) << "slice " << s;
    EXPECT_EQ(web.activity[7].front().what, "compaction");
}

TEST(HostActivity, IsFiledOnTheAnalysisClocks) {
    // db-1's clock runs 40 ms ahead (local = true + offset): its record at 160-170 ms local is 120-130 ms true.
    enum : std::uint32_t { Task = 1, S, E, Db, Gc = 100 };
    TraceDataBuilder b;
    for (auto [id, text] : {std::pair{Task, "t"}, {S, "S"}, {E, "E"}, {Db, "db-1"}}) b.setLabel(id, text);
    b.beginRequest(RequestId(1));
    b.addEvent(Task, S, Db, 140 * ms);  // local: 100-150 ms true
    b.addEvent(Task, E, Db, 190 * ms);
    InMemoryAnalysis analysis;
    analysis.data = b.finish();
    analysis.offsets = ClockOffsets::none(analysis.data.hostLabels.size());
    analysis.offsets.offsetNs[0] = 40 * ms;
    HostActivitySet set;
    set.names = {{Db, "db-1"}, {Gc, "gc"}};
    set.records = {record(Db, Gc, 160 * ms, 170 * ms)};
    const HostActivityIndex activity(set, hostOffsetsByLabel(analysis.data, analysis.offsets));
    const HostTimeIndex index(analysis.data, analysis.offsets);
    const TemporalContext c = temporalContext(analysis, index, 0, false, &activity);
    EXPECT_EQ(c.startNs, 100 * ms);
    ASSERT_EQ(c.hosts.size(), 1u);
    EXPECT_EQ(c.hosts[0].activityNs, 10 * ms);
    // The same record on the host's own clock, the window too: still inside.
    const HostActivityIndex local(set, {});
    const HostTimeIndex localIndex(analysis.data, ClockOffsets::none(1));
    const TemporalContext l = temporalContext(analysis, localIndex, 0, true, &local);
    EXPECT_EQ(l.startNs, 140 * ms);
    EXPECT_EQ(l.hosts[0].activityNs, 10 * ms);
}

TEST(HostActivity, CountedInsideBurstWindows) {
    // Mask 0x3: 1 ms windows at every millisecond whose two low bits are set. Requests start at 3 and 7 ms.
    const std::vector<TimeNs> starts{3 * ms + 200'000, 7 * ms + 500'000};
    const BurstWindows windows = burstWindows(starts, 0x3);
    ASSERT_EQ(windows.windows.size(), 2u);
    HostActivitySet set;
    set.names = {{1, "web-1"}, {2, "db-1"}, {10, "gc"}, {11, "cron"}};
    set.records = {
        record(1, 10, 3 * ms + 500'000, 3 * ms + 600'000),  // 0.1 ms inside the first window
        record(2, 11, 3 * ms + 900'000, 4 * ms + 900'000),  // its last 0.1 ms, on another host
        record(1, 10, 5 * ms, 5 * ms + 500'000),            // between the windows
        record(2, 10, 6 * ms + 900'000, 7 * ms + 200'000),  // the second window's first 0.2 ms
    };
    const auto inside = hostActivityInBursts(windows, HostActivityIndex(set, {}));
    ASSERT_EQ(inside.size(), 2u);
    EXPECT_EQ(inside[0].records, 2);
    EXPECT_EQ(inside[0].hosts, 2);
    EXPECT_EQ(inside[0].overlapNs, 200'000);
    ASSERT_EQ(inside[0].activity.size(), 2u);
    EXPECT_EQ(inside[1].records, 1);
    EXPECT_EQ(inside[1].hosts, 1);
    EXPECT_EQ(inside[1].overlapNs, 200'000);
    EXPECT_EQ(inside[1].activity.front().what, "gc");
}

TEST(HostActivity, AContextAsksForItsHostsWindowsOnTheirOwnClocks) {
    // The request from 100 to 150 ms true: web-1 runs 40 ms ahead, db-1 10 ms behind (local = true + offset).
    enum : std::uint32_t { Task = 1, S, M, E, Web, Db };
    TraceDataBuilder b;
    for (auto [id, text] : {std::pair{Task, "t"}, {S, "S"}, {M, "M"}, {E, "E"}, {Web, "web-1"}, {Db, "db-1"}}) b.setLabel(id, text);
    b.beginRequest(RequestId(1));
    b.addEvent(Task, S, Web, 140 * ms);
    b.addEvent(Task, M, Db, 110 * ms);
    b.addEvent(Task, E, Web, 190 * ms);
    InMemoryAnalysis analysis;
    analysis.data = b.finish();
    analysis.offsets = ClockOffsets::none(analysis.data.hostLabels.size());
    analysis.offsets.offsetNs[0] = 40 * ms;   // web-1, the first host reached
    analysis.offsets.offsetNs[1] = -10 * ms;  // db-1
    const HostActivityQuery q = hostActivityQuery(analysis, 0, false, "r1");
    EXPECT_EQ(q.request, "r1");
    ASSERT_EQ(q.hosts.size(), 2u);
    EXPECT_EQ(q.hosts[0].host, LabelId(Web));
    EXPECT_EQ(q.hosts[0].fromNs, 140 * ms);  // 100-150 ms true is 140-190 ms on web-1's clock
    EXPECT_EQ(q.hosts[0].toNs, 190 * ms);
    EXPECT_EQ(q.hosts[1].host, LabelId(Db));
    EXPECT_EQ(q.hosts[1].fromNs, 90 * ms);
    EXPECT_EQ(q.hosts[1].toNs, 140 * ms);
    // On the recorded clocks the lifetime is 110-190 ms, the same on every host.
    const HostActivityQuery local = hostActivityQuery(analysis, 0, true, "r1");
    ASSERT_EQ(local.hosts.size(), 2u);
    for (const auto& w : local.hosts) {
        EXPECT_EQ(w.fromNs, 110 * ms);
        EXPECT_EQ(w.toNs, 190 * ms);
    }
}
