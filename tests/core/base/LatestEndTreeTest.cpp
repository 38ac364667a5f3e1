// LatestEndTree against a scan of every interval, on random intervals with a few very long ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "tracelight/base/LatestEndTree.h"

using namespace tracelight;

TEST(LatestEndTree, FindsWhatAScanFindsInOrder) {
    std::mt19937_64 rng(7);
    for (std::size_t n : {0u, 1u, 2u, 3u, 17u, 64u, 1000u}) {
        std::vector<std::pair<TimeNs, TimeNs>> intervals(n);
        for (auto& [start, end] : intervals) {
            start = static_cast<TimeNs>(rng() % 10'000);
            end = start + static_cast<TimeNs>(rng() % 20 == 0 ? rng() % 50'000 : rng() % 100);
        }
        std::sort(intervals.begin(), intervals.end());
        const LatestEndTree tree(n, [&](std::size_t i) { return intervals[i].second; });
        for (int q = 0; q < 200; ++q) {
            const std::size_t limit = n == 0 ? 0 : rng() % (n + 1);
            const TimeNs at = static_cast<TimeNs>(rng() % 12'000);
            std::vector<std::size_t> got, want;
            tree.forEachEndingAtOrAfter(limit, at, [&](std::size_t i) { got.push_back(i); });
            for (std::size_t i = 0; i < limit; ++i)
                if (intervals[i].second >= at) want.push_back(i);
            ASSERT_EQ(got, want) << "n " << n << " limit " << limit << " at " << at;
        }
    }
}
