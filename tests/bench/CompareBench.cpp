// Spectroscope comparison of two periods of 150,000 generated page loads each (not run by CTest):
// categorising (the per-request pass and the structure hash), the tests and ranking, and the A/A split.
#include <benchmark/benchmark.h>

#include <numeric>

#include "../core/GeneratedTraces.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/compare/Compare.h"

using namespace tracelight;

namespace {

constexpr std::int64_t kPerPeriod = 150000;

const InMemoryAnalysis& analysed() {
    static InMemoryAnalysis a = [] {
        samples::GeneratorOptions options;
        options.requests = 2 * kPerPeriod;
        options.users = 2 * kPerPeriod;
        auto traces = test::generateTraces(samples::PageLoadGenerator(options), 2 * kPerPeriod, true);
        return std::move(analyzeInMemory(std::move(traces.data), AnalysisOptions{}).value());
    }();
    return a;
}

std::vector<std::uint32_t> allRows() {
    std::vector<std::uint32_t> rows(2 * kPerPeriod);
    std::iota(rows.begin(), rows.end(), 0u);
    return rows;
}

const RequestCategories& categories() {
    static RequestCategories c = std::move(categorizeRequests(analysed(), allRows()).value());
    return c;
}

// The first half is the baseline, the second the problem period.
std::vector<std::uint32_t> half(bool second) {
    std::vector<std::uint32_t> v(kPerPeriod);
    std::iota(v.begin(), v.end(), second ? std::uint32_t(kPerPeriod) : 0u);
    return v;
}

void BM_CompareCategorize(benchmark::State& state) {
    const auto& a = analysed();
    for (auto _ : state) benchmark::DoNotOptimize(categorizeRequests(a, allRows()));
    state.counters["requests"] = double(2 * kPerPeriod);
}
BENCHMARK(BM_CompareCategorize)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

void BM_CompareTestsAndRanking(benchmark::State& state) {
    const auto& c = categories();
    const auto base = half(false), prob = half(true);
    std::size_t categoriesSeen = 0;
    for (auto _ : state) {
        const Comparison cmp = compareCategories(c, base, prob, CompareOptions{});
        categoriesSeen = cmp.categories.size();
        benchmark::DoNotOptimize(cmp.entries.data());
    }
    state.counters["categories"] = double(categoriesSeen);
}
BENCHMARK(BM_CompareTestsAndRanking)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_CompareAaSplit(benchmark::State& state) {
    const auto& c = categories();
    const auto base = half(false);
    for (auto _ : state) benchmark::DoNotOptimize(aaSplit(c, base, CompareOptions{}));
}
BENCHMARK(BM_CompareAaSplit)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace
