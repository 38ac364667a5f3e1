// BOSS bottleneck analysis of 1,000,000 generated page loads (issue 14's target: under 3 s), beside the
// bare baseline from the same run: BM_ScanEvents (ProfileBench.cpp), one pass over the same requests' events,
// on the same analysed data (not run by CTest). Run: tracelight_bench --benchmark_filter='ScanEvents|Bottlenecks'
#include <benchmark/benchmark.h>

#include "AnalysedPageLoads.h"
#include "tracelight/bottleneck/Bottlenecks.h"

using namespace tracelight;

namespace {

constexpr std::int64_t kRequests = 1000000;

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
