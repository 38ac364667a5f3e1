#pragma once
// A latency slice of a set of requests: "the slowest 10 %" (LinkedIn's BOSS paper slices its bottlenecks by
// latency: "what is the bottleneck for the slowest 10 % of members?"), or any percentile range LO..HI.
//
// The requests are ranked by latency, fastest first, ties in row order (so a slice is repeatable); the request
// of rank i (0-based) of n is in LO..HI when LO/100 <= i/n < HI/100. Adjacent ranges (0..50 and 50..100) split
// the requests between them exactly, 90..100 holds the slowest floor(n/10), and 0..100 all of them.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/base/Status.h"
#include "tracelight/base/Time.h"

namespace tracelight {

struct PercentileRange {
    // In units of 1/10,000 of a percent (0 .. 1,000,000), so ranks are computed exactly: 99.9 is 999,000.
    static constexpr std::int64_t kScale = 10000;
    std::int64_t lo = 0, hi = 100 * kScale;

    bool isAll() const { return lo == 0 && hi == 100 * kScale; }
    double loPercent() const { return double(lo) / kScale; }
    double hiPercent() const { return double(hi) / kScale; }
    std::string text() const;  // "90..100", "99.9..100"
};

// "LO..HI": two percentiles from 0 to 100 (decimals allowed, to 1/10,000), LO below HI. The error says what is
// wrong with the text, without naming an option (the caller does).
Result<PercentileRange> parsePercentileRange(std::string_view text);

// The rows of `rows` in the slice, in the order given. latencies[i] is the latency of rows[i].
std::vector<std::uint32_t> latencySlice(std::span<const std::uint32_t> rows, std::span<const TimeNs> latencies, PercentileRange range);

// Each row's latency as the bottleneck split measures it (requestWindow: what its caller waited; event logs:
// first event to last), in the order of rows.
std::vector<TimeNs> requestLatencies(const InMemoryAnalysis& analysis, std::span<const std::uint32_t> rows);

// The slice with its edges: the requests it keeps (rows, in the order given) and their latency range.
struct LatencySliceResult {
    PercentileRange range;
    std::int64_t scopeRequests = 0;  // the requests it was cut from
    std::vector<std::uint32_t> rows;
    TimeNs minLatencyNs = 0, maxLatencyNs = 0;  // of the rows kept; 0 when none
};
LatencySliceResult sliceByLatency(const InMemoryAnalysis& analysis, std::span<const std::uint32_t> rows, PercentileRange range);

} // namespace tracelight
