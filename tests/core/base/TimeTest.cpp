// Integer nanoseconds from decimal text, exactly, and back to microseconds for output.
#include <gtest/gtest.h>

#include "tracelight/base/Time.h"

using namespace tracelight;

TEST(Time, DecimalMicrosecondsBecomeExactNanoseconds) {
    EXPECT_EQ(parseMicroseconds("1700000000123456.789"), TimeNs{1700000000123456789});
    EXPECT_EQ(parseMicroseconds("1700000000123456"), TimeNs{1700000000123456000});
    EXPECT_EQ(parseMicroseconds("+12.5"), TimeNs{12500});
    EXPECT_EQ(parseMicroseconds("-0.001"), TimeNs{-1});
    EXPECT_EQ(parseMicroseconds(" 7 "), TimeNs{7000});
    EXPECT_EQ(parseMicroseconds(".5"), TimeNs{500});
    EXPECT_EQ(parseMicroseconds("5."), TimeNs{5000});
    EXPECT_EQ(parseMicroseconds("1.7e15"), TimeNs{1700000000000000000});
    EXPECT_EQ(parseMicroseconds("1700000000123456789e-3"), TimeNs{1700000000123456789});
    EXPECT_EQ(parseMicroseconds("0.0004"), TimeNs{0});    // below a nanosecond: rounded
    EXPECT_EQ(parseMicroseconds("0.0005"), TimeNs{1});    // half away from zero
    EXPECT_EQ(parseMicroseconds("-0.0015"), TimeNs{-2});
    EXPECT_EQ(parseNanoseconds("9223372036854775806"), TimeNs{9223372036854775806});
    for (const char* bad : {"", "-", ".", "e5", "1e", "1.2.3", "12abc", "nan", "inf", "0x10", "1 2", "9223372036854775807",
                            "99999999999999999999", "1e30", "1e-999999999"})
        EXPECT_FALSE(parseMicroseconds(bad).has_value()) << bad;
    EXPECT_FALSE(parseNanoseconds("9223372036854775807").has_value());
}

TEST(Time, CheckedArithmeticAndOutput) {
    EXPECT_EQ(checkedMul(1700000000000000, kNsPerUs), TimeNs{1700000000000000000});
    EXPECT_FALSE(checkedMul(9223372036854776, kNsPerUs).has_value());
    EXPECT_FALSE(checkedAdd(kNoTime - 5, 6).has_value());
    EXPECT_EQ(formatMicroseconds(1700000000123456789), "1700000000123456.789");
    EXPECT_EQ(formatMicroseconds(1500), "1.5");
    EXPECT_EQ(formatMicroseconds(-1), "-0.001");
    EXPECT_EQ(formatMicroseconds(42000), "42");
    EXPECT_EQ(nsToUs(39819), 39.819);
    EXPECT_EQ(usToNs(39.819), 39819);
    EXPECT_TRUE(isPlausibleTimestamp(1700000000123456789));
    EXPECT_FALSE(isPlausibleTimestamp(kTimestampLimit));
}
