#pragma once
// Generated page loads for the benchmarks: n requests on true clocks, one user each, analysed in memory
// once per size and kept for the whole run; and the list of every row of them.
#include <benchmark/benchmark.h>

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

// The bare baseline a benchmark stands beside: touch every event of every request once (what any
// per-request pass must at least do).
inline void bareEventScan(benchmark::State& state, const InMemoryAnalysis& a) {
    for (auto _ : state) {
        TimeNs sum = 0;
        for (std::size_t r = 0; r < a.data.requestCount(); ++r)
            for (const auto& e : a.data.eventsOf(r)) sum += e.localNs;
        benchmark::DoNotOptimize(sum);
    }
    state.counters["events"] = double(a.data.events.size());
}

inline std::vector<std::uint32_t> allRows(std::int64_t n) {
    std::vector<std::uint32_t> rows(static_cast<std::size_t>(n));
    std::iota(rows.begin(), rows.end(), 0u);
    return rows;
}

} // namespace tracelight::bench
