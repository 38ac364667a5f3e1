#include "tracelight/profile/ProfileSelection.h"

#include <algorithm>
#include <random>

#include "tracelight/studies/Aggregates.h"

namespace tracelight {

std::vector<std::string> defaultOptInMarkers() { return {"jaeger-debug-id", "sampling.priority"}; }

std::vector<std::uint8_t> optInRows(const TraceStore& store, const std::vector<RequestId>& ids, const std::vector<std::string>& markers) {
    std::vector<std::uint8_t> out(ids.size(), 0);
    for (const auto& marker : markers) {
        const auto values = attributeValues(store, ids, marker);
        for (std::size_t r = 0; r < values.size() && r < out.size(); ++r)
            out[r] |= !values[r].empty() && values[r] != "0" && values[r] != "false";
    }
    return out;
}

std::vector<std::uint32_t> sampleRows(std::vector<std::uint32_t> rows, std::size_t n, std::uint64_t seed) {
    if (n == 0 || rows.size() <= n) return rows;
    std::mt19937_64 rng(seed);
    std::shuffle(rows.begin(), rows.end(), rng);
    rows.resize(n);
    std::sort(rows.begin(), rows.end());
    return rows;
}

} // namespace tracelight
