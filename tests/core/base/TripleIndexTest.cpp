#include "tracelight/base/TripleIndex.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <tuple>

namespace tracelight {
namespace {

TEST(TripleIndex, AgreesWithAnOrderedMapOnRandomTriples) {
    // Small id ranges force repeats (hits) and keys that differ in one position only.
    std::mt19937 rng(7);
    std::uniform_int_distribution<std::uint32_t> id(0, 40);
    TripleIndex index;
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::uint32_t> truth;
    for (std::uint32_t n = 0; n < 20000; ++n) {
        const std::uint32_t a = id(rng), b = id(rng), c = id(rng);
        auto [it, fresh] = truth.try_emplace({a, b, c}, n);
        const auto [value, inserted] = index.emplace(a, b, c, n);
        ASSERT_EQ(inserted, fresh);
        ASSERT_EQ(value, it->second);
    }
    EXPECT_EQ(index.size(), truth.size());
    for (const auto& [key, value] : truth) EXPECT_EQ(index.find(std::get<0>(key), std::get<1>(key), std::get<2>(key)), value);
    EXPECT_EQ(index.find(41, 0, 0), TripleIndex::kAbsent);
}

TEST(TripleIndex, KeepsTriplesThatAPackedKeyWouldConfuse) {
    // (1 << 21, 0, 0) and (0, 1, 0) pack to the same 64-bit key with 21 bits a field: here they are two.
    TripleIndex index;
    EXPECT_TRUE(index.emplace(0, 1, 0, 10).second);
    EXPECT_TRUE(index.emplace(1u << 21, 0, 0, 11).second);
    EXPECT_TRUE(index.emplace(0, 0, 1u << 31, 12).second);
    EXPECT_EQ(index.find(0, 1, 0), 10u);
    EXPECT_EQ(index.find(1u << 21, 0, 0), 11u);
    EXPECT_EQ(index.find(0, 0, 1u << 31), 12u);
    EXPECT_EQ(index.find(0, 0, 0), TripleIndex::kAbsent);
}

TEST(TripleIndex, EmptyAndReservedIndexesFindNothing) {
    TripleIndex index;
    EXPECT_EQ(index.find(1, 2, 3), TripleIndex::kAbsent);
    index.reserve(1000);
    EXPECT_EQ(index.size(), 0u);
    EXPECT_EQ(index.find(1, 2, 3), TripleIndex::kAbsent);
    for (std::uint32_t i = 0; i < 1000; ++i) index.emplace(i, i, i, i);
    for (std::uint32_t i = 0; i < 1000; ++i) EXPECT_EQ(index.find(i, i, i), i);
}

} // namespace
} // namespace tracelight
