#include "tracelight/base/Time.h"

#include <cmath>
#include <cstdio>

namespace tracelight {

TimeNs usToNs(double us) {
    const double ns = std::round(us * 1000.0);
    if (!(std::fabs(ns) < 9.2e18)) return ns < 0 ? -kNoTime : kNoTime;  // NaN and beyond: saturate
    return static_cast<TimeNs>(ns);
}

std::optional<TimeNs> checkedMul(TimeNs a, TimeNs b) {
    TimeNs out = 0;
    if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
    return out;
}

std::optional<TimeNs> checkedAdd(TimeNs a, TimeNs b) {
    TimeNs out = 0;
    if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
    return out;
}

std::optional<TimeNs> parseDecimalTime(std::string_view text, int unitExponent) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    std::size_t i = 0;
    bool negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
    // The significant digits (integer part then fraction) and the power of ten that scales them.
    std::string digits;
    int scale = 0;
    bool any = false;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
        any = true;
        if (!digits.empty() || text[i] != '0') digits += text[i];
    }
    if (i < text.size() && text[i] == '.') {
        for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
            any = true;
            if (!digits.empty() || text[i] != '0') digits += text[i];
            --scale;
        }
    }
    if (!any) return std::nullopt;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool negativeExponent = false;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) negativeExponent = text[i++] == '-';
        if (i == text.size()) return std::nullopt;
        long exponent = 0;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
            exponent = exponent * 10 + (text[i] - '0');
            if (exponent > 100000) return std::nullopt;
        }
        scale += static_cast<int>(negativeExponent ? -exponent : exponent);
    }
    if (i != text.size()) return std::nullopt;
    if (digits.empty()) return TimeNs{0};
    scale += unitExponent;  // now: value in ns = digits x 10^scale
    bool roundUp = false;
    if (scale < 0) {
        const auto drop = static_cast<std::size_t>(-scale);
        if (drop > digits.size()) return TimeNs{0};
        roundUp = digits[digits.size() - drop] >= '5';
        digits.resize(digits.size() - drop);
        scale = 0;
    }
    if (digits.size() + static_cast<std::size_t>(scale) > 19) return std::nullopt;
    std::uint64_t value = 0;  // at most 19 digits: below 2^64
    for (char c : digits) value = value * 10 + static_cast<std::uint64_t>(c - '0');
    for (int k = 0; k < scale; ++k) value *= 10;
    value += roundUp ? 1 : 0;
    if (value > static_cast<std::uint64_t>(kNoTime - 1)) return std::nullopt;
    const auto magnitude = static_cast<TimeNs>(value);
    return negative ? -magnitude : magnitude;
}

std::string formatMicroseconds(TimeNs ns) {
    const bool negative = ns < 0;
    const auto magnitude = negative ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
    std::string out = (negative ? "-" : "") + std::to_string(magnitude / 1000);
    if (std::uint64_t fraction = magnitude % 1000; fraction != 0) {
        char buf[5];
        std::snprintf(buf, sizeof buf, ".%03u", static_cast<unsigned>(fraction));
        std::string f(buf);
        while (f.back() == '0') f.pop_back();
        out += f;
    }
    return out;
}

} // namespace tracelight
