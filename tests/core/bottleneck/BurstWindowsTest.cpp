// Coordinated bursty tracing: the mask and the windows recovered from start times traced under a known
// mask; no mask from uniform starts; a given mask counts what it would not have traced.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include <random>

#include "core/GeneratedTraces.h"
#include "core/OnlineBoutiqueStore.h"
#include "StoreAccess.h"
#include "TestUtil.h"
#include "tracelight/bottleneck/TemporalContext.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/HostActivityStore.h"
#include "tracelight/studies/Aggregates.h"
#include "tracelight/store/RequestTable.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/RequestPass.h"
#include "tracelight/bottleneck/BurstTimelines.h"
#include "tracelight/bottleneck/BurstWindows.h"

using namespace tracelight;

namespace {
constexpr TimeNs kMs = 1'000'000;
constexpr std::int64_t kEpochMs = 1'793'491'200'000;  // 2026-11-01

// n generated page loads (a user each), analysed in memory.
Result<InMemoryAnalysis> analysedPageLoads(std::int64_t n) {
    samples::GeneratorOptions options;
    options.requests = n;
    options.users = n;
    auto traces = test::generateTraces(samples::PageLoadGenerator(options), options.requests);
    return analyzeInMemory(std::move(traces.data), AnalysisOptions{});
}
}

TEST(BurstWindows, RecoversTheMaskAndItsWindows) {
    // Tracing on while (mask & wall_ms) == mask: bits 6..9 set, so 64 ms windows every 1,024 ms.
    const std::uint64_t mask = 0b1111000000;
    std::mt19937_64 rng(3);
    std::uniform_int_distribution<std::int64_t> when(0, 120'000);  // two minutes
    std::vector<TimeNs> starts;
    while (starts.size() < 500) {
        const std::int64_t ms = kEpochMs + when(rng);
        if ((static_cast<std::uint64_t>(ms) & mask) == mask) starts.push_back(ms * kMs + (when(rng) % 1000) * 1000);
    }
    EXPECT_EQ(inferBurstMask(starts), mask);
    const BurstWindows w = burstWindows(starts);
    EXPECT_TRUE(w.inferred);
    EXPECT_EQ(w.mask, mask);
    ASSERT_GT(w.windows.size(), 50u);  // about 117 bursts in two minutes, most of them hit
    std::size_t total = 0;
    for (std::size_t k = 0; k < w.windows.size(); ++k) {
        const BurstWindow& b = w.windows[k];
        EXPECT_EQ(b.endMs - b.startMs, 64);
        EXPECT_EQ(static_cast<std::uint64_t>(b.startMs) & mask, mask);
        if (k > 0) { EXPECT_GE(b.startMs - w.windows[k - 1].startMs, 1024); }
        for (auto i : b.requests) {
            EXPECT_GE(starts[i], b.startMs * kMs);
            EXPECT_LT(starts[i], b.endMs * kMs);
        }
        total += b.requests.size();
    }
    EXPECT_EQ(total, starts.size());
    EXPECT_EQ(w.outside, 0);
}

TEST(BurstWindows, UniformStartsAreNotBurstyAndAGivenMaskCountsTheRest) {
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<std::int64_t> when(0, 60'000);
    std::vector<TimeNs> starts;
    for (int i = 0; i < 400; ++i) starts.push_back((kEpochMs + when(rng)) * kMs);
    EXPECT_EQ(inferBurstMask(starts), 0u);
    EXPECT_TRUE(burstWindows(starts).windows.empty());
    const BurstWindows given = burstWindows(starts, 0b11);  // a quarter of the milliseconds pass
    EXPECT_FALSE(given.inferred);
    std::size_t inside = 0;
    for (const auto& b : given.windows) inside += b.requests.size();
    EXPECT_EQ(inside + static_cast<std::size_t>(given.outside), starts.size());
    EXPECT_GT(given.outside, 200);
    EXPECT_EQ(inferBurstMask(std::vector<TimeNs>(starts.begin(), starts.begin() + 5)), 0u);  // too few to tell
}

// Ordinary traffic in a few separate minutes (the Online Boutique files: one minute on one day, two on the
// next) shares its high millisecond bits within each minute; that two clusters share one is chance, not a
// mask. A bit says "mask" only when the starts fill enough of its half-periods that chance is ruled out.
TEST(BurstWindows, SeparateMinutesOfUniformTrafficAreNotBursty) {
    std::mt19937_64 rng(11);
    std::vector<TimeNs> starts;
    // Three one-minute clusters whose starts share bit 18 (a 262,144 ms half-period) by where they lie.
    const std::int64_t base = (kEpochMs >> 19) << 19;
    for (std::int64_t cluster : {base + (1 << 18), base + (5 << 18) + 100'000, base + (9 << 18) + 30'000}) {
        std::uniform_int_distribution<std::int64_t> when(0, 60'000);
        for (int i = 0; i < 400; ++i) starts.push_back((cluster + when(rng)) * kMs + when(rng) % 1000 * 1000);
    }
    std::uint64_t common = ~std::uint64_t{0};
    for (TimeNs t : starts) common &= static_cast<std::uint64_t>(t / kMs);
    ASSERT_NE(common & (std::uint64_t{1} << 18), 0u);  // the trap: bit 18 is set in every start
    EXPECT_EQ(inferBurstMask(starts), 0u);
    EXPECT_TRUE(burstWindows(starts).windows.empty());
    // A real mask under the same clusters is still found: 16 ms windows every 256 ms.
    const std::uint64_t mask = 0b11110000;
    std::vector<TimeNs> masked;
    for (TimeNs t : starts)
        if ((static_cast<std::uint64_t>(t / kMs) & mask) == mask) masked.push_back(t);
    ASSERT_GT(masked.size(), 50u);
    EXPECT_EQ(inferBurstMask(masked), mask);
}

// The Online Boutique minutes (one on one day, two on the next), traced without bursts: no mask.
TEST(BurstWindows, OnlineBoutiqueMinutesAreNotBursty) {
    if (!test::haveOnlineBoutique()) GTEST_SKIP() << "no Online Boutique data beside this checkout";
    test::ScratchDir dir;
    auto store = test::onlineBoutiqueStore(dir.file("ob.tldb"),
                                           {{"normal", {test::kObNormalMinute}}, {"fault", {"fault/05_27_trace.csv", "fault/05_28_trace.csv"}}},
                                           false);
    ASSERT_TRUE(store);
    auto table = loadRequestTable(*store);
    ASSERT_TRUE(table) << table.message();
    ASSERT_GT(table->size(), 1000u);
    EXPECT_EQ(inferBurstMask(table->startNs), 0u);
}

// The requests of a window drawn together: each timeline is the one per-request pass's — its critical
// segments add up to its latency less blind time, it starts where requestStartsNs says, its segments come in
// start order — and rows come back in the order asked (generated page loads, analysed in memory).
TEST(BurstTimelines, EachRequestsSegmentsWithItsCriticalPathMarked) {
    auto analysis = analysedPageLoads(300);
    ASSERT_TRUE(analysis) << analysis.message();
    const auto starts = requestStartsNs(analysis.value());
    ASSERT_EQ(starts.size(), 300u);
    const std::vector<std::uint32_t> rows{7, 3, 250, 999999};  // the last is not a row: skipped
    const auto timelines = requestTimelines(analysis.value(), rows);
    ASSERT_EQ(timelines.size(), 3u);
    RequestPass pass(analysis->model, analysis->data);
    for (std::size_t i = 0; i < timelines.size(); ++i) {
        const RequestTimeline& t = timelines[i];
        EXPECT_EQ(t.row, rows[i]);
        EXPECT_EQ(t.id, analysis->data.requestIds[t.row]);
        EXPECT_EQ(t.startNs, starts[t.row]);
        const auto& truth = pass.criticalPath(analysis->data.eventsOf(t.row), analysis->offsets, analysis->data.linksOf(t.row));
        TimeNs critical = 0;
        int marked = 0;
        for (std::size_t s = 0; s < t.segments.size(); ++s) {
            if (s) { EXPECT_LE(t.segments[s - 1].startNs, t.segments[s].startNs); }
            EXPECT_GE(t.segments[s].startNs, t.startNs);
            EXPECT_LE(t.segments[s].endNs, t.endNs);
            if (t.segments[s].critical) critical += t.segments[s].endNs - t.segments[s].startNs, ++marked;
        }
        EXPECT_EQ(marked, static_cast<int>(truth.criticalPath.segments.size()));
        EXPECT_EQ(critical, truth.criticalPath.latencyNs - truth.criticalPath.blindNs) << "row " << t.row;
    }
    CancelToken cancel;
    cancel.cancel();
    EXPECT_TRUE(requestTimelines(analysis.value(), rows, &cancel).empty());
}

// On the hosts' own clocks: every segment runs from its task's event to the next on their recorded
// timestamps (the events themselves are the truth), a later event behind the one before it on another
// host's clock held at that one (no segment runs backwards); the critical path marked as on the analysis
// clock.
TEST(BurstTimelines, OnLocalClocksEachSegmentRunsBetweenItsRecordedEvents) {
    auto analysis = analysedPageLoads(200);
    ASSERT_TRUE(analysis) << analysis.message();
    const std::vector<std::uint32_t> rows{0, 17, 199};
    const auto corrected = requestTimelines(analysis.value(), rows);
    const auto local = requestTimelines(analysis.value(), rows, nullptr, true);
    ASSERT_EQ(local.size(), rows.size());
    int moved = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto events = analysis->data.eventsOf(rows[i]);
        std::vector<std::tuple<TimeNs, TimeNs, std::uint32_t>> truth, drawn;
        TimeNs first = events.front().localNs, last = first, held = first;
        for (std::size_t e = 0; e < events.size(); ++e) {
            const bool sameTask = e > 0 && events[e].task == events[e - 1].task;
            const TimeNs t = sameTask ? std::max(events[e].localNs, held) : events[e].localNs;
            if (sameTask) truth.emplace_back(held, t, events[e].task);
            held = t;
            first = std::min(first, t);
            last = std::max(last, t);
        }
        int criticalLocal = 0, criticalCorrected = 0;
        for (const auto& s : local[i].segments) drawn.emplace_back(s.startNs, s.endNs, s.task), criticalLocal += s.critical;
        for (const auto& s : corrected[i].segments) criticalCorrected += s.critical;
        std::sort(truth.begin(), truth.end());
        std::sort(drawn.begin(), drawn.end());
        EXPECT_EQ(drawn, truth) << "row " << rows[i];
        EXPECT_EQ(local[i].startNs, first);
        EXPECT_EQ(local[i].endNs, last);
        EXPECT_EQ(criticalLocal, criticalCorrected);
        for (std::size_t s = 0; s < local[i].segments.size(); ++s) moved += local[i].segments[s].startNs != corrected[i].segments[s].startNs;
    }
    EXPECT_GT(moved, 0) << "the generated hosts' clocks are apart: some segment must move";
}

namespace {
// Four requests on web-1, each calling db-1, whose clock runs 50 ms ahead (local = true + offset): one in each
// window of mask 0x400 (1,024 ms windows, every other one), 100 ms into it by web-1's clock. The analysis finds
// db-1's offset from the round trips. extraActivity: more db-1 and web-1 records on their own clocks.
struct SkewedBursts {
    test::ScratchDir dir;
    std::unique_ptr<TraceStore> store;
    InMemoryAnalysis analysis;
    static constexpr std::int64_t kBaseMs = 1'700'000'000'000 / 2048 * 2048;
    static constexpr TimeNs kSkewMs = 50;

    explicit SkewedBursts(const std::vector<HostActivityInput>& activity) {
        std::string csv = "request,host,task,event,ts_ns\n";
        for (int j = 0; j < 4; ++j) {
            const std::int64_t t = kBaseMs + 1024 * (2 * j + 1) + 100;
            const std::string r = "r" + std::to_string(j);
            csv += r + ",web-1,t,SEND," + std::to_string(t * kMs) + "\n" + r + ",db-1,t,RECV," + std::to_string((t + 1 + kSkewMs) * kMs) + "\n" +
                   r + ",db-1,t,REPLY," + std::to_string((t + 2 + kSkewMs) * kMs) + "\n" + r + ",web-1,t,DONE," + std::to_string((t + 3) * kMs) + "\n";
        }
        auto opened = TraceStore::open(dir.file("b.tldb"), TraceStore::Mode::Create);
        EXPECT_TRUE(opened) << opened.message();
        store = std::move(opened.value());
        ImportOptions import;
        import.inputs = {dir.write("s.csv", csv)};
        EXPECT_TRUE(importTraces(*store, import));
        EXPECT_TRUE(addHostActivity(*store, activity));
        EXPECT_TRUE(analyzeStore(*store, AnalysisOptions{}));
        auto loaded = loadAnalysis(*store);
        EXPECT_TRUE(loaded) << loaded.message();
        analysis = std::move(loaded.value());
    }
};
} // namespace

// A db-1 compaction in the last 20 ms of the first window on the true (analysis) clock lies past the window's end on
// db-1's own clock: the Bursts tab and `bursts` (both findBursts) count it in the first window, as the analysis
// places db-1's events. `bursts` used the clocks the database held: on a database not analysed yet, none, and
// the record fell outside every window.
TEST(BurstFindings, HostActivityOnTheAnalysisClocks) {
    const TimeNs endOfFirst = (SkewedBursts::kBaseMs + 2048) * kMs, skew = SkewedBursts::kSkewMs * kMs;
    SkewedBursts s({{"db-1", endOfFirst - 30 * kMs + skew, endOfFirst - 10 * kMs + skew, "compaction", {}, {}}});
    const auto found = findBursts(s.analysis, *s.store, 0x400);
    ASSERT_TRUE(found) << found.message();
    EXPECT_TRUE(found->activityError.empty()) << found->activityError;
    ASSERT_TRUE(found->withActivity);
    ASSERT_EQ(found->windows.windows.size(), 4u);
    ASSERT_EQ(found->activity.size(), 4u);
    EXPECT_EQ(found->activity[0].records, 1);
    EXPECT_EQ(found->activity[0].overlapNs, 20 * kMs);
    for (std::size_t w = 1; w < 4; ++w) EXPECT_EQ(found->activity[w].records, 0) << w;
}

// Read window by window, the counts are those of the whole table in memory (brute force), on skewed clocks, with
// records long and short, inside windows, across their edges and between them; cancelled, it says so.
TEST(BurstFindings, WindowByWindowReadsCountWhatTheWholeTableCounts) {
    std::mt19937_64 rng(11);
    const std::int64_t from = SkewedBursts::kBaseMs * kMs, span = 9000 * kMs;
    std::uniform_int_distribution<std::int64_t> at(0, span), length(0, 1500 * kMs);
    std::vector<HostActivityInput> activity;
    const char* whats[] = {"gc", "compaction", "cron"};
    for (int i = 0; i < 400; ++i) {
        const TimeNs start = from + at(rng), end = start + (i % 10 == 0 ? length(rng) : length(rng) / 100);
        activity.push_back({i % 2 ? "db-1" : "web-1", start, end, whats[i % 3], {}, {}});
    }
    SkewedBursts s(activity);
    const auto found = findBursts(s.analysis, *s.store, 0x400);
    ASSERT_TRUE(found) << found.message();
    ASSERT_TRUE(found->activityError.empty()) << found->activityError;
    const auto all = loadHostActivity(*s.store);
    ASSERT_TRUE(all) << all.message();
    const auto whole = hostActivityInBursts(found->windows, HostActivityIndex(all.value(), hostOffsetsByLabel(s.analysis.data, s.analysis.offsets)));
    ASSERT_EQ(found->activity.size(), whole.size());
    std::int64_t counted = 0;
    for (std::size_t w = 0; w < whole.size(); ++w) {
        EXPECT_EQ(found->activity[w].records, whole[w].records) << w;
        EXPECT_EQ(found->activity[w].hosts, whole[w].hosts) << w;
        EXPECT_EQ(found->activity[w].overlapNs, whole[w].overlapNs) << w;
        ASSERT_EQ(found->activity[w].activity.size(), whole[w].activity.size()) << w;
        for (std::size_t k = 0; k < whole[w].activity.size(); ++k) {
            EXPECT_EQ(found->activity[w].activity[k].what, whole[w].activity[k].what);
            EXPECT_EQ(found->activity[w].activity[k].records, whole[w].activity[k].records);
        }
        counted += whole[w].records;
    }
    EXPECT_GT(counted, 100);
    CancelToken cancel;
    cancel.cancel();
    const auto cancelled = findBursts(s.analysis, *s.store, 0x400, &cancel);
    ASSERT_FALSE(cancelled);
    EXPECT_EQ(cancelled.message(), "cancelled");
}

// A host-activity table that cannot be read is said, not taken for none; the windows stand.
TEST(BurstFindings, AFailedReadIsAnErrorNotNone) {
    SkewedBursts s({{"db-1", SkewedBursts::kBaseMs * kMs, SkewedBursts::kBaseMs * kMs + kMs, "gc", {}, {}}});
    ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(*s.store), "DROP TABLE host_activity", nullptr, nullptr, nullptr), SQLITE_OK);
    const auto found = findBursts(s.analysis, *s.store, 0x400);
    ASSERT_TRUE(found) << found.message();
    EXPECT_EQ(found->windows.windows.size(), 4u);
    EXPECT_TRUE(found->withActivity);
    EXPECT_NE(found->activityError.find("host activity"), std::string::npos) << found->activityError;
    EXPECT_TRUE(found->activity.empty());
}
