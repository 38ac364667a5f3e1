// The analysis written to and read back from a trace database.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "core/GeneratedPeriods.h"
#include "core/GeneratedStore.h"
#include "core/GeneratedTraces.h"
#include "DamagedFiles.h"
#include "StoreAccess.h"
#include "TestUtil.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/base/Bytes.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/studies/Aggregates.h"
#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/analysis/ModelInference.h"
#include "tracelight/analysis/RequestDag.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/store/ResultCache.h"

using namespace tracelight;

namespace {

// A database holding n generated page loads, imported through events-csv.
std::unique_ptr<TraceStore> sampleStore(const test::ScratchDir& dir, std::int64_t n) { return test::generatedStore(dir, n, 4); }

} // namespace

TEST(AnalysisStore, ResultsAreCachedAndGoStaleOnNewParametersOrImports) {
    test::ScratchDir dir;
    auto store = sampleStore(dir, 800);
    AnalysisOptions options;
    EXPECT_FALSE(analysisIsCurrent(*store, options));
    auto summary = analyzeStore(*store, options);
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_EQ(summary->requests, 800);
    EXPECT_TRUE(analysisIsCurrent(*store, options));
    AnalysisOptions other;
    other.inference.supportFloor = 3;
    EXPECT_FALSE(analysisIsCurrent(*store, other));

    // A later import makes the results stale.
    ImportOptions more;
    more.inputs = {dir.write("more.csv", "request,host,task,event,ts_us\nextra,h,t,A,1\nextra,h,t,B,2\n")};
    ASSERT_TRUE(importTraces(*store, more));
    EXPECT_FALSE(analysisIsCurrent(*store, options));
}

TEST(AnalysisStore, RequestDetailAgreesWithTheCachedResult) {
    test::ScratchDir dir;
    auto store = sampleStore(dir, 800);
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    for (const char* name : {"req-1", "req-77", "req-800"}) {
        auto cached = loadRequestAnalysis(*store, name);
        ASSERT_TRUE(cached) << cached.message();
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(test::StoreAccess::db(*store), "SELECT id FROM requests WHERE name=?1", -1, &st, nullptr);
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
        const RequestId id(static_cast<std::uint32_t>(sqlite3_column_int64(st, 0)));
        sqlite3_finalize(st);
        auto detail = loadRequestDetail(*store, id);
        ASSERT_TRUE(detail) << detail.message();
        EXPECT_TRUE(detail->analysed);
        EXPECT_EQ(detail->name, name);
        ASSERT_EQ(detail->dag.segments.size(), cached->segments.size());
        EXPECT_EQ(detail->criticalPath.segments, cached->criticalPath);
        EXPECT_EQ(detail->criticalPath.latencyNs, cached->latencyNs);
        for (std::size_t s = 0; s < cached->segments.size(); ++s) {
            EXPECT_EQ(detail->slackNs[s], cached->segments[s].slackNs);
            EXPECT_EQ(detail->segmentName(s), std::string(cached->segments[s].task) + ":" + std::string(cached->segments[s].startEvent) + "->" + std::string(cached->segments[s].endEvent));
            // Local clocks differ from adjusted ones by the host's offset, never by the duration of a same-host segment.
            if (detail->segmentStartHost[s] == detail->segmentEndHost[s]) {
                EXPECT_EQ(detail->localEndNs[s] - detail->localStartNs[s], detail->dag.segments[s].durationNs());
            }
        }
        EXPECT_GE(detail->hosts.size(), 3u);
    }
}

// Each request's result and its latency and start on the requests table are stored many rows to a
// statement with the rest one by one: every request gets its own values whatever the count against the
// batches (the latencies against a recomputation in memory, the starts against the adjusted events).
TEST(AnalysisStore, EveryRequestGetsItsOwnResultWhateverTheCountAgainstTheBatches) {
    for (std::int64_t n : {1, 127, 129, 270}) {
        test::ScratchDir dir;
        auto store = sampleStore(dir, n);
        ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
        auto data = loadTraceData(*store);
        ASSERT_TRUE(data) << data.message();
        auto analysis = analyzeInMemory(std::move(data.value()), AnalysisOptions{});
        ASSERT_TRUE(analysis) << analysis.message();
        const CachedCriticalPaths paths = computeCriticalPaths(analysis.value(), 1);
        std::vector<std::string> expected;
        for (std::size_t r = 0; r < analysis->data.requestCount(); ++r)
            expected.push_back(std::to_string(analysis->data.requestIds[r].value) + "|" + std::to_string(paths.latencyNs[r]));
        auto rows = [&](const std::string& sql) { return test::StoreAccess::rows(*store, sql); };
        EXPECT_EQ(rows("SELECT request_id, latency_ns FROM request_analysis ORDER BY request_id"), expected) << n << " requests";
        EXPECT_EQ(rows("SELECT id, latency_ns FROM requests ORDER BY id"), expected) << n << " requests";
        EXPECT_EQ(rows("SELECT id, start_ns FROM requests ORDER BY id"),
                  rows("SELECT e.request_id, MIN(e.ts_ns - COALESCE(o.offset_ns, 0)) FROM events e LEFT JOIN clock_offsets o "
                       "ON o.host_id=e.host_id GROUP BY e.request_id ORDER BY e.request_id"))
            << n << " requests";
    }
}

// The pass hands requests out in chunks (4,096) to whichever thread is free, and the writer stores them in
// request order as they become ready, 8,192 to a call: more requests than either, on one thread and on
// three, give the same rows, and every request its own result.
TEST(AnalysisStore, TheResultsDoNotDependOnTheThreads) {
    test::ScratchDir dir;
    auto store = sampleStore(dir, 9000);
    std::vector<std::vector<std::string>> results;
    for (unsigned threads : {1u, 3u}) {
        AnalysisOptions options;
        options.inference.threads = threads;
        options.full = true;  // not refined from the first: computed again
        auto summary = analyzeStore(*store, options);
        ASSERT_TRUE(summary);
        EXPECT_EQ(summary->derivedRequests, 9000);
        results.push_back(test::StoreAccess::rows(*store, "SELECT request_id, latency_ns, blind_ns, hex(data) FROM request_analysis ORDER BY 1"));
        for (const auto& row : test::StoreAccess::rows(*store, "SELECT name, hex(data) FROM results ORDER BY 1")) results.back().push_back(row);
        for (const auto& row : test::StoreAccess::rows(*store, "SELECT id, start_ns, latency_ns FROM requests ORDER BY 1")) results.back().push_back(row);
    }
    EXPECT_EQ(test::StoreAccess::rows(*store, "SELECT COUNT(*) FROM request_analysis"), std::vector<std::string>{"9000"});
    EXPECT_TRUE(results[0] == results[1]);
}

// The writer waits for the file's check however long it takes, even when the pass is over first (a small
// store analyses in less time than its check): the analysis is written, not reported cancelled.
TEST(AnalysisStore, AnAnalysisFasterThanTheFilesCheckIsStillWritten) {
    test::ScratchDir dir;
    {
        auto created = sampleStore(dir, 3);
        // A table the check reads and the analysis barely does, large enough for its check to outlast the pass.
        ASSERT_TRUE(putResult(*created, "padding", 1, "", std::string(std::size_t{48} << 20, 'x')));
    }
    const std::string path = dir.file("s.tldb");  // where generatedStore writes it
    for (int round = 0; round < 3; ++round)
        for (auto check : {TraceStore::WriteCheck::InBackground, TraceStore::WriteCheck::BesideFullRead}) {
            auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite, check);
            ASSERT_TRUE(store) << store.message();
            AnalysisOptions options;
            options.inference.supportFloor = 1 + round;  // a new analysis each time
            auto analysed = analyzeStore(*store.value(), options);
            ASSERT_TRUE(analysed) << analysed.message();
            EXPECT_TRUE(analysisIsCurrent(*store.value(), options));
        }
}

TEST(AnalysisStore, ModelGraphCarriesReducedRelationsAndStatistics) {
    test::ScratchDir dir;
    auto store = sampleStore(dir, 800);
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    auto graph = loadModelGraph(*store);
    ASSERT_TRUE(graph) << graph.message();
    EXPECT_EQ(graph->requests, 800);
    EXPECT_EQ(graph->types.size(), 40u);
    std::int64_t occurrences = 0, critical = 0;
    for (const auto& t : graph->types) {
        occurrences += t.occurrences;
        critical += t.criticalCount;
        EXPECT_LE(t.slowestCriticalRequests.size(), 25u);
        if (t.criticalCount > 0) {
            EXPECT_FALSE(t.slowestCriticalRequests.empty()) << t.name();
        }
    }
    auto info = store->info();
    EXPECT_EQ(occurrences, info->segments);
    EXPECT_GT(critical, 800 * 5);
    EXPECT_FALSE(graph->happensBefore.empty());
    EXPECT_GE(graph->mutualExclusion.size(), 10u);  // the 10 true pairs, plus early ones not yet refuted at 800
    EXPECT_GE(graph->pipelines.size(), 3u);
    EXPECT_FALSE(graph->convergence.empty());
}

// The segment statistics are stored in binary beside the model: read back, each type's slowest requests are
// requests of the store, slowest first; shares are shares; cut bytes are refused, not read as zeros.
TEST(AnalysisStore, SegmentStatisticsReadBackAndRefuseDamage) {
    test::ScratchDir dir;
    auto store = sampleStore(dir, 300);
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    auto graph = loadModelGraph(*store);
    ASSERT_TRUE(graph) << graph.message();
    sqlite3* db = test::StoreAccess::db(*store);
    auto latencyOf = [&](const std::string& name) {
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(db, "SELECT latency_ns FROM requests WHERE name=?1", -1, &st, nullptr);
        sqlite3_bind_text(st, 1, name.c_str(), -1, SQLITE_TRANSIENT);
        const std::int64_t latency = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
        sqlite3_finalize(st);
        return latency;
    };
    std::size_t named = 0;
    for (const auto& t : graph->types) {
        EXPECT_GE(t.networkShare, 0.0);
        EXPECT_LE(t.networkShare, 1.0);
        if (t.occurrences > 0) {
            EXPECT_GT(t.meanDurationNs, 0.0) << t.name();
        }
        std::int64_t previous = std::numeric_limits<std::int64_t>::max();
        for (const auto& name : t.slowestCriticalRequests) {
            const std::int64_t latency = latencyOf(name);
            ASSERT_GE(latency, 0) << name << " is not a request of the store";
            EXPECT_LE(latency, previous) << t.name() << ": not slowest first";
            previous = latency;
            ++named;
        }
    }
    EXPECT_GT(named, 0u);
    ASSERT_EQ(sqlite3_exec(db, "UPDATE results SET data=substr(data, 1, length(data) - 3) WHERE name='segment_stats'", nullptr, nullptr, nullptr),
              SQLITE_OK);
    auto damaged = loadModelGraph(*store);
    ASSERT_FALSE(damaged);
    EXPECT_NE(damaged.message().find("damaged"), std::string::npos) << damaged.message();

    // A count of slowest requests beyond what is kept, each naming one long name: refused, not copied
    // 100,000 times (100 MB from a blob of 110 KB).
    std::string blob;
    putVarint(blob, 1);
    putVarint(blob, 1000);
    blob += std::string(1000, 'r');
    putVarint(blob, 1);
    putVarint(blob, 5);
    putValue(blob, 1.0);
    putValue(blob, 0.0);
    putVarint(blob, 1);
    putValue(blob, 1.0);
    putVarint(blob, 100000);
    blob += std::string(100000, '\0');
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "UPDATE results SET data=?1 WHERE name='segment_stats'", -1, &st, nullptr), SQLITE_OK);
    sqlite3_bind_blob(st, 1, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
    ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    auto overlong = loadModelGraph(*store);
    ASSERT_FALSE(overlong);
    EXPECT_NE(overlong.message().find("damaged"), std::string::npos) << overlong.message();
}

TEST(AnalysisStore, ModelSerializationRoundTripsAndRefusesDamage) {
    samples::GeneratorOptions options;
    options.requests = 500;
    auto traces = test::generateTraces(samples::PageLoadGenerator(options), 500);
    auto analysis = analyzeInMemory(traces.data, AnalysisOptions{});
    ASSERT_TRUE(analysis);
    const CausalModel& model = analysis->model;
    const std::string bytes = model.serialize();
    auto back = CausalModel::deserialize(bytes);
    ASSERT_TRUE(back) << back.message();
    EXPECT_EQ(back->serialize(), bytes);
    EXPECT_EQ(back->reducedHappensBefore(), model.reducedHappensBefore());
    EXPECT_EQ(back->pipelines().size(), model.pipelines().size());
    EXPECT_FALSE(CausalModel::deserialize(bytes.substr(0, bytes.size() / 2)));
    EXPECT_FALSE(CausalModel::deserialize("TLM1garbage"));
    EXPECT_FALSE(CausalModel::deserialize(""));
}

TEST(AnalysisStore, UnanalysedRequestStillHasADetailOnLocalClocks) {
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("u.tldb"), TraceStore::Mode::Create);
    ImportOptions import;
    import.inputs = {dir.write("u.csv", "request,host,task,event,ts_us\nr,a,t,X,0\nr,a,t,Y,10\nr,b,t,Z,5000\n")};
    ASSERT_TRUE(importTraces(*store.value(), import));
    auto detail = loadRequestDetail(*store.value(), RequestId(1));
    ASSERT_TRUE(detail) << detail.message();
    EXPECT_FALSE(detail->analysed);
    EXPECT_EQ(detail->dag.segments.size(), 2u);
    EXPECT_EQ(detail->criticalPath.segments.size(), 2u);  // task order alone
    EXPECT_FALSE(loadModelGraph(*store.value()));
}

TEST(AnalysisStore, CategoryRulesAreStoredAndRegroupTheAggregates) {
    test::ScratchDir dir;
    auto store = sampleStore(dir, 500);
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    EXPECT_EQ(loadCategoryRules(*store).toJson(), CategoryRules::defaults().toJson());
    auto rules = CategoryRules::fromJson(R"json([{"category":"network","field":"network"},{"category":"server","field":"host","pattern":"^(web|cache)"}])json");
    ASSERT_TRUE(rules);
    ASSERT_TRUE(saveCategoryRules(*store, rules.value()));
    EXPECT_EQ(loadCategoryRules(*store).toJson(), rules->toJson());
    auto analysis = loadAnalysis(*store);
    ASSERT_TRUE(analysis) << analysis.message();
    auto aggregates = computeAggregates(analysis.value(), loadCategoryRules(*store));
    ASSERT_TRUE(aggregates) << aggregates.message();
    const RequestAggregates& a = aggregates.value();
    EXPECT_GE(a.categoryIndex("server"), 0);
    EXPECT_EQ(a.categoryIndex("web"), -1);
    EXPECT_GE(a.categoryIndex("client"), 0);
    // The stored model's numbering survives loading: every request's critical path is as analysed.
    for (const char* name : {"req-1", "req-250"}) {
        auto cached = loadRequestAnalysis(*store, name);
        ASSERT_TRUE(cached);
        const auto row = *requestByName(*store, name);
        std::size_t r = 0;
        while (a.ids[r] != row) ++r;
        EXPECT_EQ(a.latencyNs[r], cached->latencyNs);
        EXPECT_EQ(a.pathBegin[r + 1] - a.pathBegin[r], cached->criticalPath.size());
    }
}

// The aggregates from analyze's cached results equal the per-request pass's, field by field; a request
// whose result is missing or damaged takes the pass, and so does every request without a store.
TEST(AnalysisStore, AggregatesFromCachedResultsEqualThePass) {
    test::ScratchDir dir;
    auto store = sampleStore(dir, 400);
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    auto analysis = loadAnalysis(*store);
    ASSERT_TRUE(analysis) << analysis.message();
    const CategoryRules rules = loadCategoryRules(*store);
    auto expectSame = [](const RequestAggregates& x, const RequestAggregates& y) {
        EXPECT_EQ(x.categories, y.categories);
        EXPECT_EQ(x.ids, y.ids);
        EXPECT_EQ(x.latencyNs, y.latencyNs);
        EXPECT_EQ(x.blindNs, y.blindNs);
        EXPECT_EQ(x.summedNs, y.summedNs);
        EXPECT_EQ(x.criticalNs, y.criticalNs);
        EXPECT_EQ(x.slackNs, y.slackNs);
        EXPECT_EQ(x.spanNs, y.spanNs);
        EXPECT_EQ(x.pathBegin, y.pathBegin);
        EXPECT_EQ(x.pathType, y.pathType);
        EXPECT_EQ(x.pathNs, y.pathNs);
    };
    auto passed = computeAggregates(analysis.value(), rules, 2);
    ASSERT_TRUE(passed) << passed.message();
    EXPECT_EQ(passed->rowsFromCache, 0u);
    auto cached = computeAggregates(analysis.value(), rules, 2, nullptr, nullptr, store.get());
    ASSERT_TRUE(cached) << cached.message();
    EXPECT_EQ(cached->rowsFromCache, passed->requests());
    expectSame(cached.value(), passed.value());
    // One result gone, one damaged: those two rows take the pass, the others still come from the cache.
    sqlite3* db = test::StoreAccess::db(*store);
    ASSERT_EQ(sqlite3_exec(db, "DELETE FROM request_analysis WHERE request_id = 7; "
                               "UPDATE request_analysis SET data = x'0102' WHERE request_id = 200",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    auto mixed = computeAggregates(analysis.value(), rules, 3, nullptr, nullptr, store.get());
    ASSERT_TRUE(mixed) << mixed.message();
    EXPECT_EQ(mixed->rowsFromCache, passed->requests() - 2);
    expectSame(mixed.value(), passed.value());
}

TEST(AnalysisStore, BlindTimeOfNanosecondTimestampsIsExact) {
    // One request: a chain of short tasks on one host, each starting after a gap that no segment covers.
    // Timestamps carry three decimals (nanoseconds) at today's epoch; the blind time is the sum of the
    // gaps, 1.002 + 1.003 + ... + 1.040 us = 39.819 us, and must come out to the nanosecond. With a support
    // floor of 1, the one request confirms that each task happens before the next.
    test::ScratchDir dir;
    std::string csv = "request,host,task,event,ts_us\n";
    std::int64_t ns = 1700000000123456789;  // 1700000000123456.789 us
    auto us = [](std::int64_t t) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(t / 1000), static_cast<long long>(t % 1000));
        return std::string(buf);
    };
    std::int64_t blind = 0, covered = 0;
    const std::int64_t first = ns;
    for (int k = 1; k <= 40; ++k) {
        const std::int64_t gap = 1000 + k, work = 2000 + 3 * k;
        if (k > 1) {
            ns += gap;
            blind += gap;
        }
        csv += "r,h,t" + std::to_string(k) + ",A," + us(ns) + "\n";
        ns += work;
        covered += work;
        csv += "r,h,t" + std::to_string(k) + ",B," + us(ns) + "\n";
    }
    auto store = TraceStore::open(dir.file("exact.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store);
    ImportOptions import;
    import.inputs = {dir.write("exact.csv", csv)};
    ASSERT_TRUE(importTraces(*store.value(), import));
    AnalysisOptions options;
    options.inference.supportFloor = 1;
    ASSERT_TRUE(analyzeStore(*store.value(), options));
    auto a = loadRequestAnalysis(*store.value(), "r");
    ASSERT_TRUE(a) << a.message();
    EXPECT_EQ(a->latencyNs, ns - first);
    EXPECT_EQ(a->blindNs, blind);
    EXPECT_EQ(blind + covered, ns - first);
}

// A cached result cut short anywhere, or with a byte flipped, is reported as damaged or stale, never read
// past its end (the blob's counts are checked against the bytes left).
TEST(AnalysisStore, DamagedCachedResultsAreRefusedCleanly) {
    test::ScratchDir dir;
    std::string csv = "request,host,task,event,ts_us\n";
    for (int k = 0; k < 12; ++k) csv += "r,h" + std::to_string(k % 3) + ",t" + std::to_string(k % 4) + ",E" + std::to_string(k) + "," + std::to_string(1000 + 17 * k) + "\n";
    auto store = TraceStore::open(dir.file("damaged.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store);
    ImportOptions import;
    import.inputs = {dir.write("damaged.csv", csv)};
    ASSERT_TRUE(importTraces(*store.value(), import));
    ASSERT_TRUE(analyzeStore(*store.value(), AnalysisOptions{}));
    auto whole = loadRequestAnalysis(*store.value(), "r");
    ASSERT_TRUE(whole) << whole.message();
    sqlite3* db = test::StoreAccess::db(*store.value());
    std::string blob;
    {
        sqlite3_stmt* q = nullptr;
        sqlite3_prepare_v2(db, "SELECT data FROM request_analysis", -1, &q, nullptr);
        ASSERT_EQ(sqlite3_step(q), SQLITE_ROW);
        blob.assign(static_cast<const char*>(sqlite3_column_blob(q, 0)), static_cast<std::size_t>(sqlite3_column_bytes(q, 0)));
        sqlite3_finalize(q);
    }
    ASSERT_GT(blob.size(), 4u);
    auto put = [&](const std::string& bytes) {
        sqlite3_stmt* q = nullptr;
        sqlite3_prepare_v2(db, "UPDATE request_analysis SET data=?1", -1, &q, nullptr);
        sqlite3_bind_blob(q, 1, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
        ASSERT_EQ(sqlite3_step(q), SQLITE_DONE);
        sqlite3_finalize(q);
    };
    for (std::size_t cut = 0; cut < blob.size(); ++cut) {
        put(blob.substr(0, cut));
        auto a = loadRequestAnalysis(*store.value(), "r");
        ASSERT_FALSE(a) << "a result cut to " << cut << " bytes was accepted";
        EXPECT_TRUE(a.message().find("damaged analysis result") != std::string::npos ||
                    a.message().find("stale analysis") != std::string::npos) << a.message();
    }
    std::string longer = blob + '\x01';  // trailing bytes: not this version's blob
    put(longer);
    EXPECT_FALSE(loadRequestAnalysis(*store.value(), "r"));
    put(blob);
    auto again = loadRequestAnalysis(*store.value(), "r");
    ASSERT_TRUE(again) << again.message();
    EXPECT_EQ(again->criticalPath, whole->criticalPath);
}

TEST(AnalysisStore, AnImportDuringAnalysisLeavesTheResultsStale) {
    // The analysis reads its data, an import commits meanwhile (another connection), the analysis writes:
    // its results describe the data it read, so they are not current.
    test::ScratchDir dir;
    std::string csv = "request,host,task,event,ts_us\n";
    for (int r = 0; r < 7000; ++r)  // enough events for the reader to report progress while it reads
        for (int e = 0; e < 10; ++e)
            csv += "r" + std::to_string(r) + ",h,t,E" + std::to_string(e) + "," + std::to_string(1000 * r + e) + "\n";
    const std::string path = dir.file("race.tldb");
    auto store = TraceStore::open(path, TraceStore::Mode::Create);
    ASSERT_TRUE(store);
    ImportOptions import;
    import.inputs = {dir.write("first.csv", csv)};
    ASSERT_TRUE(importTraces(*store.value(), import));

    bool importedDuring = false;
    ProgressSink progress = [&](double, std::string_view stage) {
        if (importedDuring || stage.rfind("writing", 0) == 0 || stage == "analysis done") return;
        auto other = TraceStore::open(path, TraceStore::Mode::ReadWrite);
        ASSERT_TRUE(other) << other.message();
        ImportOptions more;
        more.inputs = {dir.write("more.csv", "request,host,task,event,ts_us\nlate,h,t,A,1\nlate,h,t,B,2\n")};
        auto imported = importTraces(*other.value(), more);
        ASSERT_TRUE(imported) << imported.message();
        importedDuring = true;
    };
    AnalysisOptions options;
    options.inference.threads = 1;
    auto summary = analyzeStore(*store.value(), options, &progress);
    ASSERT_TRUE(summary) << summary.message();
    ASSERT_TRUE(importedDuring);
    EXPECT_EQ(summary->requests, 7000);
    EXPECT_FALSE(analysisIsCurrent(*store.value(), options)) << "results of 7000 requests stamped current for 7001";
    ASSERT_TRUE(analyzeStore(*store.value(), options));
    EXPECT_TRUE(analysisIsCurrent(*store.value(), options));
}

// --- Span data: segment types are operations, and the model grows with relations, not types squared (issue 11).

namespace {

// One Jaeger trace: a root span whose children are called one after another; with distinct = false every
// child is the same operation (10,000 calls of one operation), otherwise each its own.
std::string rootWithChildren(int children, bool distinct) {
    std::string spans = R"({"traceID":"t1","spanID":"root","operationName":"fanout","references":[],"startTime":1700000000000000,"duration":)" +
                        std::to_string(children * 10 + 10) + R"(,"processID":"p1"})";
    for (int k = 0; k < children; ++k) {
        spans += R"(,{"traceID":"t1","spanID":"c)" + std::to_string(k) + R"(","operationName":"get)" +
                 (distinct ? std::to_string(k) : std::string()) +
                 R"(","references":[{"refType":"CHILD_OF","traceID":"t1","spanID":"root"}],"startTime":)" +
                 std::to_string(1700000000000000LL + 5 + 10LL * k) + R"(,"duration":5,"processID":"p2"})";
    }
    return R"({"data":[{"traceID":"t1","spans":[)" + spans +
           R"(],"processes":{"p1":{"serviceName":"frontend","tags":[]},"p2":{"serviceName":"cache","tags":[]}}}]})";
}

// Several such traces, so relations between the operations are confirmed (support floor 10).
std::string tracesWithChildren(int traces, int children) {
    std::string all;
    for (int t = 0; t < traces; ++t) {
        std::string one = rootWithChildren(children, false);
        one = one.substr(one.find('[', 1) + 1);      // the trace object
        one = one.substr(0, one.rfind(']'));
        const std::string id = "\"t" + std::to_string(t + 1) + "\"";
        for (std::size_t at = one.find("\"t1\""); at != std::string::npos; at = one.find("\"t1\"", at + id.size())) one.replace(at, 4, id);
        all += (t ? "," : "") + one;
    }
    return R"({"data":[)" + all + "]}";
}

std::unique_ptr<TraceStore> importedSpans(const test::ScratchDir& dir, const std::string& json) {
    auto store = TraceStore::open(dir.file("spans.tldb"), TraceStore::Mode::Create);
    EXPECT_TRUE(store) << store.message();
    ImportOptions import;
    import.inputs = {dir.write("trace.json", json)};
    auto imported = importTraces(*store.value(), import);
    EXPECT_TRUE(imported) << imported.message();
    return std::move(store.value());
}

} // namespace

TEST(SpanModel, RepeatedCallsOfOneOperationAreOneSegmentType) {
    test::ScratchDir dir;
    auto store = importedSpans(dir, rootWithChildren(10000, false));
    auto summary = analyzeStore(*store, AnalysisOptions{});
    ASSERT_TRUE(summary) << summary.message();
    // The root's own time between calls, its waits, the child's work: a handful of types, not 3 per call.
    EXPECT_LE(summary->segmentTypes, 8);
    auto stored = loadStoredModel(*store);
    ASSERT_TRUE(stored);
    for (const auto& t : stored->types)
        for (const std::string* s : {&t.task, &t.startEvent, &t.endEvent})
            EXPECT_EQ(s->find('#'), std::string::npos) << *s << " still names an occurrence";
    EXPECT_LT(stored->model.serialize().size(), 1u << 20);
    // The per-request pass still sees every call: one critical path through all 10,000 children.
    auto cached = loadRequestAnalysis(*store, "t1");
    ASSERT_TRUE(cached) << cached.message();
    EXPECT_EQ(cached->segments.size(), 3u * 10000 + 1);
}

TEST(SpanModel, TenThousandDistinctOperationsKeepNoUnconfirmedPairs) {
    test::ScratchDir dir;
    auto store = importedSpans(dir, rootWithChildren(10000, true));
    auto summary = analyzeStore(*store, AnalysisOptions{});
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_GT(summary->segmentTypes, 20000);  // every operation is its own type
    auto stored = loadStoredModel(*store);
    ASSERT_TRUE(stored);
    // Beyond the dense budget, types below the support floor are not tracked: no pairs, a small model.
    EXPECT_EQ(stored->model.pairsSeenTogether(), 0u);
    EXPECT_LT(stored->model.serialize().size(), 1u << 20);
    EXPECT_EQ(stored->model.occurrences(SegmentTypeId(0)), 1);
}

TEST(SpanModel, OneTraceOfManyTypesKeepsNoUnconfirmedRelations) {
    // 600 distinct operations: some 1,800 types, all in one request. Beyond the dense budget (256 types) a
    // type below the support floor is not tracked, so the model's JSON does not list ~800,000 unconfirmed
    // relations (support 1) between them.
    test::ScratchDir dir;
    auto store = importedSpans(dir, rootWithChildren(600, true));
    auto summary = analyzeStore(*store, AnalysisOptions{});
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_GT(summary->segmentTypes, static_cast<std::int64_t>(kDenseTypeBudget));
    auto json = cachedModelJson(*store, AnalysisOptions{});
    ASSERT_TRUE(json) << json.message();
    EXPECT_LT(json->size(), 100000u);
    auto stored = loadStoredModel(*store);
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->model.trackedTypeCount(), 0u);
}

TEST(SpanModel, ConfirmedRelationsOverManyInstancesKeepTheRequestGraphLinear) {
    // 12 traces of 2,000 calls each: the operations' relations are confirmed, and every request has 2,000
    // instances of each; its graph stays linear and its critical path covers the request.
    test::ScratchDir dir;
    auto store = importedSpans(dir, tracesWithChildren(12, 2000));
    auto summary = analyzeStore(*store, AnalysisOptions{});
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_EQ(summary->requests, 12);
    EXPECT_LE(summary->segmentTypes, 8);
    EXPECT_GT(summary->happensBefore, 0);
    auto loaded = loadAnalysis(*store);
    ASSERT_TRUE(loaded) << loaded.message();
    RequestDagBuilder builder(loaded->model, loaded->data);
    RequestDag dag;
    builder.build(loaded->data.eventsOf(0), loaded->offsets, dag, loaded->data.linksOf(0));
    EXPECT_EQ(dag.segments.size(), 3u * 2000 + 1);
    EXPECT_LE(dag.edges.size(), 3 * dag.segments.size());
    auto cached = loadRequestAnalysis(*store, "t1");
    ASSERT_TRUE(cached) << cached.message();
    EXPECT_EQ(cached->blindNs, 0);
    TimeNs onPath = 0;
    for (auto v : cached->criticalPath) onPath += cached->segments[v].durationNs;
    EXPECT_EQ(onPath, cached->latencyNs);
}

TEST(SpanModel, RelationsHoldOverEveryInstanceOfAType) {
    // Span labels: every call of "svc:a" is one type. A -> B only when every A ends before every B starts;
    // A | B (interleaved, never overlapping) survives although A's instances bracket B's.
    TraceDataBuilder b;
    enum : std::uint32_t { TaskA = 1, TaskA2, TaskA3, TaskB, TaskB2, TaskC, Start, End, Host };
    b.setLabel(TaskA, "svc:a");
    b.setLabel(TaskA2, "svc:a#2");
    b.setLabel(TaskA3, "svc:a#3");
    b.setLabel(TaskB, "svc:b");
    b.setLabel(TaskB2, "svc:b#2");
    b.setLabel(TaskC, "svc:c");
    b.setLabel(Start, "start");
    b.setLabel(End, "end");
    b.setLabel(Host, "h");
    for (std::uint32_t r = 0; r < 12; ++r) {
        b.beginRequest(RequestId(r + 1), true);
        const TimeNs base = 1000 * r;
        // a [0,10], b [10,20], a#2 [20,30], b#2 [30,40], a#3 [40,50]: A and B alternate; C [60,70] after all.
        for (auto [task, from] : {std::pair{TaskA, 0}, {TaskB, 10}, {TaskA2, 20}, {TaskB2, 30}, {TaskA3, 40}, {TaskC, 60}}) {
            b.addEvent(task, Start, Host, base + from);
            b.addEvent(task, End, Host, base + from + 10);
        }
    }
    TraceData data = b.finish();
    ASSERT_EQ(data.segmentTypes.size(), 3u);  // svc:a, svc:b, svc:c
    const ClockOffsets offsets = ClockOffsets::none(data.hostLabels.size());
    auto model = inferModel(data, offsets, InferenceOptions{});
    ASSERT_TRUE(model) << model.message();
    auto typeOf = [&](const std::string& task) {
        for (std::uint32_t t = 0; t < data.segmentTypes.size(); ++t)
            if (data.label(data.segmentTypes[t].task.value) == task) return SegmentTypeId(t);
        return SegmentTypeId();
    };
    const SegmentTypeId a = typeOf("svc:a"), bb = typeOf("svc:b"), c = typeOf("svc:c");
    EXPECT_TRUE(model->repeated(a));
    EXPECT_FALSE(model->repeated(c));
    EXPECT_EQ(model->occurrences(a), 12);
    EXPECT_FALSE(model->happensBefore(a, bb));  // b#1 starts before a#2 ends
    EXPECT_FALSE(model->happensBefore(bb, a));
    EXPECT_FALSE(model->happensBefore(a, a));
    EXPECT_TRUE(model->happensBefore(a, c));
    EXPECT_TRUE(model->happensBefore(bb, c));
    EXPECT_TRUE(model->mutuallyExclusive(a, bb));
    // The per-request graph: C waits for the last A and the last B, in edges linear in the instances.
    RequestDagBuilder dagBuilder(model.value(), data);
    RequestDag dag;
    dagBuilder.build(data.eventsOf(0), offsets, dag);
    ASSERT_EQ(dag.segments.size(), 6u);
    std::uint32_t cIndex = 0;
    for (std::uint32_t v = 0; v < dag.segments.size(); ++v)
        if (dag.segments[v].type == c) cIndex = v;
    bool fromLastA = false;
    for (std::uint32_t k = dag.firstEdgeTo[cIndex]; k < dag.firstEdgeTo[cIndex + 1]; ++k)
        fromLastA |= dag.segments[dag.edges[k].from].startNs == 40;
    EXPECT_TRUE(fromLastA);
}

// What analyze writes is one transaction: a write that fails (a trigger stands in for a full disk) or a
// cancel, at any stage, leaves every result of the analysis before it as it was, and the next analysis
// writes as usual.
namespace {

// Every row an analysis writes, for comparing a store's results before and after.
std::vector<std::string> storedResults(const TraceStore& store) {
    std::vector<std::string> all;
    for (const char* sql : {"SELECT request_id, latency_ns, blind_ns, hex(data) FROM request_analysis ORDER BY 1",
                            "SELECT id, start_ns, latency_ns FROM requests ORDER BY 1", "SELECT * FROM clock_offsets ORDER BY 1",
                            "SELECT * FROM clock_pairs ORDER BY 1, 2", "SELECT name, params, hex(data) FROM results ORDER BY 1"}) {
        auto rows = test::StoreAccess::rows(store, sql);
        all.insert(all.end(), rows.begin(), rows.end());
    }
    return all;
}

} // namespace

TEST(AnalysisStore, AnAnalysisThatFailsOrIsCancelledKeepsTheResultsBefore) {
    test::ScratchDir dir;
    auto store = sampleStore(dir, 1200);
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    auto stored = [&] { return storedResults(*store); };
    const auto before = stored();
    ASSERT_GT(before.size(), 2400u);
    AnalysisOptions other;
    other.inference.supportFloor = 3;
    auto execute = [&](const std::string& sql) {
        ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(*store), sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
    };
    ASSERT_GT(test::StoreAccess::rows(*store, "SELECT * FROM clock_pairs").size(), 0u);
    for (const char* trigger :
         {// The clocks are written while the model is inferred.
          "CREATE TRIGGER full AFTER INSERT ON clock_pairs BEGIN SELECT RAISE(ABORT, 'simulated full disk'); END",
          "CREATE TRIGGER full AFTER INSERT ON request_analysis WHEN NEW.request_id = 1100 BEGIN SELECT RAISE(ABORT, 'simulated full disk'); END",
          "CREATE TRIGGER full AFTER UPDATE ON requests WHEN NEW.id = 1100 BEGIN SELECT RAISE(ABORT, 'simulated full disk'); END",
          "CREATE TRIGGER full AFTER INSERT ON results BEGIN SELECT RAISE(ABORT, 'simulated full disk'); END"}) {
        execute(trigger);
        auto failed = analyzeStore(*store, other);
        ASSERT_FALSE(failed) << trigger;
        EXPECT_NE(failed.message().find("simulated full disk"), std::string::npos) << failed.message();
        execute("DROP TRIGGER full");
        EXPECT_EQ(stored(), before) << trigger;
        EXPECT_TRUE(analysisIsCurrent(*store, AnalysisOptions{}));
    }
    for (const char* stage : {"model inferred", "writing results"}) {
        CancelToken cancel;
        bool reached = false;
        const ProgressSink progress = [&](double, std::string_view s) {
            if (s != stage) return;
            reached = true;
            cancel.cancel();
        };
        auto cancelled = analyzeStore(*store, other, &progress, &cancel);
        ASSERT_FALSE(cancelled) << stage;
        EXPECT_EQ(cancelled.message(), "cancelled");
        EXPECT_EQ(stored(), before) << stage;
        EXPECT_TRUE(reached) << stage;
    }
    ASSERT_TRUE(analyzeStore(*store, other));
    EXPECT_TRUE(analysisIsCurrent(*store, other));
    EXPECT_FALSE(analysisIsCurrent(*store, AnalysisOptions{}));
}

// The check beside analyze's read covers every table the analysis reads or writes (but the events, which
// that read checks): an authorizer on the connection records each table an analysis of events and one of
// spans touch.
TEST(AnalysisStore, TheCheckBesideTheReadCoversEveryTableTheAnalysisTouches) {
    std::set<std::string> touched;
    auto record = [](void* out, int action, const char* a, const char*, const char*, const char*) {
        if ((action == SQLITE_READ || action == SQLITE_INSERT || action == SQLITE_UPDATE || action == SQLITE_DELETE) && a &&
            std::string_view(a).rfind("sqlite_", 0) != 0)
            static_cast<std::set<std::string>*>(out)->insert(a);
        return SQLITE_OK;
    };
    test::ScratchDir dir;
    auto store = sampleStore(dir, 300);
    test::addRealJaegerTraces(*store);  // span requests too: their links and spans
    sqlite3_set_authorizer(test::StoreAccess::db(*store), record, &touched);
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    sqlite3_set_authorizer(test::StoreAccess::db(*store), nullptr, nullptr);
    const auto& checked = TraceStore::analysisTables();
    for (const std::string& table : touched)
        EXPECT_NE(std::find(checked.begin(), checked.end(), table), checked.end()) << table << " is touched but not checked";
    EXPECT_TRUE(touched.count("events") && touched.count("request_analysis") && touched.count("causal_links"));
}

// Only a read of every event counts as the events' check: not a part of them, not a cancelled read, not a
// scan that some rows lie past (a request_id that is text, from a file written by something else).
TEST(AnalysisStore, OnlyAReadOfEveryEventStandsInForTheirCheck) {
    test::ScratchDir dir;
    auto store = sampleStore(dir, 2000);  // more events than a read takes between looks at its cancel token
    const auto cuts = store->requestIdCuts(2);
    ASSERT_TRUE(store->beginRead());
    ASSERT_TRUE(loadTraceData(*store, RequestIdRange{cuts[1], cuts[2]}));
    EXPECT_FALSE(store->eventsReadInFull()) << "a part of the events";
    CancelToken cancel;
    cancel.cancel();
    ASSERT_FALSE(loadTraceData(*store, RequestIdRange{}, nullptr, &cancel));
    EXPECT_FALSE(store->eventsReadInFull()) << "a cancelled read";
    store->endRead();
    ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(*store),
                           "INSERT INTO events(request_id, task_id, ord, event_id, host_id, ts_ns) VALUES('stray', 1, 1, 1, 1, 0)",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    ASSERT_TRUE(store->beginRead());
    ASSERT_TRUE(loadTraceData(*store, RequestIdRange{}));
    EXPECT_FALSE(store->eventsReadInFull()) << "a read that never reached the stray row";
    store->endRead();
    ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(*store), "DELETE FROM events WHERE request_id = 'stray'", nullptr, nullptr, nullptr),
              SQLITE_OK);
    ASSERT_TRUE(store->beginRead());
    ASSERT_TRUE(loadTraceData(*store, RequestIdRange{}, nullptr, nullptr, ReadRuns{2, 1}));
    EXPECT_TRUE(store->eventsReadInFull()) << "every event, in two runs";
    store->endRead();
}

// A damaged cell pointer (the page's header intact) in the second of two read runs, on the other
// connection: SQLite's cell checks as the page loads fail the run, and no full read is noted.
TEST(AnalysisStore, ADamagedCellInAnotherRunFailsTheRead) {
    test::ScratchDir dir;
    std::string path;
    {
        auto store = sampleStore(dir, 1200);
        path = store->path();
    }
    const std::string leaves = "FROM dbstat WHERE name='events' AND pagetype='leaf'";
    const std::int64_t leafCount = test::fileQueryInt(path, "SELECT COUNT(*) " + leaves);
    ASSERT_GT(leafCount, 10);
    const std::int64_t page =
        test::fileQueryInt(path, "SELECT pageno " + leaves + " ORDER BY pageno LIMIT 1 OFFSET " + std::to_string(leafCount * 3 / 4));
    test::corruptCellPointer(path, page);
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite, TraceStore::WriteCheck::BesideFullRead);
    ASSERT_TRUE(store) << store.message();
    ASSERT_TRUE(store.value()->beginRead());
    auto data = loadTraceData(*store.value(), RequestIdRange{}, nullptr, nullptr, ReadRuns{2, 1});
    store.value()->endRead();
    ASSERT_FALSE(data) << "a read past a damaged cell pointer";
    EXPECT_NE(data.message().find("malformed"), std::string::npos) << data.message();
    EXPECT_FALSE(store.value()->eventsReadInFull());
    EXPECT_FALSE(store.value()->begin()) << "a write after the failed read";
}

// analyze leaves the events table out of its background check because it reads every event itself: a
// damaged events page deep in the table fails that read, and nothing is written.
TEST(AnalysisStore, ADamagedEventsPageFailsTheAnalysisAndKeepsTheResultsBefore) {
    test::ScratchDir dir;
    std::string path;
    std::vector<std::string> before;
    {
        auto store = sampleStore(dir, 1200);
        ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
        path = store->path();
        before = storedResults(*store);
    }
    const std::string leaves = "FROM dbstat WHERE name='events' AND pagetype='leaf'";
    const std::int64_t leafCount = test::fileQueryInt(path, "SELECT COUNT(*) " + leaves);
    ASSERT_GT(leafCount, 10) << "dbstat lists the events table's pages";
    const std::int64_t page =
        test::fileQueryInt(path, "SELECT pageno " + leaves + " ORDER BY pageno LIMIT 1 OFFSET " + std::to_string(leafCount / 2));
    test::corruptPage(path, page);
    {
        auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite, TraceStore::WriteCheck::BesideFullRead);
        ASSERT_TRUE(store) << store.message();
        AnalysisOptions other;
        other.inference.supportFloor = 3;
        auto analysed = analyzeStore(*store.value(), other);
        ASSERT_FALSE(analysed) << "an analysis read past a damaged events page";
        EXPECT_NE(analysed.message().find(path), std::string::npos) << analysed.message();
        EXPECT_NE(analysed.message().find("malformed"), std::string::npos) << analysed.message();
    }
    auto reader = TraceStore::open(path, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(reader) << reader.message();
    EXPECT_EQ(storedResults(*reader.value()), before);
}

// A model node's counts are requests: a segment type that occurs many times in one request (Online Boutique
// calls GetProduct several times per page) counts that request once, so neither count exceeds the requests.
TEST(AnalysisStore, ModelNodeCountsAreRequestsAndNeverExceedThem) {
    const std::string csv = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/nezha-onlineboutique/normal/2022-08-23_17_00_trace.csv";
    if (!std::ifstream(csv)) GTEST_SKIP() << "no " << csv;
    test::ScratchDir dir;
    auto store = std::move(TraceStore::open(dir.file("ob.tldb"), TraceStore::Mode::Create).value());
    ImportOptions options;
    options.inputs = {csv};
    ASSERT_TRUE(importTraces(*store, options));
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    auto graph = loadModelGraph(*store);
    ASSERT_TRUE(graph) << graph.message();
    ASSERT_GT(graph->requests, 400);
    bool repeatedType = false;
    for (const auto& t : graph->types) {
        EXPECT_LE(t.occurrences, graph->requests) << t.name();
        EXPECT_LE(t.criticalCount, t.occurrences) << t.name();
        std::set<std::string> slowest(t.slowestCriticalRequests.begin(), t.slowestCriticalRequests.end());
        EXPECT_EQ(slowest.size(), t.slowestCriticalRequests.size()) << t.name() << ": a request listed twice";
        repeatedType = repeatedType || t.name().find("GetProduct") != std::string::npos;
    }
    EXPECT_TRUE(repeatedType);
}

// The Mystery Machine's model over a chosen window: over every request it is the cached model (the same clocks and
// inference); over the first half, a model of those 200 requests alone, which differs from the whole's.
TEST(AnalysisStore, TheModelOfSomeRequestsIsInferredFromThemAlone) {
    test::ScratchDir whole;
    auto all = test::generatedStore(whole, 400, 11);
    ASSERT_TRUE(analyzeStore(*all, AnalysisOptions{}));
    auto analysis = loadAnalysis(*all);
    ASSERT_TRUE(analysis);
    std::vector<std::uint32_t> every(analysis->data.requestCount());
    for (std::uint32_t r = 0; r < every.size(); ++r) every[r] = r;
    auto json = modelJsonOfRows(analysis.value(), every, AnalysisOptions{});
    ASSERT_TRUE(json) << json.message();
    EXPECT_EQ(json.value(), cachedModelJson(*all, AnalysisOptions{}).value());
    const std::vector<std::uint32_t> firstHalf(every.begin(), every.begin() + 200);
    auto part = modelJsonOfRows(analysis.value(), firstHalf, AnalysisOptions{});
    ASSERT_TRUE(part) << part.message();
    EXPECT_EQ(part.value().rfind("{\"requests\":200,", 0), 0u) << part.value().substr(0, 60);
    EXPECT_NE(part.value(), json.value());
    // The same as the model of a TraceData made of those requests by hand, analysed from scratch.
    TraceData byHand = restrictTraceData(analysis->data, firstHalf);
    ASSERT_EQ(byHand.requestCount(), 200u);
    for (std::size_t k = 0; k < 200; ++k) {
        ASSERT_EQ(byHand.requestIds[k], analysis->data.requestIds[k]);
        ASSERT_EQ(byHand.eventsOf(k).size(), analysis->data.eventsOf(k).size());
    }
}

// The model graph of a period (the Dependency graph tab's) is the graph a database holding only that period
// would show: the same nodes with the same statistics, the same edges, every one by name.
TEST(AnalysisStore, ThePeriodsModelGraphIsTheGraphOfADatabaseOfThatPeriodAlone) {
    test::ScratchDir dir;
    const std::string db = dir.file("two.tldb");
    auto analysis = test::analysedPeriods(db, 150, 3.0);
    ASSERT_TRUE(analysis);
    auto store = TraceStore::open(db, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store) << store.message();
    const std::vector<std::uint32_t> rows = periodRows(*store.value(), analysis->data.requestIds, "problem");
    ASSERT_EQ(rows.size(), 150u);
    auto part = modelGraphOfRows(*analysis, rows, AnalysisOptions{}, [&](RequestId id) { return requestName(*store.value(), id); });
    ASSERT_TRUE(part) << part.message();

    auto alone = TraceStore::open(dir.file("alone.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(alone) << alone.message();
    ImportOptions import;
    import.inputs = {db + ".p1.csv"};  // the problem period's file, as analysedPeriods wrote it
    import.period = "problem";
    ASSERT_TRUE(importTraces(*alone.value(), import));
    ASSERT_TRUE(analyzeStore(*alone.value(), AnalysisOptions{}));
    auto reference = loadModelGraph(*alone.value());
    ASSERT_TRUE(reference) << reference.message();

    EXPECT_EQ(part->requests, 150);
    EXPECT_EQ(part->requests, reference->requests);
    EXPECT_EQ(part->supportFloor, reference->supportFloor);
    EXPECT_EQ(part->convergence.size(), reference->convergence.size());
    ASSERT_EQ(part->types.size(), reference->types.size());
    std::map<std::string, const SegmentTypeStats*> byName;
    for (const auto& t : reference->types) byName[t.name()] = &t;
    for (const auto& t : part->types) {
        ASSERT_TRUE(byName.count(t.name())) << t.name();
        const SegmentTypeStats& r = *byName[t.name()];
        EXPECT_EQ(t.occurrences, r.occurrences) << t.name();
        EXPECT_EQ(t.criticalCount, r.criticalCount) << t.name();
        EXPECT_DOUBLE_EQ(t.meanDurationNs, r.meanDurationNs) << t.name();
        EXPECT_DOUBLE_EQ(t.meanCriticalNs, r.meanCriticalNs) << t.name();
        EXPECT_DOUBLE_EQ(t.networkShare, r.networkShare) << t.name();
        EXPECT_EQ(t.slowestCriticalRequests, r.slowestCriticalRequests) << t.name();
        EXPECT_GT(t.occurrences, 0) << t.name();
    }
    // Type ids differ between the databases: edges by their ends' names (a mutual exclusion is unordered).
    auto named = [](const ModelGraph& g, const std::vector<ModelGraph::Edge>& edges, bool unordered = false) {
        std::set<std::tuple<std::string, std::string, std::int64_t, bool>> out;
        for (const auto& e : edges) {
            std::string a = g.types[e.from].name(), b = g.types[e.to].name();
            if (unordered && b < a) std::swap(a, b);
            out.emplace(a, b, e.support, e.confirmed);
        }
        return out;
    };
    EXPECT_FALSE(part->happensBefore.empty());
    EXPECT_EQ(named(part.value(), part->happensBefore), named(reference.value(), reference->happensBefore));
    EXPECT_EQ(named(part.value(), part->mutualExclusion, true), named(reference.value(), reference->mutualExclusion, true));
    EXPECT_EQ(named(part.value(), part->pipelines), named(reference.value(), reference->pipelines));
}
