// Coordinated bursty tracing: the mask and the windows recovered from start times traced under a known
// mask; no mask from uniform starts; a given mask counts what it would not have traced.
#include <gtest/gtest.h>

#include <random>

#include "tracelight/bottleneck/BurstWindows.h"

using namespace tracelight;

namespace {
constexpr TimeNs kMs = 1'000'000;
constexpr std::int64_t kEpochMs = 1'793'491'200'000;  // 2026-11-01
}

TEST(BurstWindows, RecoversTheMaskAndItsWindows) {
    // Tracing on while (mask & wall_ms) == mask: bits 6..9 set, so 64 ms windows every 1,024 ms.
    const std::uint64_t mask = 0b1111000000;
    std::mt19937_64 rng(3);
    std::uniform_int_distribution<std::int64_t> when(0, 120'000);  // two minutes
    std::vector<TimeNs> starts;
    while (starts.size() < 500) {
        const std::int64_t ms = kEpochMs + when(rng);
        if ((static_cast<std::uint64_t>(ms) & mask) == mask) starts.push_back(ms * kMs + (when(rng) % 1000) * 1000);
    }
    EXPECT_EQ(inferBurstMask(starts), mask);
    const BurstWindows w = burstWindows(starts);
    EXPECT_TRUE(w.inferred);
    EXPECT_EQ(w.mask, mask);
    ASSERT_GT(w.windows.size(), 50u);  // about 117 bursts in two minutes, most of them hit
    std::size_t total = 0;
    for (std::size_t k = 0; k < w.windows.size(); ++k) {
        const BurstWindow& b = w.windows[k];
        EXPECT_EQ(b.endMs - b.startMs, 64);
        EXPECT_EQ(static_cast<std::uint64_t>(b.startMs) & mask, mask);
        if (k > 0) EXPECT_GE(b.startMs - w.windows[k - 1].startMs, 1024);
        for (auto i : b.requests) {
            EXPECT_GE(starts[i], b.startMs * kMs);
            EXPECT_LT(starts[i], b.endMs * kMs);
        }
        total += b.requests.size();
    }
    EXPECT_EQ(total, starts.size());
    EXPECT_EQ(w.outside, 0);
}

TEST(BurstWindows, UniformStartsAreNotBurstyAndAGivenMaskCountsTheRest) {
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<std::int64_t> when(0, 60'000);
    std::vector<TimeNs> starts;
    for (int i = 0; i < 400; ++i) starts.push_back((kEpochMs + when(rng)) * kMs);
    EXPECT_EQ(inferBurstMask(starts), 0u);
    EXPECT_TRUE(burstWindows(starts).windows.empty());
    const BurstWindows given = burstWindows(starts, 0b11);  // a quarter of the milliseconds pass
    EXPECT_FALSE(given.inferred);
    std::size_t inside = 0;
    for (const auto& b : given.windows) inside += b.requests.size();
    EXPECT_EQ(inside + static_cast<std::size_t>(given.outside), starts.size());
    EXPECT_GT(given.outside, 200);
    EXPECT_EQ(inferBurstMask(std::vector<TimeNs>(starts.begin(), starts.begin() + 5)), 0u);  // too few to tell
}
