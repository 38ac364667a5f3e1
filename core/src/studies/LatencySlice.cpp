#include "tracelight/studies/LatencySlice.h"

#include <algorithm>
#include <numeric>

#include "tracelight/analysis/SpanRequestPath.h"

namespace tracelight {

namespace {
std::string percentText(std::int64_t v) {
    std::string s = std::to_string(v / PercentileRange::kScale);
    if (std::int64_t frac = v % PercentileRange::kScale; frac != 0) {
        std::string digits = std::to_string(frac);
        digits.insert(0, 4 - digits.size(), '0');
        while (digits.back() == '0') digits.pop_back();
        s += "." + digits;
    }
    return s;
}
} // namespace

std::string PercentileRange::text() const { return percentText(lo) + ".." + percentText(hi); }

Result<PercentileRange> parsePercentileRange(std::string_view text) {
    const std::string shown = "'" + std::string(text) + "'";
    const std::size_t dots = text.find("..");
    if (dots == std::string_view::npos)
        return Status::error(shown + ": expected LO..HI, two percentiles from 0 to 100 (90..100: the slowest 10 %)");
    PercentileRange range;
    for (int side = 0; side < 2; ++side) {
        std::string_view part = side == 0 ? text.substr(0, dots) : text.substr(dots + 2);
        while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
        while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
        // Exact decimal text to an integer of 1/10,000 percent (the time parser's, with four decimals).
        const auto value = part.empty() ? std::nullopt : parseDecimalTime(part, 4);
        if (!value || *value < 0 || *value > 100 * PercentileRange::kScale)
            return Status::error(shown + ": " + (side == 0 ? "LO" : "HI") + " must be a percentile from 0 to 100");
        (side == 0 ? range.lo : range.hi) = *value;
    }
    if (range.lo >= range.hi) return Status::error(shown + ": LO must be below HI (90..100: the slowest 10 %)");
    return range;
}

namespace {
// Which of the n requests are in the slice (by index into rows / latencies).
std::vector<char> inSlice(std::span<const std::uint32_t> rows, std::span<const TimeNs> latencies, PercentileRange range) {
    const std::size_t n = std::min(rows.size(), latencies.size());
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return latencies[a] != latencies[b] ? latencies[a] < latencies[b] : rows[a] != rows[b] ? rows[a] < rows[b] : a < b;
    });
    // Rank i is in the slice when lo * n <= i * S < hi * n (S = 100 %): ranks [ceil(lo n / S), ceil(hi n / S)).
    const std::int64_t scale = 100 * PercentileRange::kScale, count = static_cast<std::int64_t>(n);
    auto firstRankAtOrAbove = [&](std::int64_t p) { return static_cast<std::size_t>((p * count + scale - 1) / scale); };
    std::vector<char> keep(n, 0);
    for (std::size_t i = firstRankAtOrAbove(range.lo); i < firstRankAtOrAbove(range.hi) && i < n; ++i) keep[order[i]] = 1;
    return keep;
}
} // namespace

std::vector<std::uint32_t> latencySlice(std::span<const std::uint32_t> rows, std::span<const TimeNs> latencies, PercentileRange range) {
    const std::vector<char> keep = inSlice(rows, latencies, range);
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < keep.size(); ++i)
        if (keep[i]) out.push_back(rows[i]);
    return out;
}

std::vector<TimeNs> requestLatencies(const InMemoryAnalysis& analysis, std::span<const std::uint32_t> rows) {
    std::vector<TimeNs> out;
    out.reserve(rows.size());
    std::vector<SegmentInstance> scratch;
    for (auto r : rows) {
        if (r >= analysis.data.requestCount()) {
            out.push_back(0);
            continue;
        }
        const RequestSpan window = requestWindow(analysis.data, r, analysis.offsets, scratch);
        out.push_back(window.endNs - window.startNs);
    }
    return out;
}

LatencySliceResult sliceByLatency(const InMemoryAnalysis& analysis, std::span<const std::uint32_t> rows, PercentileRange range) {
    LatencySliceResult out;
    out.range = range;
    out.scopeRequests = static_cast<std::int64_t>(rows.size());
    const std::vector<TimeNs> latencies = requestLatencies(analysis, rows);
    const std::vector<char> keep = inSlice(rows, latencies, range);
    for (std::size_t i = 0; i < keep.size(); ++i) {
        if (!keep[i]) continue;
        out.minLatencyNs = out.rows.empty() ? latencies[i] : std::min(out.minLatencyNs, latencies[i]);
        out.maxLatencyNs = out.rows.empty() ? latencies[i] : std::max(out.maxLatencyNs, latencies[i]);
        out.rows.push_back(rows[i]);
    }
    return out;
}

} // namespace tracelight
