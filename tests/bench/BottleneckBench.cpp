// BOSS bottleneck analysis of 1,000,000 generated page loads (issue 14's target: under 3 s), beside a
// bare baseline from the same run: one pass over the same requests' events (not run by CTest).
// Run: tracelight_bench --benchmark_filter='BottleneckScan|Bottlenecks'
#include <benchmark/benchmark.h>

#include "AnalysedPageLoads.h"
#include "tracelight/bottleneck/Bottlenecks.h"

using namespace tracelight;

namespace {

constexpr std::int64_t kRequests = 1000000;

// Baseline: touch every event of every request once (what any per-request pass must at least do).
void BM_BottleneckScanEvents(benchmark::State& state) {
    const auto& a = bench::analysedPageLoads(kRequests);
    for (auto _ : state) {
        TimeNs sum = 0;
        for (std::size_t r = 0; r < a.data.requestCount(); ++r)
            for (const auto& e : a.data.eventsOf(r)) sum += e.localNs;
        benchmark::DoNotOptimize(sum);
    }
    state.counters["events"] = double(a.data.events.size());
}
BENCHMARK(BM_BottleneckScanEvents)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

// All requests as one group, as `tracelight-cli bottlenecks` without --by computes them.
void BM_Bottlenecks(benchmark::State& state) {
    const auto& a = bench::analysedPageLoads(kRequests);
    const std::vector<std::vector<std::uint32_t>> groups{bench::allRows(kRequests)};
    std::size_t types = 0;
    for (auto _ : state) {
        auto summaries = computeBottlenecks(a, nullptr, groups);
        types = summaries ? summaries->front().types.size() : 0;
        benchmark::DoNotOptimize(types);
    }
    state.counters["requests"] = double(kRequests);
    state.counters["types"] = double(types);
}
BENCHMARK(BM_Bottlenecks)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

} // namespace
