// A request in its temporal context: what else ran on its hosts while it did, on a hand-made set whose
// overlaps are known.
#include <gtest/gtest.h>

#include <algorithm>

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

    const TemporalContext c = temporalContext(analysis, 0);
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
    const TemporalContext alone = temporalContext(analysis, 4);
    ASSERT_EQ(alone.hosts.size(), 1u);
    EXPECT_EQ(alone.hosts[0].concurrentRequests, 0);
    EXPECT_TRUE(alone.concurrent.empty());
}
