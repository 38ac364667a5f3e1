// A distributed analysis (processes sharing out the requests, merged through collectives) writes exactly
// what one process writes; run here with threads standing in for MPI ranks (ThreadGroup.h). The
// convergence curve, the one result that used to follow the sharding, no longer depends on it.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <thread>

#include "core/GeneratedStore.h"
#include "core/GeneratedTraces.h"
#include "StoreAccess.h"
#include "TestUtil.h"
#include "ThreadGroup.h"
#include "tracelight/analysis/Analysis.h"

using namespace tracelight;

namespace {

// Every row the analysis writes, as text (blobs in hex), table by table in a fixed order.
std::vector<std::string> analysisRows(const std::string& path) {
    auto store = TraceStore::open(path, TraceStore::Mode::ReadOnly);
    EXPECT_TRUE(store) << store.message();
    sqlite3* db = test::StoreAccess::db(*store.value());
    std::vector<std::string> rows;
    for (const char* sql : {"SELECT * FROM request_analysis ORDER BY request_id", "SELECT id, start_ns, latency_ns FROM requests ORDER BY id",
                            "SELECT * FROM clock_offsets ORDER BY host_id", "SELECT * FROM clock_pairs ORDER BY client_host_id, server_host_id",
                            "SELECT name, analysis_version, params, data FROM results ORDER BY name"}) {
        sqlite3_stmt* q = nullptr;
        EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &q, nullptr), SQLITE_OK) << sql;
        rows.push_back(sql);
        while (sqlite3_step(q) == SQLITE_ROW) {
            std::string row;
            for (int c = 0; c < sqlite3_column_count(q); ++c) {
                const auto* bytes = static_cast<const unsigned char*>(sqlite3_column_blob(q, c));
                const int n = sqlite3_column_bytes(q, c);
                static const char* hex = "0123456789abcdef";
                for (int i = 0; i < n; ++i) row += sqlite3_column_type(q, c) == SQLITE_BLOB
                                                       ? std::string{hex[bytes[i] >> 4], hex[bytes[i] & 15]}
                                                       : std::string(1, static_cast<char>(bytes[i]));
                row += '|';
            }
            rows.push_back(std::move(row));
        }
        sqlite3_finalize(q);
    }
    return rows;
}

// Analyses a copy of `path` with `ranks` threads as processes; returns every rank's summary request count.
std::vector<std::int64_t> analyseDistributed(const std::string& path, int ranks, unsigned threads) {
    test::ThreadGroup group(ranks);
    std::vector<std::int64_t> counts(static_cast<std::size_t>(ranks), -1);
    std::vector<std::thread> processes;
    for (int r = 0; r < ranks; ++r)
        processes.emplace_back([&, r] {
            test::ThreadRank rank(group, r);
            auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
            ASSERT_TRUE(store) << store.message();
            AnalysisOptions options;
            options.inference.threads = threads;
            auto summary = analyzeStore(*store.value(), options, nullptr, nullptr, &rank);
            ASSERT_TRUE(summary) << summary.message();
            counts[static_cast<std::size_t>(r)] = summary->requests;
        });
    for (auto& p : processes) p.join();
    return counts;
}

// The generated database (s.tldb), copied for the single and the distributed analysis.
std::pair<std::string, std::string> twoCopies(const test::ScratchDir& dir) {
    const std::string single = dir.file("single.tldb"), distributed = dir.file("distributed.tldb");
    std::filesystem::copy_file(dir.file("s.tldb"), single);
    std::filesystem::copy_file(dir.file("s.tldb"), distributed);
    return {single, distributed};
}

void analyseSingle(const std::string& path, unsigned threads) {
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(store) << store.message();
    AnalysisOptions options;
    options.inference.threads = threads;
    ASSERT_TRUE(analyzeStore(*store.value(), options));
}

} // namespace

TEST(DistributedAnalysis, ConvergenceCurveDoesNotDependOnThreads) {
    samples::GeneratorOptions options;
    options.seed = 4;
    options.requests = 3000;
    const samples::PageLoadGenerator gen(options);
    const auto traces = test::generateTraces(gen, 3000, false);
    AnalysisOptions one, three;
    one.inference.threads = 1;
    three.inference.threads = 3;
    auto a = analyzeInMemory(traces.data, one);
    auto b = analyzeInMemory(traces.data, three);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->model.serialize(), b->model.serialize());
    // A point at each 1-2-5 step of the whole sequence (not only of the first shard), then the end.
    std::vector<std::int64_t> at;
    for (const auto& p : b->model.convergence()) at.push_back(p.requests);
    EXPECT_EQ(at, (std::vector<std::int64_t>{10, 20, 50, 100, 200, 500, 1000, 2000, 3000}));
    // With the hypotheses of the first n requests alone, the curve's point at n is what a model of them says.
    AnalysisOptions first;
    first.inference.maxRequests = 500;
    auto prefix = analyzeInMemory(traces.data, first);
    ASSERT_TRUE(prefix);
    EXPECT_EQ(prefix->model.convergence().back().happensBeforeAlive, b->model.convergence()[5].happensBeforeAlive);
    EXPECT_EQ(prefix->model.convergence().back().mutualExclusionAlive, b->model.convergence()[5].mutualExclusionAlive);
}

TEST(DistributedAnalysis, ThreeProcessesWriteWhatOneProcessWrites) {
    const test::ScratchDir dir;
    {
        auto store = test::generatedStore(dir, 2400, 6);
        test::addRealJaegerTraces(*store);  // span requests too
    }
    const auto [single, distributed] = twoCopies(dir);
    analyseSingle(single, 2);
    const auto counts = analyseDistributed(distributed, 3, 2);
    for (auto c : counts) EXPECT_GE(c, 2400);
    EXPECT_EQ(counts[0], counts[1]);
    EXPECT_EQ(counts[0], counts[2]);
    const auto expected = analysisRows(single);
    const auto got = analysisRows(distributed);
    EXPECT_GT(expected.size(), 2400u);
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(got[i], expected[i]) << "row " << i;
}

TEST(DistributedAnalysis, MoreProcessesThanRequests) {
    const test::ScratchDir dir;
    test::generatedStore(dir, 3, 2);
    const auto [single, distributed] = twoCopies(dir);
    analyseSingle(single, 1);
    const auto counts = analyseDistributed(distributed, 5, 1);
    for (auto c : counts) EXPECT_EQ(c, 3);
    EXPECT_EQ(analysisRows(distributed), analysisRows(single));
}
