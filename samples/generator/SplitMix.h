#pragma once
// SplitMix64's finaliser: spreads a seed (or a seed mixed with a request index) over all 64 bits, so each
// generator's requests depend only on the seed and their index.
#include <cstdint>

namespace tracelight {

inline std::uint64_t splitmix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

} // namespace tracelight
