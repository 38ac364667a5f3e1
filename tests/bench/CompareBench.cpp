// Spectroscope comparison of two periods of 150,000 generated page loads each (not run by CTest):
// categorising (the per-request pass and the structure hash), the tests, precursors and ranking (the split
// compareCategories times itself), and the A/A split, beside a bare scan of the same requests' events.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <numeric>

#include "AnalysedPageLoads.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/compare/Compare.h"

using namespace tracelight;

namespace {

constexpr std::int64_t kPerPeriod = 150000;

const InMemoryAnalysis& analysed() { return bench::analysedPageLoads(2 * kPerPeriod); }
std::vector<std::uint32_t> allRows() { return bench::allRows(2 * kPerPeriod); }

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

// The bare baseline of the same run: touch every event of the same 300,000 requests once (what any
// per-request pass, categorising included, must at least do).
void BM_CompareBareEventScan(benchmark::State& state) { bench::bareEventScan(state, analysed()); }
BENCHMARK(BM_CompareBareEventScan)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

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
    double testsMs = 0, precursorsMs = 0, rankingMs = 0;
    for (auto _ : state) {
        const Comparison cmp = compareCategories(c, base, prob, CompareOptions{});
        categoriesSeen = cmp.categories.size();
        testsMs += double(cmp.timings.testsNs) / 1e6;
        precursorsMs += double(cmp.timings.precursorsNs) / 1e6;
        rankingMs += double(cmp.timings.rankingNs) / 1e6;
        benchmark::DoNotOptimize(cmp.entries.data());
    }
    state.counters["categories"] = double(categoriesSeen);
    // The split of one comparison, averaged over the iterations (milliseconds).
    const double n = double(std::max<benchmark::IterationCount>(1, state.iterations()));
    state.counters["tests_ms"] = testsMs / n;
    state.counters["precursors_ms"] = precursorsMs / n;
    state.counters["ranking_ms"] = rankingMs / n;
}
BENCHMARK(BM_CompareTestsAndRanking)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_CompareAaSplit(benchmark::State& state) {
    const auto& c = categories();
    const auto base = half(false);
    for (auto _ : state) benchmark::DoNotOptimize(aaSplit(c, base, CompareOptions{}));
}
BENCHMARK(BM_CompareAaSplit)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace
