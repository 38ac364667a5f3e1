#pragma once
// Generated page loads for the benchmarks: n requests on true clocks, one user each, analysed in memory
// once per size and kept for the whole run; and the list of every row of them.
#include <map>
#include <memory>
#include <numeric>
#include <vector>

#include "../core/GeneratedTraces.h"
#include "tracelight/analysis/Analysis.h"

namespace tracelight::bench {

inline const InMemoryAnalysis& analysedPageLoads(std::int64_t n) {
    static std::map<std::int64_t, std::unique_ptr<InMemoryAnalysis>> cache;
    auto& slot = cache[n];
    if (!slot) {
        samples::GeneratorOptions options;
        options.requests = n;
        options.users = n;
        auto traces = test::generateTraces(samples::PageLoadGenerator(options), n, true);
        slot = std::make_unique<InMemoryAnalysis>(std::move(analyzeInMemory(std::move(traces.data), AnalysisOptions{}).value()));
    }
    return *slot;
}

inline std::vector<std::uint32_t> allRows(std::int64_t n) {
    std::vector<std::uint32_t> rows(static_cast<std::size_t>(n));
    std::iota(rows.begin(), rows.end(), 0u);
    return rows;
}

} // namespace tracelight::bench
