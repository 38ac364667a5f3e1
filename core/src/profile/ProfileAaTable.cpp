#include "tracelight/profile/ProfileAaTable.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace tracelight {

std::vector<TimeNs> defaultAaThresholdsNs() { return {1'000'000, 5'000'000, 10'000'000}; }

std::vector<std::size_t> defaultAaSizes(std::size_t rows) {
    std::vector<std::size_t> sizes;
    for (std::size_t n : {100u, 1000u, 10000u, 100000u})
        if (2 * n <= rows) sizes.push_back(n);
    if (sizes.empty() && rows >= 4) sizes.push_back(rows / 2);
    return sizes;
}

Result<std::vector<AaTableCell>> aaFalsePositiveTable(const InMemoryAnalysis& analysis, const TraceStore* store,
                                                      const std::vector<std::uint32_t>& rows, const AaTableOptions& table,
                                                      const ProfileOptions& options, const ProgressSink* progress,
                                                      const CancelToken* cancel) {
    if (table.repeats < 2) return Status::error("an A/A table needs at least 2 repeats");
    if (table.sizes.empty() || table.thresholdsNs.empty()) return Status::error("an A/A table needs sizes and thresholds");
    for (std::size_t n : table.sizes)
        if (n < 2 || 2 * n > rows.size())
            return Status::error("A/A size " + std::to_string(n) + " needs " + std::to_string(2 * n) + " requests; the selection has " +
                                 std::to_string(rows.size()));
    // Per size, per repeat, per threshold: how many frames moved past it.
    const std::size_t thresholds = table.thresholdsNs.size();
    std::vector<std::vector<double>> counts(table.sizes.size() * thresholds);
    // Four comparisons (eight groups) per profile pass, the most one pass takes.
    constexpr std::size_t kPairsPerPass = 4;
    const std::size_t total = table.sizes.size() * static_cast<std::size_t>(table.repeats);
    std::size_t done = 0;
    for (std::size_t s = 0; s < table.sizes.size(); ++s) {
        const std::size_t n = table.sizes[s];
        for (int first = 0; first < table.repeats; first += static_cast<int>(kPairsPerPass)) {
            const int last = std::min(table.repeats, first + static_cast<int>(kPairsPerPass));
            std::vector<std::vector<std::uint32_t>> groups;
            for (int r = first; r < last; ++r) {
                // Each repeat its own draw: the same for the same seed, size and repeat.
                std::vector<std::uint32_t> shuffled = rows;
                std::mt19937_64 rng(table.seed * 1000003u + n * 7919u + static_cast<std::uint64_t>(r));
                std::shuffle(shuffled.begin(), shuffled.end(), rng);
                std::vector<std::uint32_t> a(shuffled.begin(), shuffled.begin() + static_cast<std::ptrdiff_t>(n));
                std::vector<std::uint32_t> b(shuffled.begin() + static_cast<std::ptrdiff_t>(n), shuffled.begin() + static_cast<std::ptrdiff_t>(2 * n));
                std::sort(a.begin(), a.end());
                std::sort(b.begin(), b.end());
                groups.push_back(std::move(a));
                groups.push_back(std::move(b));
            }
            auto set = buildProfiles(analysis, store, groups, options, nullptr, cancel);
            if (!set) return set.status();
            for (std::size_t pair = 0; pair * 2 < groups.size(); ++pair) {
                for (std::size_t t = 0; t < thresholds; ++t) {
                    std::int64_t moved = 0;
                    for (std::size_t f = 0; f < set->frames.size(); ++f)
                        if (std::fabs(set->meanTotalNs(2 * pair, f) - set->meanTotalNs(2 * pair + 1, f)) > double(table.thresholdsNs[t])) ++moved;
                    counts[s * thresholds + t].push_back(double(moved));
                }
                ++done;
            }
            if (progress && *progress) (*progress)(double(done) / double(total), "A/A comparisons");
        }
    }
    std::vector<AaTableCell> out;
    for (std::size_t s = 0; s < table.sizes.size(); ++s)
        for (std::size_t t = 0; t < thresholds; ++t) {
            const auto& c = counts[s * thresholds + t];
            double mean = 0;
            for (double x : c) mean += x;
            mean /= double(c.size());
            double var = 0;
            for (double x : c) var += (x - mean) * (x - mean);
            var /= double(c.size() - 1);
            const double half = 1.959964 * std::sqrt(var / double(c.size()));
            out.push_back({table.sizes[s], table.thresholdsNs[t], mean, std::max(0.0, mean - half), mean + half});
        }
    return out;
}

} // namespace tracelight
