// Temporal context over 100,000 generated page loads (not run by CTest): building the host × time index
// once, then the context of every request in turn from it — beside one request's context by a scan of every
// event, the cost the index saves on each query after the first. And host activity inside burst windows, read
// from a database in one pass beside the whole table loaded first.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <limits>

#include "AnalysedPageLoads.h"
#include "tracelight/bottleneck/HostTimeIndex.h"
#include "tracelight/bottleneck/BurstWindows.h"
#include "tracelight/bottleneck/TemporalContext.h"
#include "tracelight/store/HostActivityStore.h"

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

// Host activity inside burst windows from a database of 1,000,000 records on 200 hosts over 1,000 windows: read in one
// pass and let go (what the Bursts tab and `bursts` do), beside the whole table loaded and indexed first.
constexpr std::int64_t kActivityRecords = 1'000'000;
constexpr int kActivityHosts = 200, kWindows = 1000;
constexpr std::int64_t kWindowEveryMs = 1024, kWindowMs = 64, kEpochMs = 1'700'000'000'000 / 1024 * 1024;

const std::string& activityDatabase() {
    static const std::string path = [] {
        const std::string file = (std::filesystem::temp_directory_path() / "tl-bench-host-activity.tldb").string();
        std::filesystem::remove(file);
        auto store = TraceStore::open(file, TraceStore::Mode::Create);
        if (!store) std::abort();
        std::mt19937_64 rng(7);
        std::uniform_int_distribution<std::int64_t> at(0, kWindows * kWindowEveryMs * 1'000'000), length(1, 50'000'000);
        std::uniform_int_distribution<int> host(0, kActivityHosts - 1);
        const char* whats[] = {"gc", "compaction", "cron"};
        std::vector<HostActivityInput> records;
        records.reserve(static_cast<std::size_t>(kActivityRecords));
        for (std::int64_t i = 0; i < kActivityRecords; ++i) {
            const TimeNs start = kEpochMs * 1'000'000 + at(rng);
            records.push_back({"web-" + std::to_string(host(rng)), start, start + length(rng), whats[i % 3], {}, {}});
        }
        if (!addHostActivity(*store.value(), records)) std::abort();
        return file;
    }();
    return path;
}

BurstWindows benchWindows() {
    BurstWindows w;
    w.mask = 0x3C0;
    for (std::int64_t k = 0; k < kWindows; ++k) {
        BurstWindow b;
        b.startMs = kEpochMs + k * kWindowEveryMs + 0x3C0;
        b.endMs = b.startMs + kWindowMs;
        w.windows.push_back(b);
    }
    return w;
}

void BM_HostActivityInBurstsOnePass(benchmark::State& state) {
    auto store = TraceStore::open(activityDatabase(), TraceStore::Mode::ReadOnly);
    const BurstWindows windows = benchWindows();
    std::int64_t records = 0;
    for (auto _ : state) {
        auto inside = hostActivityInBursts(windows, *store.value(), HostOffsets{});
        records = 0;
        for (const BurstActivity& a : inside.value()) records += a.records;
        benchmark::DoNotOptimize(records);
    }
    state.counters["records_in_windows"] = double(records);
}
BENCHMARK(BM_HostActivityInBurstsOnePass)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

void BM_HostActivityInBurstsWholeTable(benchmark::State& state) {
    auto store = TraceStore::open(activityDatabase(), TraceStore::Mode::ReadOnly);
    const BurstWindows windows = benchWindows();
    std::int64_t records = 0;
    for (auto _ : state) {
        auto set = loadHostActivity(*store.value());
        const auto inside = hostActivityInBursts(windows, HostActivityIndex(set.value(), HostOffsets{}));
        records = 0;
        for (const BurstActivity& a : inside) records += a.records;
        benchmark::DoNotOptimize(records);
    }
    state.counters["records_in_windows"] = double(records);
}
BENCHMARK(BM_HostActivityInBurstsWholeTable)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

} // namespace
