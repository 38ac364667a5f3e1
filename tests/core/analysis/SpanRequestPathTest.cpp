// The span tree's critical path laid on a request's segments: sections given to the owning span's
// segments, cut where a section covers part of one, gaps blind.
#include <gtest/gtest.h>

#include "tracelight/analysis/Segments.h"
#include "tracelight/analysis/SpanRequestPath.h"

using namespace tracelight;

namespace {

// Events of one request from (task, time) pairs grouped by task; every event after a task's first ends a
// segment.
std::vector<EventRecord> eventsOf(const std::vector<std::pair<std::uint32_t, TimeNs>>& timeline) {
    std::vector<EventRecord> out;
    for (std::size_t i = 0; i < timeline.size(); ++i) {
        const bool continues = i > 0 && timeline[i - 1].first == timeline[i].first;
        out.push_back({timeline[i].first, static_cast<std::uint32_t>(100 + i), HostId(0),
                       continues ? SegmentTypeId(static_cast<std::uint32_t>(i)) : SegmentTypeId(), timeline[i].second});
    }
    return out;
}

struct Laid {
    RequestDag dag;
    CriticalPath path;
    bool placed = false;
};

Laid lay(const std::vector<EventRecord>& events, const std::vector<SpanRef>& spans) {
    Laid out;
    const ClockOffsets offsets = ClockOffsets::none(1);
    const RequestSpan extent = buildSegments(events, offsets, out.dag.segments);
    out.dag.startNs = extent.startNs;
    out.dag.endNs = extent.endNs;
    SpanRequestPathScratch scratch;
    out.placed = spanRequestCriticalPath(out.dag, events, spans, offsets, out.path, scratch);
    return out;
}

// (segment, start, end) of each path entry.
std::vector<std::tuple<std::uint32_t, TimeNs, TimeNs>> parts(const Laid& l) {
    std::vector<std::tuple<std::uint32_t, TimeNs, TimeNs>> out;
    forEachPathPart(l.dag.segments, l.path.segments, l.path.clips, [&](std::uint32_t v, TimeNs a, TimeNs b) { out.emplace_back(v, a, b); });
    return out;
}

} // namespace

TEST(SpanRequestPath, AChildThatOutlivesItsParentIsOnThePathOnlyUntilTheParentEnds) {
    // A (task 1): start 0, calls B at 10, ends 30. B (task 2) runs 10..45: its last 15 ns are asynchronous.
    const auto events = eventsOf({{1, 0}, {1, 10}, {1, 30}, {2, 10}, {2, 45}});
    const Laid l = lay(events, {{-1, 0, 2}, {0, 3, 4}});
    ASSERT_TRUE(l.placed);
    EXPECT_EQ(l.path.latencyNs, 30);
    EXPECT_EQ(l.path.blindNs, 0);
    using P = std::tuple<std::uint32_t, TimeNs, TimeNs>;
    EXPECT_EQ(parts(l), (std::vector<P>{{0, 0, 10}, {2, 10, 30}}));
    ASSERT_EQ(l.path.clips.size(), 1u);
    EXPECT_EQ(l.path.clips[0].entry, 1u);
}

TEST(SpanRequestPath, TheCallerWaitsForTheChildThatReturnedLastNotForItsOwnWaitingSegment) {
    // A calls B (5..20) and C (6..25): the path is A 0..6, C 6..25, A 25..30; B and A's waiting segments are off it.
    const auto events = eventsOf({{1, 0}, {1, 5}, {1, 6}, {1, 20}, {1, 25}, {1, 30}, {2, 5}, {2, 20}, {3, 6}, {3, 25}});
    const Laid l = lay(events, {{-1, 0, 5}, {0, 6, 7}, {0, 8, 9}});
    ASSERT_TRUE(l.placed);
    EXPECT_EQ(l.path.latencyNs, 30);
    using P = std::tuple<std::uint32_t, TimeNs, TimeNs>;
    // Segments: A 0-5, 5-6, 6-20, 20-25, 25-30 (0..4); B 5-20 (5); C 6-25 (6).
    EXPECT_EQ(parts(l), (std::vector<P>{{0, 0, 5}, {1, 5, 6}, {6, 6, 25}, {4, 25, 30}}));
    EXPECT_TRUE(l.path.clips.empty());
}

TEST(SpanRequestPath, AChildAfterItsParentEndedIsNotOnThePathAndTheRequestEndsWithTheRoot) {
    const auto events = eventsOf({{1, 0}, {1, 30}, {2, 35}, {2, 45}});
    const Laid l = lay(events, {{-1, 0, 1}, {0, 2, 3}});
    ASSERT_TRUE(l.placed);
    EXPECT_EQ(l.path.latencyNs, 30);
    using P = std::tuple<std::uint32_t, TimeNs, TimeNs>;
    EXPECT_EQ(parts(l), (std::vector<P>{{0, 0, 30}}));
}

TEST(SpanRequestPath, TimeBetweenRootsIsBlind) {
    const auto events = eventsOf({{1, 0}, {1, 10}, {2, 15}, {2, 20}});
    const Laid l = lay(events, {{-1, 0, 1}, {-1, 2, 3}});
    ASSERT_TRUE(l.placed);
    EXPECT_EQ(l.path.latencyNs, 20);
    EXPECT_EQ(l.path.blindNs, 5);
    ASSERT_EQ(l.path.blind.size(), 1u);
    EXPECT_EQ(l.path.blind[0].startNs, 10);
    EXPECT_EQ(l.path.blind[0].durationNs, 5);
}

TEST(SpanRequestPath, ASpanWhoseEventIsMissingLeavesTheEventLogPath) {
    const auto events = eventsOf({{1, 0}, {1, 10}});
    EXPECT_FALSE(lay(events, {{-1, 0, SpanRef::kNoEvent}}).placed);
    EXPECT_FALSE(lay(events, {}).placed);
}

TEST(SpanRequestPath, NestedSpansOfOneTaskOwnTheirInnermostSegmentsInLinearTime) {
    // A chain of m joined servers in one task: span k runs from event k to event 2m-1-k.
    constexpr std::uint32_t m = 100000;
    std::vector<std::pair<std::uint32_t, TimeNs>> timeline;
    for (std::uint32_t e = 0; e < 2 * m; ++e) timeline.emplace_back(1, static_cast<TimeNs>(e) * 10);
    const auto events = eventsOf(timeline);
    std::vector<SpanRef> spans;
    for (std::uint32_t k = 0; k < m; ++k) spans.push_back({static_cast<std::int32_t>(k) - 1, k, 2 * m - 1 - k});
    std::vector<std::int32_t> owner;
    SpanRequestPathScratch scratch;
    segmentOwners(events, spans, 2 * m - 1, owner, scratch);
    ASSERT_EQ(owner.size(), 2 * m - 1);
    for (std::uint32_t k = 0; k + 1 < m; ++k) {
        ASSERT_EQ(owner[k], static_cast<std::int32_t>(k)) << k;                   // the trip in
        ASSERT_EQ(owner[2 * m - 2 - k], static_cast<std::int32_t>(k)) << k;       // the trip back
    }
    EXPECT_EQ(owner[m - 1], static_cast<std::int32_t>(m - 1));
    // The whole chain is on the path: each span's time in and back, the innermost one's middle.
    const Laid l = lay(events, spans);
    ASSERT_TRUE(l.placed);
    EXPECT_EQ(l.path.latencyNs, static_cast<TimeNs>(2 * m - 1) * 10);
    EXPECT_EQ(l.path.segments.size(), 2 * m - 1);
    EXPECT_EQ(l.path.blindNs, 0);
}
