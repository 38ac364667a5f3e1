#pragma once
// Times importTraces on one file into a fresh database per iteration, and reports a rate counter.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::bench {

// counter: "events" or "spans" — which count of the import summary the rate is of.
inline void timeImport(benchmark::State& state, const std::string& file, const std::string& counter) {
    const std::string db = file + ".tldb";
    std::int64_t count = 0;
    for (auto _ : state) {
        state.PauseTiming();
        for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
        auto store = TraceStore::open(db, TraceStore::Mode::Create);
        state.ResumeTiming();
        ImportOptions options;
        options.inputs = {file};
        auto summary = importTraces(*store.value(), options);
        if (!summary) state.SkipWithError(summary.message().c_str());
        else count = counter == "spans" ? summary->spans : summary->events;
    }
    state.counters[counter] = static_cast<double>(count);
    state.counters[counter + "/s"] = benchmark::Counter(static_cast<double>(count) * state.iterations(), benchmark::Counter::kIsRate);
}

} // namespace tracelight::bench
