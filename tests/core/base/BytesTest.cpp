// The varints of the result cache's blobs: every value round-trips, short ones stay short, and damaged
// bytes (cut short, too long for 64 bits) are refused without reading past the end.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>

#include "tracelight/base/Bytes.h"

using namespace tracelight;

TEST(Bytes, VarintsRoundTripEveryMagnitude) {
    const std::int64_t kMin = std::numeric_limits<std::int64_t>::min(), kMax = std::numeric_limits<std::int64_t>::max();
    std::vector<std::int64_t> values = {0, 1, -1, 63, -64, 64, -65, 127, 128, 300, -300, 1'000'000'000, kMin, kMax, kMin + 1, kMax - 1};
    std::mt19937_64 rng(7);
    for (int i = 0; i < 1000; ++i) values.push_back(static_cast<std::int64_t>(rng()) >> (rng() % 64));
    std::string bytes;
    for (auto v : values) {
        putSignedVarint(bytes, v);
        putVarint(bytes, static_cast<std::uint64_t>(v));
    }
    std::string_view in(bytes);
    for (auto v : values) {
        std::int64_t s = 0;
        std::uint64_t u = 0;
        ASSERT_TRUE(getSignedVarint(in, s));
        ASSERT_TRUE(getVarint(in, u));
        EXPECT_EQ(s, v);
        EXPECT_EQ(u, static_cast<std::uint64_t>(v));
    }
    EXPECT_TRUE(in.empty());
}

TEST(Bytes, SmallMagnitudesTakeOneByte) {
    for (std::int64_t v : {0, 1, -1, 63, -64}) {
        std::string bytes;
        putSignedVarint(bytes, v);
        EXPECT_EQ(bytes.size(), 1u) << v;
    }
    std::string bytes;
    putVarint(bytes, 127);
    EXPECT_EQ(bytes.size(), 1u);
    putVarint(bytes, 128);
    EXPECT_EQ(bytes.size(), 3u);
    putVarint(bytes, std::numeric_limits<std::uint64_t>::max());
    EXPECT_EQ(bytes.size(), 13u);
}

TEST(Bytes, DamagedVarintsAreRefused) {
    std::string bytes;
    putVarint(bytes, std::numeric_limits<std::uint64_t>::max());
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {  // cut short anywhere
        std::string_view in(bytes.data(), cut);
        std::uint64_t v = 42;
        EXPECT_FALSE(getVarint(in, v)) << cut;
        EXPECT_EQ(v, 42u);
        EXPECT_EQ(in.size(), cut) << "nothing consumed";
    }
    const std::string tooLong(10, '\xFF');  // continues past 64 bits
    std::string_view in(tooLong);
    std::uint64_t v = 0;
    EXPECT_FALSE(getVarint(in, v));
    const std::string overflow = std::string(9, '\x80') + '\x02';  // a 65th bit
    in = overflow;
    EXPECT_FALSE(getVarint(in, v));
}
