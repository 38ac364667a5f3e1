#include <gtest/gtest.h>

#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/compare/TrainSchedule.h"

namespace tracelight {
namespace {

struct Piece {
    std::uint32_t task, fromHost, toHost;
    TimeNs startUs, endUs;
    bool critical;
};

// A request by hand: segments with their task, hosts, times (us) and whether they are critical.
RequestDetail detailOf(std::vector<std::string> hosts, const std::vector<Piece>& pieces) {
    RequestDetail d;
    d.hosts = std::move(hosts);
    d.dag.startNs = 1'000'000;
    for (const Piece& p : pieces) {
        d.dag.segments.push_back({SegmentTypeId(0), d.dag.startNs + p.startUs * 1000, d.dag.startNs + p.endUs * 1000, p.task, p.fromHost != p.toHost});
        d.dag.endNs = std::max(d.dag.endNs, d.dag.startNs + p.endUs * 1000);
        d.segmentTask.push_back(p.task);
        d.segmentStartHost.push_back(p.fromHost);
        d.segmentEndHost.push_back(p.toHost);
        d.critical.push_back(p.critical);
    }
    return d;
}

TEST(TrainSchedule, AStayInOneComponentIsOneLegAndEachCrossingIsItsOwn) {
    // The detail lists the database first; the request visits the web server first. Task 0: web's handler,
    // cut by its call; task 1: the call out and back; task 2: the query on the database.
    const RequestDetail d = detailOf({"db-1", "web-1"}, {{0, 1, 1, 0, 10, true},
                                                          {0, 1, 1, 10, 20, true},
                                                          {0, 1, 1, 70, 80, true},
                                                          {1, 1, 0, 20, 25, true},
                                                          {1, 0, 1, 60, 70, true},
                                                          {2, 0, 0, 25, 40, true},
                                                          {2, 0, 0, 40, 60, false}});
    const TrainSchedule t = trainSchedule(d);
    ASSERT_EQ(t.components, (std::vector<std::string>{"web-1", "db-1"})) << "stations in order of first visit";
    EXPECT_EQ(t.latencyNs, 80'000);
    struct Want {
        std::uint32_t from, to;
        TimeNs start, end;
        bool critical;
    };
    const std::vector<Want> want{{0, 0, 0, 20'000, true},      // web's two back-to-back pieces: one stay
                                 {0, 1, 20'000, 25'000, true},  // the call crosses to the database
                                 {1, 1, 25'000, 40'000, true},
                                 {1, 1, 40'000, 60'000, false},  // critical or not: not merged
                                 {1, 0, 60'000, 70'000, true},   // the reply crosses back
                                 {0, 0, 70'000, 80'000, true}};  // after a gap in its task: a stay of its own
    ASSERT_EQ(t.legs.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(t.legs[i].from, want[i].from) << i;
        EXPECT_EQ(t.legs[i].to, want[i].to) << i;
        EXPECT_EQ(t.legs[i].startNs, want[i].start) << i;
        EXPECT_EQ(t.legs[i].endNs, want[i].end) << i;
        EXPECT_EQ(t.legs[i].critical, want[i].critical) << i;
    }
}

TEST(TrainSchedule, TwoTasksSharingAComponentAreNotJoined) {
    // Back to back on one host, but two tasks (two threads' work): two legs.
    const RequestDetail d = detailOf({"h"}, {{0, 0, 0, 0, 5, true}, {1, 0, 0, 5, 9, true}});
    const TrainSchedule t = trainSchedule(d);
    ASSERT_EQ(t.legs.size(), 2u);
    EXPECT_EQ(t.legs[0].endNs, 5'000);
    EXPECT_EQ(t.legs[1].startNs, 5'000);
}

TEST(TrainSchedule, AnEmptyRequestHasNoStations) {
    const TrainSchedule t = trainSchedule(RequestDetail{});
    EXPECT_TRUE(t.components.empty());
    EXPECT_TRUE(t.legs.empty());
}

} // namespace
} // namespace tracelight
