#pragma once
// The engine's one time type: integer nanoseconds (absolute: since the Unix epoch, on some host's clock;
// or a duration). A double holds absolute microseconds only to 0.25 us today, so every timestamp is
// parsed from its decimal text straight into nanoseconds, and converted to floating-point microseconds
// only at the boundary (JSON output, display).
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace tracelight {

using TimeNs = std::int64_t;

constexpr TimeNs kNsPerUs = 1000;
constexpr TimeNs kNoTime = std::numeric_limits<TimeNs>::max();  // "none" where a time may be absent
// Timestamps a trace may hold: within 2^62 ns (146 years) of the epoch, the years 1824 to 2116, so the
// difference of any two is a valid TimeNs. Beyond that a "timestamp" is a unit mistake or garbage.
constexpr TimeNs kTimestampLimit = TimeNs{1} << 62;
constexpr bool isPlausibleTimestamp(TimeNs t) { return t > -kTimestampLimit && t < kTimestampLimit; }

// Microseconds as a double, for JSON and display. Split so that an absolute time loses no more than the
// double's own resolution.
constexpr double nsToUs(TimeNs ns) { return double(ns / kNsPerUs) + double(ns % kNsPerUs) / 1000.0; }
constexpr double nsToMs(TimeNs ns) { return nsToUs(ns) / 1000.0; }
// A duration a person typed or a factor produced (microseconds as a double), rounded to the nearest ns.
TimeNs usToNs(double us);

// Exact decimal text to nanoseconds, without going through a double:
// "1700000000123456.789" (us) -> 1700000000123456789. Accepts a sign, a fraction and an exponent
// ("1.5e3"); digits beyond the nanosecond are rounded half away from zero. Empty when the text is not a
// number or the value does not fit in 64-bit nanoseconds (beyond about the year 2262).
std::optional<TimeNs> parseDecimalTime(std::string_view text, int unitExponent);
inline std::optional<TimeNs> parseMicroseconds(std::string_view text) { return parseDecimalTime(text, 3); }
inline std::optional<TimeNs> parseNanoseconds(std::string_view text) { return parseDecimalTime(text, 0); }

// a * b and a + b, empty on 64-bit overflow (Jaeger / Zipkin microseconds x 1000, start + duration).
std::optional<TimeNs> checkedMul(TimeNs a, TimeNs b);
std::optional<TimeNs> checkedAdd(TimeNs a, TimeNs b);

// Exact decimal microseconds: 1700000000123456789 -> "1700000000123456.789" (trailing zeros dropped).
std::string formatMicroseconds(TimeNs ns);

} // namespace tracelight
