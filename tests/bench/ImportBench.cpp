// Import throughput of the event-log importers on generated page loads (not run by CTest).
// Run: tracelight_bench --benchmark_filter=Import
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "ImportTiming.h"
#include "generator/PageLoadGenerator.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

namespace {

std::string writeSample(std::int64_t requests) {
    const std::string path = (std::filesystem::temp_directory_path() / ("tl-bench-" + std::to_string(requests) + ".csv")).string();
    if (std::filesystem::exists(path)) return path;
    samples::GeneratorOptions options;
    options.requests = requests;
    samples::PageLoadGenerator gen(options);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fputs("request,host,task,event,ts_us,seq\n", f);
    const auto& tasks = samples::PageLoadGenerator::taskNames();
    const auto& events = samples::PageLoadGenerator::eventNames();
    for (std::int64_t i = 0; i < requests; ++i) {
        const auto r = gen.generate(i);
        for (const auto& e : r.events)
            std::fprintf(f, "%s,%s,%.*s,%.*s,%lld,%d\n", r.name.c_str(), gen.hostName(e.host).c_str(),
                         int(tasks[e.task].size()), tasks[e.task].data(), int(events[e.event].size()), events[e.event].data(),
                         static_cast<long long>((e.trueNs + gen.clockOffsetNs(e.host)) / 1000), int(e.seq));
    }
    std::fclose(f);
    return path;
}

void BM_ImportEventsCsv(benchmark::State& state) { bench::timeImport(state, writeSample(state.range(0)), "events"); }
BENCHMARK(BM_ImportEventsCsv)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_GeneratePageLoads(benchmark::State& state) {
    samples::GeneratorOptions options;
    options.requests = 1 << 20;
    samples::PageLoadGenerator gen(options);
    std::int64_t i = 0;
    for (auto _ : state) benchmark::DoNotOptimize(gen.generate(i++));
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GeneratePageLoads);

} // namespace

BENCHMARK_MAIN();
