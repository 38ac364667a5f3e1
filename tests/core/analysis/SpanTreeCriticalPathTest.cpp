// The caller's critical path of a span tree: the asynchronous shapes by hand, a plain recursive
// reference of the same definition on random trees, and what must hold of every answer (the sections
// tile the request, each inside its span's interval).
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <random>

#include "tracelight/analysis/SpanTreeCriticalPath.h"

using namespace tracelight;

namespace {

using Section = SpanTreeCriticalPath::Section;

SpanTiming span(std::int32_t parent, TimeNs start, TimeNs end, SpanWait wait = SpanWait::Waited) {
    return {parent, start, end, wait};
}

std::vector<TimeNs> times(const std::vector<SpanTiming>& spans) {
    return criticalTimeBySpan(spanTreeCriticalPath(spans), spans.size());
}

bool sameSections(const std::vector<Section>& a, const std::vector<Section>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].span != b[i].span || a[i].startNs != b[i].startNs || a[i].endNs != b[i].endNs) return false;
    return true;
}

std::string describe(const std::vector<Section>& sections) {
    std::string out;
    for (const auto& s : sections)
        out += std::to_string(s.span) + "[" + std::to_string(s.startNs) + "," + std::to_string(s.endNs) + "] ";
    return out;
}

// The sections tile [start, end] in time order; each lies within its span's recorded interval.
void expectWellFormed(const std::vector<SpanTiming>& spans, const SpanTreeCriticalPath& path) {
    TimeNs at = path.startNs;
    for (const auto& s : path.sections) {
        EXPECT_EQ(s.startNs, at) << describe(path.sections);
        EXPECT_LT(s.startNs, s.endNs);
        if (s.span >= 0) {
            EXPECT_GE(s.startNs, spans[s.span].startNs);
            EXPECT_LE(s.endNs, spans[s.span].endNs);
        }
        at = s.endNs;
    }
    EXPECT_EQ(at, path.endNs) << describe(path.sections);
}

} // namespace

// A parent A (0-30) whose child B starts at 35: both peers say A is critical for 30, and B (with its child
// C) is asynchronous work: kept, reported, not on the path; the request lasts as long as A.
TEST(SpanTreeCriticalPath, AChildAfterItsParentEndedIsAsynchronous) {
    const std::vector<SpanTiming> spans = {span(-1, 0, 30), span(0, 35, 65), span(1, 40, 50)};
    const auto path = spanTreeCriticalPath(spans);
    EXPECT_EQ(path.latencyNs(), 30);
    EXPECT_TRUE(sameSections(path.sections, {{0, 0, 30}})) << describe(path.sections);
    EXPECT_TRUE(sameSections(path.async, {{1, 35, 65}, {2, 40, 50}})) << describe(path.async);
}

// A child that outlives its parent: the part the parent waited for is on the path (the child finished
// last within it), the part past the parent's end is asynchronous.
TEST(SpanTreeCriticalPath, TheInsideOfAChildThatOutlivesItsParentIsWaitedForTheRestIsAsynchronous) {
    const std::vector<SpanTiming> spans = {span(-1, 0, 30), span(0, 10, 50)};
    const auto path = spanTreeCriticalPath(spans);
    EXPECT_TRUE(sameSections(path.sections, {{0, 0, 10}, {1, 10, 30}})) << describe(path.sections);
    EXPECT_TRUE(sameSections(path.async, {{1, 30, 50}})) << describe(path.async);
}

// Overlapping children: the one that finished last is followed; the other ran concurrently within it and
// is off the path (its time is its slack, not the parent's).
TEST(SpanTreeCriticalPath, OfOverlappingChildrenTheLastToFinishIsOnThePath) {
    const std::vector<SpanTiming> spans = {span(-1, 0, 100), span(0, 10, 60), span(0, 20, 50)};
    const auto path = spanTreeCriticalPath(spans);
    EXPECT_TRUE(sameSections(path.sections, {{0, 0, 10}, {1, 10, 60}, {0, 60, 100}})) << describe(path.sections);
    EXPECT_TRUE(path.async.empty());
}

// Sequential calls: one returns exactly when the next starts; the parent waited for both.
TEST(SpanTreeCriticalPath, SequentialCallsThatTouchAreBothOnThePath) {
    const std::vector<SpanTiming> spans = {span(-1, 0, 100), span(0, 10, 50), span(0, 50, 90)};
    EXPECT_EQ(times(spans), (std::vector<TimeNs>{20, 40, 40}));
}

// Sequential calls whose timestamps jitter (the first returns 5 of 1,000 after the next started): still
// sequential, the first up to where the next began. A real overlap (20 %) is concurrency: the earlier call
// is off the path and the parent's own time fills the gap.
TEST(SpanTreeCriticalPath, AJitterOfLessThanOnePercentIsSequentialAMoreIsConcurrent) {
    const std::vector<SpanTiming> jitter = {span(-1, 0, 1000), span(0, 100, 505), span(0, 500, 900)};
    EXPECT_EQ(times(jitter), (std::vector<TimeNs>{200, 400, 400}));
    const std::vector<SpanTiming> overlap = {span(-1, 0, 1000), span(0, 100, 700), span(0, 500, 900)};
    EXPECT_EQ(times(overlap), (std::vector<TimeNs>{600, 0, 400}));
    // Something else of the parent starts within the overlap: not mere jitter.
    const std::vector<SpanTiming> busy = {span(-1, 0, 1000), span(0, 100, 505), span(0, 500, 900), span(0, 502, 503)};
    EXPECT_EQ(times(busy)[1], 0);
}

// FOLLOWS_FROM (and a consumer under its producer) is detached: the parent does not wait for it, even
// where it runs within the parent, and nor for anything under it.
TEST(SpanTreeCriticalPath, DetachedWorkIsNeverWaitedFor) {
    const std::vector<SpanTiming> spans = {span(-1, 0, 30), span(0, 10, 20, SpanWait::Detached), span(1, 12, 14)};
    const auto path = spanTreeCriticalPath(spans);
    EXPECT_TRUE(sameSections(path.sections, {{0, 0, 30}})) << describe(path.sections);
    EXPECT_TRUE(sameSections(path.async, {{1, 10, 20}, {2, 12, 14}})) << describe(path.async);
}

// A producer on one host, its consumer on another picking the message up after the request answered.
TEST(SpanTreeCriticalPath, AConsumerOnAnotherHostAfterTheResponseIsAsynchronous) {
    const std::vector<SpanTiming> spans = {span(-1, 0, 100), span(0, 20, 30), span(1, 150, 400, SpanWait::Detached)};
    const auto path = spanTreeCriticalPath(spans);
    EXPECT_EQ(path.latencyNs(), 100);
    EXPECT_TRUE(sameSections(path.sections, {{0, 0, 20}, {1, 20, 30}, {0, 30, 100}})) << describe(path.sections);
    EXPECT_TRUE(sameSections(path.async, {{2, 150, 400}}));
}

// Several roots: the request runs from the earliest start to the latest root end; between roots no span
// ran, and that time is blind (span -1).
TEST(SpanTreeCriticalPath, SeveralRootsSpanTheRequestAndTheGapBetweenThemIsBlind) {
    const std::vector<SpanTiming> spans = {span(-1, 0, 10), span(-1, 20, 50), span(1, 25, 40)};
    const auto path = spanTreeCriticalPath(spans);
    EXPECT_EQ(path.startNs, 0);
    EXPECT_EQ(path.endNs, 50);
    EXPECT_TRUE(sameSections(path.sections, {{0, 0, 10}, {-1, 10, 20}, {1, 20, 25}, {2, 25, 40}, {1, 40, 50}}))
        << describe(path.sections);
}

// A child that covers its parent on both sides (a skewed clock the correction could not place): clipped
// to the parent, it is what the parent waited for all along.
TEST(SpanTreeCriticalPath, AChildCoveringItsParentIsClippedToIt) {
    const std::vector<SpanTiming> spans = {span(-1, 0, 40), span(0, 10, 30), span(1, 5, 35)};
    const auto path = spanTreeCriticalPath(spans);
    EXPECT_TRUE(sameSections(path.sections, {{0, 0, 10}, {2, 10, 30}, {0, 30, 40}})) << describe(path.sections);
    EXPECT_TRUE(sameSections(path.async, {{2, 5, 10}, {2, 30, 35}})) << describe(path.async);
}

// Bad input: parents in a cycle are reached from no root (asynchronous, whole); a span its own parent or
// with a parent out of range is a root.
TEST(SpanTreeCriticalPath, ACycleOfParentsIsReachedFromNoRoot) {
    const std::vector<SpanTiming> spans = {span(-1, 0, 100), span(2, 10, 20), span(1, 30, 40), span(3, 50, 60), span(99, 70, 80)};
    const auto path = spanTreeCriticalPath(spans);
    EXPECT_EQ(path.startNs, 0);
    EXPECT_EQ(path.endNs, 100);
    EXPECT_TRUE(sameSections(path.async, {{1, 10, 20}, {2, 30, 40}})) << describe(path.async);
    expectWellFormed(spans, path);
}

// A chain of a hundred thousand spans, each calling the next: walked without recursion; every span's own
// time (1 ns before and after its child) is on the path.
TEST(SpanTreeCriticalPath, AChainOfAHundredThousandSpansIsWalkedInALoop) {
    const int n = 100000;
    std::vector<SpanTiming> spans;
    for (int i = 0; i < n; ++i) spans.push_back(span(i - 1, i, 2 * n - i));
    const auto path = spanTreeCriticalPath(spans);
    expectWellFormed(spans, path);
    const auto t = criticalTimeBySpan(path, spans.size());
    for (int i = 0; i + 1 < n; ++i) ASSERT_EQ(t[i], 2) << i;
    EXPECT_EQ(t[n - 1], 2);
}

// A root with a million children called one after another.
TEST(SpanTreeCriticalPath, AMillionSequentialChildrenAreAllOnThePath) {
    const int n = 1000000;
    std::vector<SpanTiming> spans = {span(-1, 0, 3 * n + 1)};
    for (int i = 0; i < n; ++i) spans.push_back(span(0, 3 * i + 1, 3 * i + 3));
    const auto t = times(spans);
    EXPECT_EQ(t[0], n + 1);
    for (int i = 1; i <= n; ++i) ASSERT_EQ(t[i], 2) << i;
}

namespace {

// The definition written plainly, recursively and in quadratic time, for small trees: clip each child to
// its parent, then from the cursor take the child that ends last at or before it (or overlaps it by
// jitter), recurse, continue from that child's start.
struct Reference {
    const std::vector<SpanTiming>& spans;
    std::vector<std::pair<TimeNs, TimeNs>> clip;
    std::vector<bool> onTree;
    std::vector<Section> sections;  // latest first

    explicit Reference(const std::vector<SpanTiming>& s) : spans(s), clip(s.size()), onTree(s.size(), false) {}

    std::vector<std::size_t> childrenOf(long p) const {
        std::vector<std::size_t> out;
        for (std::size_t i = 0; i < spans.size(); ++i)
            if (spans[i].parent == p) out.push_back(i);
        return out;
    }
    void place(std::size_t c, TimeNs ps, TimeNs pe) {
        const SpanTiming& s = spans[c];
        const bool instant = s.startNs == s.endNs && s.startNs >= ps && s.startNs <= pe;
        if (s.wait == SpanWait::Detached || (!instant && (s.endNs <= ps || s.startNs >= pe))) return;
        clip[c] = {std::max(s.startNs, ps), std::min(s.endNs, pe)};
        onTree[c] = true;
        for (auto g : childrenOf(static_cast<long>(c))) place(g, clip[c].first, clip[c].second);
    }
    void emit(long span, TimeNs from, TimeNs to) {
        if (to <= from) return;
        if (!sections.empty() && sections.back().span == span && sections.back().startNs == to) sections.back().startNs = from;
        else sections.push_back({static_cast<std::int32_t>(span), from, to});
    }
    void walk(std::size_t p, TimeNs cursor) {
        auto kids = childrenOf(static_cast<long>(p));
        std::erase_if(kids, [&](std::size_t c) { return !onTree[c]; });
        std::sort(kids.begin(), kids.end(), [&](auto a, auto b) {
            return clip[a].second != clip[b].second ? clip[a].second > clip[b].second
                                                    : clip[a].first != clip[b].first ? clip[a].first < clip[b].first : a < b;
        });
        const TimeNs ps = clip[p].first, pe = clip[p].second;
        for (std::size_t k = 0; k < kids.size(); ++k) {
            const auto c = kids[k];
            TimeNs end = clip[c].second;
            if (end > cursor) {
                int events = 0;
                for (auto o : kids) events += (clip[o].first >= cursor && clip[o].first <= end) + (clip[o].second >= cursor && clip[o].second <= end);
                if (!(clip[c].first < cursor && double(end - cursor) < 0.01 * double(pe - ps) && events == 2)) continue;
                end = cursor;
            }
            emit(static_cast<long>(p), end, cursor);
            walk(c, end);
            cursor = clip[c].first;
        }
        emit(static_cast<long>(p), ps, cursor);
    }
};

} // namespace

// One root per tree, random shapes with every kind of overlap, touching and jitter: the walk agrees
// with the plain reference section for section, and is well formed.
TEST(SpanTreeCriticalPath, AgreesWithAPlainRecursiveReferenceOnRandomTrees) {
    std::mt19937 random(20261129);
    for (int trial = 0; trial < 3000; ++trial) {
        const int n = 1 + static_cast<int>(random() % 25);
        std::vector<SpanTiming> spans = {span(-1, 0, 1000)};
        for (int i = 1; i < n; ++i) {
            const int parent = static_cast<int>(random() % i);
            const SpanTiming& p = spans[parent];
            // Mostly inside the parent, sometimes across or past its ends; sometimes touching or jittered.
            const TimeNs width = std::max<TimeNs>(1, p.endNs - p.startNs);
            TimeNs start = p.startNs + static_cast<TimeNs>(random() % (width + width / 4)) - width / 8;
            TimeNs end = start + static_cast<TimeNs>(random() % (width / 2 + 2));
            if (random() % 5 == 0 && i > 1 && spans[i - 1].parent == parent) start = spans[i - 1].endNs - static_cast<TimeNs>(random() % 3);
            end = std::max(end, start);
            spans.push_back(span(parent, start, end, random() % 12 == 0 ? SpanWait::Detached : SpanWait::Waited));
        }
        const auto path = spanTreeCriticalPath(spans);
        Reference reference(spans);
        reference.clip[0] = {spans[0].startNs, spans[0].endNs};
        reference.onTree[0] = true;
        for (auto c : reference.childrenOf(0)) reference.place(c, spans[0].startNs, spans[0].endNs);
        reference.walk(0, spans[0].endNs);
        std::reverse(reference.sections.begin(), reference.sections.end());
        ASSERT_TRUE(sameSections(path.sections, reference.sections))
            << "trial " << trial << ": ours " << describe(path.sections) << " reference " << describe(reference.sections);
        expectWellFormed(spans, path);
        // Every span is on the tree or (some part of it) asynchronous, never both over the same time.
        const auto t = criticalTimeBySpan(path, spans.size());
        for (const auto& a : path.async) EXPECT_TRUE(!reference.onTree[a.span] || a.startNs < reference.clip[a.span].first ||
                                                     a.endNs > reference.clip[a.span].second);
        TimeNs sum = 0;
        for (auto v : t) sum += v;
        EXPECT_EQ(sum, path.latencyNs());
    }
}
