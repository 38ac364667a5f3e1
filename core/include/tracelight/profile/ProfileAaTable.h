#pragma once
// How many frames chance alone moves past a threshold (critical path tracing, CACM 2023, Table 3): two
// profiles drawn at random from the same requests, n each, compared frame by frame, repeated; for each
// sample size and threshold, the mean number of frames whose mean critical time per request differs by
// more than the threshold, with its 95 % confidence interval over the repeats. A diff of two real
// periods is read against it: a frame that moved less than chance moves frames at that size says little.
#include <cstdint>
#include <vector>

#include "tracelight/profile/Profile.h"

namespace tracelight {

struct AaTableOptions {
    std::vector<std::size_t> sizes;   // requests per profile; each at most half the rows
    std::vector<TimeNs> thresholdsNs;  // a frame's |difference| of mean total critical time per request
    int repeats = 100;
    std::uint64_t seed = 1;
};

struct AaTableCell {
    std::size_t size = 0;
    TimeNs thresholdNs = 0;
    double meanFrames = 0;          // frames past the threshold per comparison, over the repeats
    double ci95Low = 0, ci95High = 0;  // the mean's 95 % interval (central limit theorem over the repeats)
};

// The default sizes for `rows` requests: 100, 1,000, 10,000 and 100,000 where at most half of them, else half.
std::vector<std::size_t> defaultAaSizes(std::size_t rows);
// The default thresholds: 1, 5 and 10 ms.
std::vector<TimeNs> defaultAaThresholdsNs();

// One cell per (size, threshold), sizes outer. A size over half the rows: an error naming it.
Result<std::vector<AaTableCell>> aaFalsePositiveTable(const InMemoryAnalysis& analysis, const TraceStore* store,
                                                      const std::vector<std::uint32_t>& rows, const AaTableOptions& table,
                                                      const ProfileOptions& options = {}, const ProgressSink* progress = nullptr,
                                                      const CancelToken* cancel = nullptr);

} // namespace tracelight
