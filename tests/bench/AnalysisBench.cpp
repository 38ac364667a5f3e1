// Analysis stages on generated page loads held in memory (not run by CTest).
#include <benchmark/benchmark.h>

#include "../core/GeneratedTraces.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/RequestDag.h"
#include "tracelight/analysis/Slack.h"

using namespace tracelight;

namespace {

const test::GeneratedTraces& traces(std::int64_t requests) {
    static std::map<std::int64_t, test::GeneratedTraces> cache;
    auto it = cache.find(requests);
    if (it == cache.end()) {
        samples::GeneratorOptions options;
        options.requests = requests;
        it = cache.emplace(requests, test::generateTraces(samples::PageLoadGenerator(options), requests)).first;
    }
    return it->second;
}

void BM_ClockSkew(benchmark::State& state) {
    const auto& t = traces(state.range(0));
    for (auto _ : state) {
        const SkewEstimates e = collectSkewEstimates(t.data, 0);
        benchmark::DoNotOptimize(solveClockOffsets(e, t.data.hostLabels.size()));
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ClockSkew)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_ModelInference(benchmark::State& state) {
    const auto& t = traces(state.range(0));
    const ClockOffsets offsets = solveClockOffsets(collectSkewEstimates(t.data, 0), t.data.hostLabels.size());
    for (auto _ : state) benchmark::DoNotOptimize(inferModel(t.data, offsets, InferenceOptions{}));
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ModelInference)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_CriticalPathAndSlack(benchmark::State& state) {
    const auto& t = traces(100000);
    auto analysis = analyzeInMemory(t.data, AnalysisOptions{});
    RequestDagBuilder builder(analysis->model, analysis->data);
    RequestDag dag;
    std::size_t r = 0;
    for (auto _ : state) {
        builder.build(analysis->data.eventsOf(r), analysis->offsets, dag);
        benchmark::DoNotOptimize(computeCriticalPath(dag));
        benchmark::DoNotOptimize(computeSlack(dag));
        r = (r + 1) % analysis->data.requestCount();
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CriticalPathAndSlack);

} // namespace
