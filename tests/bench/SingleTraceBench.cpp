// One span trace file to its critical path in memory, as `critical-path TRACE_FILE` computes it (without writing the
// JSON), beside the bare baseline of the same run: the file read and parsed into a RapidJSON DOM, nothing else
// (issue 41; the figures against Jaeger UI are tests/bench/single_trace_figures.sh's). Not run by CTest.
// Run: TRACELIGHT_BENCH_TRACE_FILE=t100000.json tracelight_bench --benchmark_filter="TraceFile|SpanFile"
#include <benchmark/benchmark.h>
#include <rapidjson/document.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "import/spans/SpanParsers.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/import/TraceFileContents.h"
#include "tracelight/studies/Aggregates.h"

using namespace tracelight;

namespace {

const char* benchTraceFile(benchmark::State& state) {
    const char* file = std::getenv("TRACELIGHT_BENCH_TRACE_FILE");
    if (!file) state.SkipWithError("set TRACELIGHT_BENCH_TRACE_FILE to a span file of one trace (make_single_trace.py)");
    return file;
}

void BM_BareTraceFileParse(benchmark::State& state) {
    const char* file = benchTraceFile(state);
    if (!file) return;
    for (auto _ : state) {
        std::ifstream in(file, std::ios::binary);
        std::stringstream buffer;
        buffer << in.rdbuf();
        const std::string text = buffer.str();
        rapidjson::Document doc;
        doc.Parse(text.c_str(), text.size());
        if (doc.HasParseError()) state.SkipWithError("not JSON");
        benchmark::DoNotOptimize(doc.IsObject());
    }
}
BENCHMARK(BM_BareTraceFileParse)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

// The file to its spans and nothing else (the stage before assembly): what the span parser costs alone.
void BM_SpanFileParse(benchmark::State& state) {
    const char* file = benchTraceFile(state);
    if (!file) return;
    std::size_t spans = 0;
    for (auto _ : state) {
        spans = 0;
        const Status read = parseJaegerJson(file, [&](RawSpan&& span) {
            benchmark::DoNotOptimize(span.spanId.data());
            ++spans;
            return Status::ok();
        }, {}, nullptr);
        if (!read) {
            state.SkipWithError(read.message().c_str());
            return;
        }
    }
    state.counters["spans"] = static_cast<double>(spans);
}
BENCHMARK(BM_SpanFileParse)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

void BM_CriticalPathOfTraceFile(benchmark::State& state) {
    const char* file = benchTraceFile(state);
    if (!file) return;
    std::size_t pathEntries = 0;
    for (auto _ : state) {
        ImportOptions options;
        options.inputs = {file};
        auto contents = readSpanFiles(options);
        if (!contents || contents->requestNames.size() != 1) {
            state.SkipWithError("not a span file of one trace");
            return;
        }
        auto path = requestCriticalPathWithoutModel(contents->data, AnalysisOptions{}, 0, contents->requestNames[0],
                                                    std::move(contents->spanIds[0]));
        if (!path || !*path) {
            state.SkipWithError("no span tree's critical path");
            return;
        }
        // The segments' categories after the path (the command finds them beside it, on a second thread).
        const auto categories = requestSegmentCategories(contents->data, 0, CategoryRules::defaults());
        benchmark::DoNotOptimize(categories.data());
        pathEntries = path->value().criticalPath.size();
    }
    state.counters["path_entries"] = static_cast<double>(pathEntries);
}
BENCHMARK(BM_CriticalPathOfTraceFile)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

} // namespace
