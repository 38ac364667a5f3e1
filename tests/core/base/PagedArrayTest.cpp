#include "tracelight/base/PagedArray.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_map>

namespace tracelight {
namespace {

struct Slot {
    std::uint64_t visit = 0;
    std::int64_t ord = 0;
};

// Against a plain map: ids reached in any order read as initial until written, and keep what was written
// while later pages are made (nothing is moved, so a reference taken earlier still reads the element).
TEST(PagedArray, ReadsWhatWasWrittenAndInitialElsewhere) {
    PagedArray<Slot, 4> table;  // pages of 16, so that a few hundred ids cross many pages
    std::unordered_map<std::size_t, std::int64_t> truth;
    std::mt19937 random(7);
    Slot& first = table.at(3);
    first.ord = 42;
    truth[3] = 42;
    for (int step = 0; step < 2000; ++step) {
        const std::size_t id = random() % 700;
        if (random() % 2) {
            table.at(id).ord = step;
            truth[id] = step;
        } else {
            const auto it = truth.find(id);
            EXPECT_EQ(table.at(id).ord, it == truth.end() ? 0 : it->second) << "id " << id;
        }
    }
    EXPECT_EQ(&first, &table.at(3));
    EXPECT_EQ(first.ord, truth[3]);
    table.clear();
    EXPECT_EQ(table.at(3).ord, 0);
    EXPECT_EQ(table.at(699).visit, 0u);
}

} // namespace
} // namespace tracelight
