#pragma once
// Rows split at random into two halves, the same halves for the same seed: how an A/A comparison (the
// period comparison's and the profile diff's) learns what chance alone flags at this sample size.
#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <string_view>
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

// The half a key (a user id, any attribute's value) falls in for a seed: 0 or 1, from a hash of the key's
// text alone (FNV-1a, then splitmix64 with the seed), so every row with that key falls in the same half, in
// any database and any period — the random user partition of an experiment.
inline int halfOfKey(std::string_view key, std::uint64_t seed) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
    std::uint64_t z = h ^ (seed * 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<int>((z ^ (z >> 31)) & 1u);
}

} // namespace tracelight
