// The generator's ground truth must itself be right before analyses are checked against it.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "generator/PageLoadGenerator.h"

using namespace tracelight::samples;

namespace {
PageLoadGenerator makeGenerator(std::int64_t requests = 2000) {
    GeneratorOptions options;
    options.seed = 11;
    options.requests = requests;
    return PageLoadGenerator(options);
}
} // namespace

TEST(PageLoadGenerator, IsDeterministicPerRequestIndex) {
    const auto a = makeGenerator().generate(123);
    const auto b = makeGenerator().generate(123);
    ASSERT_EQ(a.events.size(), b.events.size());
    for (std::size_t i = 0; i < a.events.size(); ++i) {
        EXPECT_EQ(a.events[i].trueNs, b.events[i].trueNs);
        EXPECT_EQ(a.events[i].host, b.events[i].host);
    }
    EXPECT_EQ(a.attributes, b.attributes);
    EXPECT_NE(makeGenerator().generate(124).events[1].trueNs, a.events[1].trueNs);
}

TEST(PageLoadGenerator, CriticalPathCoversTheLatencyAndHasNoSlack) {
    const auto gen = makeGenerator();
    for (std::int64_t i = 0; i < 300; ++i) {
        const auto r = gen.generate(i);
        ASSERT_FALSE(r.criticalPath.empty());
        std::int64_t covered = 0;
        for (int s : r.criticalPath) {
            covered += r.segments[s].durationNs();
            EXPECT_EQ(r.slackNs[s], 0) << "critical segment with slack in request " << i;
        }
        EXPECT_EQ(covered + r.blindNs, r.latencyNs);
        EXPECT_GE(r.blindNs, 0);
        EXPECT_EQ(r.segments[r.criticalPath.front()].startNs, r.startNs);  // starts at the first event
        for (auto slack : r.slackNs) EXPECT_GE(slack, 0);
        // Consecutive critical segments touch or are separated only by a wait.
        for (std::size_t k = 1; k < r.criticalPath.size(); ++k)
            EXPECT_LE(r.segments[r.criticalPath[k - 1]].endNs, r.segments[r.criticalPath[k]].startNs);
    }
}

// Brute force: growing a segment by delta raises the latency by exactly max(0, delta - slack).
TEST(PageLoadGenerator, SlackMatchesReschedulingWithAGrownSegment) {
    const auto gen = makeGenerator();
    std::mt19937 rng(5);
    int checked = 0;
    for (std::int64_t i = 0; i < 150; ++i) {
        const auto r = gen.generate(i * 7);
        for (int s = 0; s < static_cast<int>(r.segments.size()); ++s) {
            const std::int64_t slack = r.slackNs[s];
            const std::int64_t small = slack > 1 ? std::uniform_int_distribution<std::int64_t>(1, slack)(rng) : 0;
            if (small > 0) {
                EXPECT_EQ(PageLoadGenerator::rescheduledLatency(r, s, small), r.latencyNs);
            }
            const std::int64_t over = 1 + static_cast<std::int64_t>(rng() % 5000);
            EXPECT_EQ(PageLoadGenerator::rescheduledLatency(r, s, slack + over), r.latencyNs + over)
                << "request " << i * 7 << " segment " << PageLoadGenerator::segmentLabel(r.segments[s]);
            ++checked;
        }
    }
    EXPECT_GT(checked, 4000);
}

TEST(PageLoadGenerator, TimestampsObeyTheTrueModel) {
    const auto gen = makeGenerator();
    const TrueModel model = PageLoadGenerator::trueModel();
    EXPECT_EQ(model.segmentTypes.size(), 8u + 3u * 7u + 3u * 3u + 2u);
    std::map<std::pair<std::string, std::string>, int> bothOrders;  // mutual-exclusion pair -> orders seen (bits)
    std::set<std::string> criticalShapes;
    for (std::int64_t i = 0; i < 2000; ++i) {
        const auto r = gen.generate(i);
        std::map<std::string, const GenSegment*> byType;
        for (const auto& s : r.segments) byType[PageLoadGenerator::segmentLabel(s)] = &s;
        for (const auto& [a, b] : model.happensBefore) {
            auto ia = byType.find(a), ib = byType.find(b);
            if (ia != byType.end() && ib != byType.end()) {
                ASSERT_LE(ia->second->endNs, ib->second->startNs) << a << " -> " << b << " in request " << i;
            }
        }
        for (const auto& [a, b] : model.mutualExclusion) {
            const GenSegment* sa = byType.at(a);
            const GenSegment* sb = byType.at(b);
            ASSERT_TRUE(sa->endNs <= sb->startNs || sb->endNs <= sa->startNs) << a << " overlaps " << b;
            bothOrders[{a, b}] |= sa->endNs <= sb->startNs ? 1 : 2;
        }
        // Pipeline: pagelets are shown in the order the server finished them.
        for (const auto& p : model.pipelines)
            for (std::size_t x = 0; x < p.producers.size(); ++x)
                for (std::size_t y = 0; y < p.producers.size(); ++y)
                    if (byType.at(p.producers[x])->endNs < byType.at(p.producers[y])->endNs) {
                        ASSERT_LT(byType.at(p.consumers[x])->startNs, byType.at(p.consumers[y])->startNs);
                    }
        std::string shape;
        for (int s : r.criticalPath) shape += PageLoadGenerator::segmentLabel(r.segments[s]) + " ";
        criticalShapes.insert(shape);
    }
    // Mutual exclusion is real only if both orders happen; the critical path must vary between requests.
    for (const auto& [pair, orders] : bothOrders) EXPECT_EQ(orders, 3) << pair.first << " / " << pair.second;
    EXPECT_GE(criticalShapes.size(), 5u);
}

TEST(PageLoadGenerator, HostClocksAreOffsetBySeconds) {
    const auto gen = makeGenerator();
    std::int64_t largest = 0;
    for (std::uint32_t h = 0; h < 40; ++h) largest = std::max<std::int64_t>(largest, std::abs(gen.clockOffsetNs(h)));
    EXPECT_GT(largest, 1000000000);
    EXPECT_LE(largest, 5000000000);
}

TEST(PageLoadGenerator, InjectedSlowMissLengthensFeedMisses) {
    GeneratorOptions slowOptions;
    slowOptions.seed = 11;
    slowOptions.requests = 2000;
    slowOptions.slowFeedMissFactor = 10;
    const PageLoadGenerator slow(slowOptions);
    const auto normal = makeGenerator();
    double normalFill = 0, slowFill = 0;
    int misses = 0;
    for (std::int64_t i = 0; i < 500; ++i) {
        for (const auto* pair : {&normal, &slow}) {
            const auto r = pair->generate(i);
            for (const auto& s : r.segments)
                if (PageLoadGenerator::segmentLabel(s) == "fetch-feed:CACHE_MISS->CACHE_REPLY") {
                    (pair == &normal ? normalFill : slowFill) += double(s.durationNs());
                    misses += pair == &normal;
                }
        }
    }
    ASSERT_GT(misses, 20);
    EXPECT_GT(slowFill, 5 * normalFill);
}
