#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "tracelight/base/Grouping.h"

using namespace tracelight;

// Against brute force: a random forest's children by parent, in a given order, with items in no group.
TEST(Grouping, IsEachGroupsItemsInTheOrderGiven) {
    std::mt19937 rng(7);
    for (std::size_t n : {0u, 1u, 2u, 17u, 1000u}) {
        std::vector<long> parent(n, -1);
        for (std::size_t i = 1; i < n; ++i)
            if (rng() % 5 != 0) parent[i] = static_cast<long>(rng() % i);
        std::vector<std::size_t> order(n);
        for (std::size_t i = 0; i < n; ++i) order[i] = n - 1 - i;  // not index order
        const Grouping g = Grouping::build(n, order, [&](std::size_t i) { return parent[i]; });
        std::size_t grouped = 0;
        for (std::size_t p = 0; p < n; ++p) {
            std::vector<std::uint32_t> expected;
            for (auto i : order)
                if (parent[i] == static_cast<long>(p)) expected.push_back(static_cast<std::uint32_t>(i));
            const auto got = g.of(p);
            EXPECT_EQ(std::vector<std::uint32_t>(got.begin(), got.end()), expected) << "n " << n << " parent " << p;
            grouped += got.size();
        }
        EXPECT_EQ(grouped, static_cast<std::size_t>(std::count_if(parent.begin(), parent.end(), [](long p) { return p >= 0; })));
        EXPECT_TRUE(g.of(n).empty()) << "past the last group";
        // Of the indices in their own order: each group's items ascending.
        const Grouping byIndex = Grouping::ofIndices(n, n, [&](std::size_t i) { return parent[i]; });
        for (std::size_t p = 0; p < n; ++p) {
            std::vector<std::uint32_t> expected;
            for (std::size_t i = 0; i < n; ++i)
                if (parent[i] == static_cast<long>(p)) expected.push_back(static_cast<std::uint32_t>(i));
            const auto got = byIndex.of(p);
            EXPECT_EQ(std::vector<std::uint32_t>(got.begin(), got.end()), expected) << "n " << n << " parent " << p;
        }
    }
    EXPECT_TRUE(Grouping().of(0).empty());
}
