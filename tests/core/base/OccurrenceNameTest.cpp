#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "tracelight/base/OccurrenceName.h"

using namespace tracelight;

namespace {
const LabelOccurrence* bruteForce(const std::vector<LabelOccurrence>& table, std::uint32_t id) {
    for (const auto& o : table)
        if (o.id == id) return &o;
    return nullptr;
}
} // namespace

// Against a scan of the table: dense ids, ids with gaps of every size and ids at the top of the 32-bit range,
// for every id in and around the table.
TEST(FindOccurrence, FindsWhatAScanFinds) {
    std::mt19937 rng(11);
    for (int round = 0; round < 200; ++round) {
        std::vector<LabelOccurrence> table;
        const std::size_t n = rng() % 40;
        std::uint32_t id = round % 3 == 0 ? 0xFFFFFFFFu - 200 : static_cast<std::uint32_t>(rng() % 5);
        const std::uint32_t gap = 1 + static_cast<std::uint32_t>(rng() % (round % 4 == 0 ? 1 : 6));
        for (std::size_t i = 0; i < n && id < 0xFFFFFFFFu - gap; ++i) {
            table.push_back({id, 1, 2});
            id += 1 + static_cast<std::uint32_t>(rng() % gap);
        }
        const std::uint32_t from = table.empty() ? 0 : (table.front().id < 3 ? 0 : table.front().id - 3);
        const std::uint32_t to = table.empty() ? 10 : (table.back().id > 0xFFFFFFFFu - 3 ? 0xFFFFFFFFu : table.back().id + 3);
        for (std::uint32_t probe = from;; ++probe) {
            const LabelOccurrence* expected = bruteForce(table, probe);
            const LabelOccurrence* found = findOccurrence(table, probe);
            ASSERT_EQ(found == nullptr, expected == nullptr) << "round " << round << " id " << probe;
            if (found) EXPECT_EQ(found->id, probe);
            if (probe == to) break;
        }
    }
}
