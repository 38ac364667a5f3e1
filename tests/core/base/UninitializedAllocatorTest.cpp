// The event array's allocator (sizing writes nothing, every other construction is the usual one) and the
// population of its pages ahead of the writes.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tracelight/base/Ids.h"
#include "tracelight/base/PagePopulate.h"
#include "tracelight/base/UninitializedAllocator.h"

using namespace tracelight;

namespace {
struct Record {
    std::uint32_t a;
    TypedId<struct RecordTag> id;  // a default that value-initialisation would write
    std::int64_t b;
};
using Records = std::vector<Record, UninitializedAllocator<Record>>;
} // namespace

TEST(UninitializedAllocator, SizingLeavesTheMemoryAsItWas) {
    Records records;
    records.reserve(1000);
    for (std::uint32_t i = 0; i < 1000; ++i) records.push_back({i, TypedId<RecordTag>(i + 1), -std::int64_t(i)});
    const Record* before = records.data();
    records.clear();  // keeps the capacity
    records.resize(1000);
    ASSERT_EQ(records.data(), before);
    // With std::allocator these would be 0, invalid and 0.
    for (std::uint32_t i = 0; i < 1000; ++i) {
        EXPECT_EQ(records[i].a, i);
        EXPECT_EQ(records[i].id.value, i + 1);
        EXPECT_EQ(records[i].b, -std::int64_t(i));
    }
}

TEST(UninitializedAllocator, CopiesAndGivenValuesAreWrittenAsUsual) {
    const Record seven{7, TypedId<RecordTag>(8), 9};
    Records filled(5, seven);
    filled.emplace_back(Record{1, TypedId<RecordTag>(2), 3});
    filled.insert(filled.begin(), seven);
    ASSERT_EQ(filled.size(), 7u);
    for (std::size_t i = 0; i + 1 < filled.size(); ++i) {
        EXPECT_EQ(filled[i].a, 7u);
        EXPECT_EQ(filled[i].id.value, 8u);
        EXPECT_EQ(filled[i].b, 9);
    }
    EXPECT_EQ(filled.back().b, 3);
    Records copy = filled;
    ASSERT_EQ(copy.size(), filled.size());
    for (std::size_t i = 0; i < copy.size(); ++i) EXPECT_EQ(copy[i].b, filled[i].b);
    Records moved = std::move(copy);
    EXPECT_EQ(moved.size(), 7u);
    EXPECT_EQ(moved.front().a, 7u);
}

// Giving the pages ahead of the writes never changes what the memory holds (where the kernel can, it
// populates; elsewhere it does nothing), including a range that starts and ends inside a page.
TEST(PagePopulate, PopulatingLeavesTheContentsAsTheyWere) {
    std::vector<std::uint64_t> values(3 << 20);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = i * 2654435761u;
    populatePagesForWriting(values.data() + 1, (values.size() - 2) * sizeof(std::uint64_t));
    for (std::size_t i = 0; i < values.size(); ++i) ASSERT_EQ(values[i], i * 2654435761u) << i;
    EXPECT_FALSE(populatePagesForWriting(nullptr, 1 << 20));
    EXPECT_FALSE(populatePagesForWriting(values.data(), 16)) << "no whole page inside";
    Records fresh(1 << 20);  // as the event array is sized: unwritten, then populated, then written
    populatePagesForWriting(fresh.data(), fresh.size() * sizeof(Record));
    for (std::uint32_t i = 0; i < fresh.size(); ++i) fresh[i] = {i, TypedId<RecordTag>(i), std::int64_t(i)};
    for (std::uint32_t i = 0; i < fresh.size(); ++i) ASSERT_EQ(fresh[i].b, std::int64_t(i));
}
