// Analysis stages on generated page loads held in memory (not run by CTest).
#include <benchmark/benchmark.h>

#include "../core/GeneratedTraces.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/RequestPass.h"
#include "tracelight/store/TraceStore.h"

#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>

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

// Beside BM_ModelInference: the model of the first requests refined with the last `range(1)` of them (what an
// incremental analysis does after an import or a capture round), instead of inferred from all of them again.
void BM_ModelRefinement(benchmark::State& state) {
    const auto& t = traces(state.range(0));
    const std::size_t firstNew = static_cast<std::size_t>(state.range(0) - state.range(1));
    const ClockOffsets offsets = solveClockOffsets(collectSkewEstimates(t.data, 0), t.data.hostLabels.size());
    std::vector<std::uint32_t> rows(firstNew);
    for (std::size_t r = 0; r < firstNew; ++r) rows[r] = static_cast<std::uint32_t>(r);
    auto prior = inferModel(restrictTraceData(t.data, rows), offsets, InferenceOptions{});
    if (!prior) {
        state.SkipWithError(prior.message().c_str());
        return;
    }
    for (auto _ : state) benchmark::DoNotOptimize(refineModel(prior.value(), t.data, offsets, firstNew, InferenceOptions{}));
    state.SetItemsProcessed(state.iterations() * state.range(1));
}
BENCHMARK(BM_ModelRefinement)->Args({100000, 1000})->Unit(benchmark::kMillisecond);

void BM_CriticalPathAndSlack(benchmark::State& state) {
    const auto& t = traces(100000);
    auto analysis = analyzeInMemory(t.data, AnalysisOptions{});
    RequestPass pass(analysis->model, analysis->data);
    std::size_t r = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(pass.run(analysis->data.eventsOf(r), analysis->offsets, analysis->data.linksOf(r)));
        r = (r + 1) % analysis->data.requestCount();
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CriticalPathAndSlack);

// A database given by TRACELIGHT_BENCH_DB (say the 1.3M-request corpus): `analyze` stage by stage, beside
// the bare baseline of the same run, one SQLite C-API scan of the events table in key order.
const char* benchDatabase(benchmark::State& state) {
    const char* db = std::getenv("TRACELIGHT_BENCH_DB");
    if (!db) state.SkipWithError("set TRACELIGHT_BENCH_DB to an imported database");
    return db;
}

void BM_BareEventScan(benchmark::State& state) {
    const char* path = benchDatabase(state);
    if (!path) return;
    std::int64_t rows = 0;
    for (auto _ : state) {
        sqlite3* db = nullptr;
        sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nullptr);
        sqlite3_stmt* q = nullptr;
        sqlite3_prepare_v2(db, "SELECT request_id, task_id, ord, event_id, host_id, ts_ns FROM events ORDER BY request_id, task_id, ord",
                           -1, &q, nullptr);
        std::int64_t sum = 0;
        rows = 0;
        while (sqlite3_step(q) == SQLITE_ROW) {
            sum += sqlite3_column_int64(q, 5) + sqlite3_column_int64(q, 3);
            ++rows;
        }
        benchmark::DoNotOptimize(sum);
        sqlite3_finalize(q);
        sqlite3_close(db);
    }
    state.counters["events"] = static_cast<double>(rows);
}
BENCHMARK(BM_BareEventScan)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

void BM_AnalyzeStore(benchmark::State& state) {
    const char* path = benchDatabase(state);
    if (!path) return;
    for (auto _ : state) {
        // Opened as `tracelight-cli analyze` opens it: the file's check runs beside the read, not before it.
        auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite, TraceStore::WriteCheck::BesideFullRead);
        if (!store) {
            state.SkipWithError(store.message().c_str());
            return;
        }
        AnalysisOptions options;
        options.full = true;  // every iteration the whole analysis, not a refinement with nothing new
        auto summary = analyzeStore(*store.value(), options);
        if (!summary) {
            state.SkipWithError(summary.message().c_str());
            return;
        }
        for (const auto& stage : summary->stages) state.counters[stage.stage] = stage.seconds;
        state.counters["requests"] = static_cast<double>(summary->requests);
    }
}
BENCHMARK(BM_AnalyzeStore)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

} // namespace
