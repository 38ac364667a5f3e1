#pragma once
// Rows split at random into two halves, the same halves for the same seed: how an A/A comparison (the
// period comparison's and the profile diff's) learns what chance alone flags at this sample size.
#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <utility>
#include <vector>

namespace tracelight {

// The rows shuffled (std::mt19937_64 seeded with `seed`), the first half and the rest, in shuffled order.
inline std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> splitAtRandom(std::span<const std::uint32_t> rows,
                                                                                       std::uint64_t seed) {
    std::vector<std::uint32_t> shuffled(rows.begin(), rows.end());
    std::mt19937_64 rng(seed);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    const auto half = static_cast<std::ptrdiff_t>(shuffled.size() / 2);
    return {std::vector<std::uint32_t>(shuffled.begin(), shuffled.begin() + half),
            std::vector<std::uint32_t>(shuffled.begin() + half, shuffled.end())};
}

} // namespace tracelight
