// Temporal context over 100,000 generated page loads (not run by CTest): building the host × time index
// once, then the context of every request in turn from it — beside one request's context by a scan of every
// event, the cost the index saves on each query after the first.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <limits>

#include "AnalysedPageLoads.h"
#include "tracelight/bottleneck/HostTimeIndex.h"
#include "tracelight/bottleneck/TemporalContext.h"

using namespace tracelight;

namespace {

constexpr std::int64_t kRequests = 100000;

const InMemoryAnalysis& analysed() { return bench::analysedPageLoads(kRequests); }

void BM_BuildHostTimeIndex(benchmark::State& state) {
    const auto& a = analysed();
    for (auto _ : state) {
        HostTimeIndex index(a.data, a.offsets);
        benchmark::DoNotOptimize(index.hostCount());
    }
    state.counters["events"] = double(a.data.events.size());
}
BENCHMARK(BM_BuildHostTimeIndex)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

// Every request's context from one index: the per-query cost is the request and what ran beside it.
void BM_ContextOfEveryRequest(benchmark::State& state) {
    const auto& a = analysed();
    const HostTimeIndex index(a.data, a.offsets);
    std::int64_t concurrent = 0;
    for (auto _ : state) {
        concurrent = 0;
        for (std::uint32_t r = 0; r < a.data.requestCount(); ++r)
            concurrent += static_cast<std::int64_t>(temporalContext(a, index, r).concurrent.size());
        benchmark::DoNotOptimize(concurrent);
    }
    state.counters["requests"] = double(a.data.requestCount());
    state.counters["mean_concurrent"] = double(concurrent) / double(a.data.requestCount());
}
BENCHMARK(BM_ContextOfEveryRequest)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

// What one query costs without an index: every event of every request read against the window.
void BM_OneContextByScan(benchmark::State& state) {
    const auto& a = analysed();
    const std::uint32_t row = static_cast<std::uint32_t>(a.data.requestCount() / 2);
    TimeNs from = std::numeric_limits<TimeNs>::max(), to = std::numeric_limits<TimeNs>::min();
    for (const auto& e : a.data.eventsOf(row)) {
        from = std::min(from, a.offsets.adjusted(e.host, e.localNs));
        to = std::max(to, a.offsets.adjusted(e.host, e.localNs));
    }
    for (auto _ : state) {
        std::int64_t inside = 0;
        for (std::uint32_t r = 0; r < a.data.requestCount(); ++r)
            for (const auto& e : a.data.eventsOf(r)) {
                const TimeNs t = a.offsets.adjusted(e.host, e.localNs);
                inside += t >= from && t <= to;
            }
        benchmark::DoNotOptimize(inside);
    }
}
BENCHMARK(BM_OneContextByScan)->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();

} // namespace
