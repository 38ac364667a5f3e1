// The average critical-path profile of 1,000,000 generated page loads (issue 13's target: under 2 s),
// from the critical paths analyze cached and, for comparison, recomputing them; beside a bare baseline
// from the same run: one pass over the same requests' events (not run by CTest).
#include <benchmark/benchmark.h>

#include <numeric>

#include "AnalysedPageLoads.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/profile/Profile.h"

using namespace tracelight;

namespace {

constexpr std::int64_t kRequests = 1000000;

const InMemoryAnalysis& analysed() { return bench::analysedPageLoads(kRequests); }
std::vector<std::uint32_t> allRows() { return bench::allRows(kRequests); }

// Baseline: touch every event of every request once (what any per-request pass must at least do).
void BM_ScanEvents(benchmark::State& state) { bench::bareEventScan(state, analysed()); }
BENCHMARK(BM_ScanEvents)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

// The critical paths analyze caches, computed once outside the timing (what the CLI and the app read).
const CachedCriticalPaths& cachedPaths() {
    static const CachedCriticalPaths paths = computeCriticalPaths(analysed(), 0);
    return paths;
}

// The profile as the CLI and the app build it: from the cached critical paths.
void BM_Profile(benchmark::State& state) {
    const auto& a = analysed();
    const auto rows = allRows();
    ProfileOptions options;
    options.paths = &cachedPaths();
    std::size_t frames = 0;
    for (auto _ : state) {
        auto set = buildProfiles(a, nullptr, {rows}, options);
        frames = set ? set->frames.size() : 0;
        benchmark::DoNotOptimize(frames);
    }
    state.counters["requests"] = double(kRequests);
    state.counters["frames"] = double(frames);
}
BENCHMARK(BM_Profile)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

// The same with every request's graph and critical path computed again (no cache).
void BM_ProfileRecomputingPaths(benchmark::State& state) {
    const auto& a = analysed();
    const auto rows = allRows();
    for (auto _ : state) {
        auto set = buildProfiles(a, nullptr, {rows});
        benchmark::DoNotOptimize(set ? set->frames.size() : 0);
    }
}
BENCHMARK(BM_ProfileRecomputingPaths)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

// A diff with its A/A split: four groups in one pass.
void BM_ProfileDiff(benchmark::State& state) {
    const auto& a = analysed();
    const auto rows = allRows();
    std::vector<std::uint32_t> first(rows.begin(), rows.begin() + kRequests / 2), second(rows.begin() + kRequests / 2, rows.end());
    auto [x, y] = splitAtRandom(first, 1);
    for (auto _ : state) {
        ProfileOptions options;
        options.paths = &cachedPaths();
        auto set = buildProfiles(a, nullptr, {first, second, x, y}, options);
        benchmark::DoNotOptimize(diffProfiles(set.value(), 0, 1).significantFrames);
    }
}
BENCHMARK(BM_ProfileDiff)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

} // namespace
