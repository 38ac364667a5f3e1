// A request in its temporal context: what else ran on its hosts while it did, on a hand-made set whose
// overlaps are known, and on random sets against a plain scan of every event (what the index replaces).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <set>
#include <string>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/TraceData.h"
#include "tracelight/bottleneck/TemporalContext.h"

using namespace tracelight;

TEST(TemporalContext, CountsWhatRanOnTheSameHostsDuringTheRequest) {
    enum : std::uint32_t { Task = 1, S, E, M, Web, Db };
    TraceDataBuilder b;
    for (auto [id, text] : {std::pair{Task, "t"}, {S, "S"}, {E, "E"}, {M, "M"}, {Web, "web-1"}, {Db, "db-1"}}) b.setLabel(id, text);
    constexpr TimeNs ms = 1'000'000;
    // 1: the request, on web-1 from 100 to 200 ms and on db-1 at 150 ms.
    b.beginRequest(RequestId(1));
    b.addEvent(Task, S, Web, 100 * ms);
    b.addEvent(Task, M, Db, 150 * ms);
    b.addEvent(Task, E, Web, 200 * ms);
    // 2: events on web-1 inside the window (one segment there overlapping it).
    b.beginRequest(RequestId(2));
    b.addEvent(Task, S, Web, 150 * ms);
    b.addEvent(Task, E, Web, 160 * ms);
    // 3: one segment on web-1 from 50 to 300 ms: no event inside, but running across it.
    b.beginRequest(RequestId(3));
    b.addEvent(Task, S, Web, 50 * ms);
    b.addEvent(Task, E, Web, 300 * ms);
    // 4: on db-1 inside the window; 5: on web-1 after it.
    b.beginRequest(RequestId(4));
    b.addEvent(Task, S, Db, 120 * ms);
    b.addEvent(Task, E, Db, 130 * ms);
    b.beginRequest(RequestId(5));
    b.addEvent(Task, S, Web, 400 * ms);
    b.addEvent(Task, E, Web, 450 * ms);
    InMemoryAnalysis analysis;
    analysis.data = b.finish();
    analysis.offsets = ClockOffsets::none(analysis.data.hostLabels.size());

    const HostTimeIndex index(analysis.data, analysis.offsets);
    const TemporalContext c = temporalContext(analysis, index, 0);
    EXPECT_EQ(c.request, RequestId(1));
    EXPECT_EQ(c.startNs, 100 * ms);
    EXPECT_EQ(c.endNs, 200 * ms);
    ASSERT_EQ(c.hosts.size(), 2u);
    EXPECT_EQ(c.hosts[0].host, "web-1");
    EXPECT_EQ(c.hosts[0].concurrentRequests, 2);  // 2 and 3
    EXPECT_EQ(c.hosts[0].segments, 2);
    EXPECT_EQ(c.hosts[1].host, "db-1");
    EXPECT_EQ(c.hosts[1].concurrentRequests, 1);  // 4
    EXPECT_EQ(c.hosts[1].segments, 1);
    EXPECT_EQ(c.concurrent, (std::vector<RequestId>{RequestId(2), RequestId(3), RequestId(4)}));

    // The last request, alone on web-1 then: nothing beside it.
    const TemporalContext alone = temporalContext(analysis, index, 4);
    ASSERT_EQ(alone.hosts.size(), 1u);
    EXPECT_EQ(alone.hosts[0].concurrentRequests, 0);
    EXPECT_TRUE(alone.concurrent.empty());

    // Over time (10 slices of 10 ms): 3 runs across the whole window on web-1, 2 only from 150 to 160 ms;
    // 4 on db-1 from 120 to 130 ms. Each host's slices together name exactly its concurrent requests.
    const ContextStrip strip = temporalContextStrip(analysis, index, 0, 10);
    EXPECT_EQ(strip.request, RequestId(1));
    EXPECT_EQ(strip.startNs, 100 * ms);
    ASSERT_EQ(strip.hosts.size(), 2u);
    const auto& web = strip.hosts[0];
    EXPECT_EQ(web.host, "web-1");
    ASSERT_EQ(web.requests.size(), 10u);
    for (int b = 0; b < 10; ++b) {
        const auto& who = web.listed[static_cast<std::size_t>(b)];
        EXPECT_NE(std::find(who.begin(), who.end(), RequestId(3)), who.end()) << "slice " << b;
        const bool two = std::find(who.begin(), who.end(), RequestId(2)) != who.end();
        EXPECT_EQ(two, b == 4 || b == 5 || b == 6) << "slice " << b;  // 150-160 ms touches slices 4 (its end), 5 and 6 (its start)
        EXPECT_EQ(web.requests[static_cast<std::size_t>(b)], static_cast<std::int32_t>(who.size()));
    }
    const auto& db = strip.hosts[1];
    EXPECT_EQ(db.host, "db-1");
    std::set<std::uint32_t> seenOnDb;
    for (const auto& who : db.listed)
        for (auto id : who) seenOnDb.insert(id.value);
    EXPECT_EQ(seenOnDb, (std::set<std::uint32_t>{4}));
    EXPECT_EQ(db.requests[0], 0);
    EXPECT_EQ(db.requests[2], 1);
    EXPECT_TRUE(temporalContextStrip(analysis, index, 99, 10).hosts.empty());  // not a row
}

namespace {

// The definition, by brute force, on the given clocks: the other requests with an event on host h within
// [from, to] or a segment starting there that overlaps it; segments adds up those segments.
std::vector<std::uint32_t> scanHost(const InMemoryAnalysis& a, const ClockOffsets& offsets, std::uint32_t row, HostId h, TimeNs from,
                                    TimeNs to, std::int64_t& segments) {
    const TraceData& td = a.data;
    std::vector<std::uint32_t> rows;
    for (std::uint32_t r = 0; r < td.requestCount(); ++r) {
        if (r == row) continue;
        const auto ev = td.eventsOf(r);
        bool here = false;
        for (std::size_t i = 0; i < ev.size(); ++i) {
            const TimeNs t = offsets.adjusted(ev[i].host, ev[i].localNs);
            here |= ev[i].host == h && t >= from && t <= to;
            if (i == 0 || !ev[i].segmentType.isValid() || ev[i - 1].host != h) continue;
            const TimeNs begin = offsets.adjusted(ev[i - 1].host, ev[i - 1].localNs);
            if (begin <= to && std::max(begin, t) >= from) {
                ++segments;
                here = true;
            }
        }
        if (here) rows.push_back(r);
    }
    return rows;
}

// Every other request's every event and segment against the request's window (first to last event).
TemporalContext scanEverything(const InMemoryAnalysis& a, std::uint32_t row, const ClockOffsets& offsets) {
    const TraceData& td = a.data;
    TemporalContext out;
    out.request = td.requestIds[row];
    std::vector<HostId> hosts;
    out.startNs = std::numeric_limits<TimeNs>::max();
    out.endNs = std::numeric_limits<TimeNs>::min();
    for (const EventRecord& e : td.eventsOf(row)) {
        out.startNs = std::min(out.startNs, offsets.adjusted(e.host, e.localNs));
        out.endNs = std::max(out.endNs, offsets.adjusted(e.host, e.localNs));
        if (std::find(hosts.begin(), hosts.end(), e.host) == hosts.end()) hosts.push_back(e.host);
    }
    for (HostId h : hosts) {
        HostContext c{td.label(td.hostLabels[h.value].value)};
        const auto rows = scanHost(a, offsets, row, h, out.startNs, out.endNs, c.segments);
        c.concurrentRequests = static_cast<std::int64_t>(rows.size());
        for (auto r : rows)
            if (std::find(out.concurrent.begin(), out.concurrent.end(), td.requestIds[r]) == out.concurrent.end())
                out.concurrent.push_back(td.requestIds[r]);
        out.hosts.push_back(c);
    }
    std::sort(out.concurrent.begin(), out.concurrent.end());
    return out;
}

// Random requests over five hosts: tasks that hop between hosts (network segments), long and short
// segments, and skew-corrected clock offsets of up to 1.5 us either way.
InMemoryAnalysis randomRequests(std::uint64_t seed, int requests) {
    enum : std::uint32_t { Start = 1, Step = 2, TaskBase = 10, HostBase = 100 };
    std::mt19937_64 rng(seed);
    TraceDataBuilder b;
    b.setLabel(Start, "S");
    for (std::uint32_t k = 0; k < 8; ++k) b.setLabel(Step + 200 + k, "E" + std::to_string(k));
    for (std::uint32_t t = 0; t < 3; ++t) b.setLabel(TaskBase + t, "t" + std::to_string(t));
    for (std::uint32_t h = 0; h < 5; ++h) b.setLabel(HostBase + h, "host-" + std::to_string(h));
    for (int r = 0; r < requests; ++r) {
        b.beginRequest(RequestId(static_cast<std::uint32_t>(r + 1)));
        TimeNs t = static_cast<TimeNs>(rng() % 1'000'000);
        for (std::uint32_t task = 0; task < 1 + rng() % 3; ++task) {
            TimeNs at = t + static_cast<TimeNs>(rng() % 1000);
            b.addEvent(TaskBase + task, Start, HostBase + static_cast<std::uint32_t>(rng() % 5), at);
            for (std::uint32_t k = 0; k < rng() % 5; ++k) {
                at += rng() % 10 == 0 ? static_cast<TimeNs>(rng() % 200'000) : static_cast<TimeNs>(rng() % 2000);
                b.addEvent(TaskBase + task, Step + 200 + k, HostBase + static_cast<std::uint32_t>(rng() % 5), at);
            }
        }
    }
    InMemoryAnalysis a;
    a.data = b.finish();
    a.offsets = ClockOffsets::none(a.data.hostLabels.size());
    for (auto& o : a.offsets.offsetNs) o = static_cast<TimeNs>(rng() % 3000) - 1500;
    return a;
}

} // namespace

TEST(TemporalContext, TheIndexFindsWhatAScanOfEveryEventFinds) {
    // Random sets with clock offsets, so the windows, the stabbing of long segments and the adjusted clocks
    // are all exercised.
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        constexpr int kRequests = 300;
        const InMemoryAnalysis a = randomRequests(seed, kRequests);
        const HostTimeIndex index(a.data, a.offsets);
        std::int64_t found = 0;
        for (std::uint32_t row = 0; row < a.data.requestCount(); ++row) {
            const TemporalContext got = temporalContext(a, index, row), want = scanEverything(a, row, a.offsets);
            ASSERT_EQ(got.hosts.size(), want.hosts.size());
            for (std::size_t h = 0; h < want.hosts.size(); ++h) {
                EXPECT_EQ(got.hosts[h].host, want.hosts[h].host);
                EXPECT_EQ(got.hosts[h].concurrentRequests, want.hosts[h].concurrentRequests) << "seed " << seed << " row " << row;
                EXPECT_EQ(got.hosts[h].segments, want.hosts[h].segments) << "seed " << seed << " row " << row;
                found += got.hosts[h].segments;
            }
            EXPECT_EQ(got.concurrent, want.concurrent);
            if (row % 50 == 0) {  // an index of the request's own hosts, without its own items, answers the same
                const HostTimeIndex own = HostTimeIndex::forRequest(a.data, a.offsets, row);
                const TemporalContext fromOwn = temporalContext(a, own, row);
                ASSERT_EQ(fromOwn.hosts.size(), want.hosts.size());
                for (std::size_t h = 0; h < want.hosts.size(); ++h) {
                    EXPECT_EQ(fromOwn.hosts[h].concurrentRequests, want.hosts[h].concurrentRequests);
                    EXPECT_EQ(fromOwn.hosts[h].segments, want.hosts[h].segments);
                }
                EXPECT_EQ(fromOwn.concurrent, want.concurrent);
            }
        }
        EXPECT_GT(found, kRequests);  // dense enough that the comparison says something
    }
}

// View › Local Clocks: the window is the request's first to last recorded timestamp (no offsets), and with
// an index filed on the same recorded clocks every slice of the strip holds what a scan on those clocks
// finds. The analysis's offsets are far from none, so the corrected window is elsewhere.
TEST(TemporalContext, OnLocalClocksTheStripRunsOverTheRecordedTimestamps) {
    for (std::uint64_t seed = 6; seed <= 7; ++seed) {
        const InMemoryAnalysis a = randomRequests(seed, 200);
        const ClockOffsets recorded = ClockOffsets::none(a.data.hostLabels.size());
        const HostTimeIndex index(a.data, recorded);
        constexpr int kBuckets = 7;
        int moved = 0;
        std::int64_t found = 0;
        for (std::uint32_t row = 0; row < a.data.requestCount(); row += 3) {
            const auto own = a.data.eventsOf(row);
            TimeNs first = std::numeric_limits<TimeNs>::max(), last = std::numeric_limits<TimeNs>::min();
            for (const EventRecord& e : own) first = std::min(first, e.localNs), last = std::max(last, e.localNs);
            const ContextStrip strip = temporalContextStrip(a, index, row, kBuckets, 1000, true);
            EXPECT_TRUE(strip.localClocks);
            EXPECT_EQ(strip.startNs, first) << "seed " << seed << " row " << row;
            EXPECT_EQ(strip.endNs, last) << "seed " << seed << " row " << row;
            moved += strip.startNs != temporalContext(a, HostTimeIndex::forRequest(a.data, a.offsets, row), row).startNs;
            const TemporalContext whole = temporalContext(a, index, row, true), want = scanEverything(a, row, recorded);
            EXPECT_EQ(whole.concurrent, want.concurrent) << "seed " << seed << " row " << row;
            const auto hosts = hostsOfRequest(a.data, row);
            ASSERT_EQ(strip.hosts.size(), hosts.size());
            const TimeNs span = std::max<TimeNs>(1, last - first);
            for (std::size_t h = 0; h < hosts.size(); ++h) {
                EXPECT_EQ(whole.hosts[h].concurrentRequests, want.hosts[h].concurrentRequests) << "seed " << seed << " row " << row;
                for (int b = 0; b < kBuckets; ++b) {
                    const TimeNs from = first + span * b / kBuckets, to = b + 1 == kBuckets ? last : first + span * (b + 1) / kBuckets;
                    std::int64_t segments = 0;
                    const auto rows = scanHost(a, recorded, row, hosts[h], from, to, segments);
                    const auto k = static_cast<std::size_t>(b);
                    EXPECT_EQ(strip.hosts[h].requests[k], static_cast<std::int32_t>(rows.size())) << "row " << row << " slice " << b;
                    EXPECT_EQ(strip.hosts[h].segments[k], segments) << "row " << row << " slice " << b;
                    std::vector<RequestId> ids;
                    for (auto r : rows) ids.push_back(a.data.requestIds[r]);
                    std::sort(ids.begin(), ids.end());
                    EXPECT_EQ(strip.hosts[h].listed[k], ids) << "row " << row << " slice " << b;
                    found += segments;
                }
            }
        }
        EXPECT_GT(moved, 0) << "the offsets move some window";
        EXPECT_GT(found, 100) << "dense enough that the comparison says something";
    }
}
