// Critical paths and slack in SQL: the tables hold what critical-path and slack print for every request, the
// example query of docs/reference/store-schema.md runs through SQLite and gives what the requests' own results
// give, and a new analysis never leaves rows of the last one.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <tuple>

#include "TestUtil.h"
#include "core/GeneratedStore.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/Slack.h"
#include "tracelight/store/Periods.h"
#include "tracelight/store/ResultTables.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

namespace {

// The first ```sql block after the marker in the schema reference: the example the page gives.
std::string documentedQuery() {
    // The fuzz seeds live in tests/fuzz/seeds of the source tree; the docs two levels above tests.
    std::ifstream in(std::string(TRACELIGHT_FUZZ_SEEDS_DIR) + "/../../../docs/reference/store-schema.md");
    std::stringstream text;
    text << in.rdbuf();
    const std::string page = text.str();
    const auto marker = page.find("<a id=\"querying-critical-paths-and-slack\"></a>");
    const auto open = page.find("```sql\n", marker == std::string::npos ? 0 : marker);
    if (marker == std::string::npos || open == std::string::npos) return {};
    const auto close = page.find("```", open + 7);
    return page.substr(open + 7, close - open - 7);
}

struct Db {
    sqlite3* db = nullptr;
    explicit Db(const std::string& path) { sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr); }
    ~Db() { sqlite3_close(db); }
    // Every row of a query, each column as text ("NULL" for null).
    std::vector<std::vector<std::string>> rows(const std::string& sql) const {
        std::vector<std::vector<std::string>> out;
        sqlite3_stmt* q = nullptr;
        EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &q, nullptr), SQLITE_OK) << sqlite3_errmsg(db) << "\n" << sql;
        while (q && sqlite3_step(q) == SQLITE_ROW) {
            std::vector<std::string> row;
            for (int c = 0; c < sqlite3_column_count(q); ++c) {
                const auto* t = sqlite3_column_text(q, c);
                row.emplace_back(t ? reinterpret_cast<const char*>(t) : "NULL");
            }
            out.push_back(std::move(row));
        }
        sqlite3_finalize(q);
        return out;
    }
};

} // namespace

TEST(ResultTables, HoldEveryRequestsCriticalPathAndSlackAndTheDocumentedQueryRuns) {
    test::ScratchDir dir;
    auto store = test::generatedStore(dir, 150, 9);
    ASSERT_TRUE(store);
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    {
        Db db(store->path());
        EXPECT_EQ(db.rows("SELECT COUNT(*) FROM slack")[0][0], "0");  // not asked for: none
    }
    ASSERT_TRUE(keepResultTables(*store, true));
    EXPECT_TRUE(resultTablesKept(*store));
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    Db db(store->path());

    // Per request, the rows are what critical-path and slack read from the cached result.
    std::map<std::string, std::int64_t> latency;
    std::map<std::tuple<std::string, std::string, std::string, std::string>, std::pair<std::int64_t, double>> perType;  // count, summed us
    for (const std::string& name : test::storedRequestNames(*store)) {
        auto a = loadRequestAnalysis(*store, name);
        ASSERT_TRUE(a) << a.message();
        latency[name] = a->latencyNs;
        const std::string id = "(SELECT id FROM requests WHERE name = '" + name + "')";
        const auto slack = db.rows("SELECT task, start_event, end_event, start_ns, duration_ns, slack_ns, critical FROM slack WHERE request_id = " + id +
                                   " ORDER BY segment");
        ASSERT_EQ(slack.size(), a->segments.size()) << name;
        std::vector<bool> critical(a->segments.size(), false);
        for (auto v : a->criticalPath) critical[v] = true;
        for (std::size_t s = 0; s < slack.size(); ++s) {
            const RequestSegment& seg = a->segments[s];
            EXPECT_EQ(slack[s][0], seg.task);
            EXPECT_EQ(slack[s][2], seg.endEvent);
            EXPECT_EQ(slack[s][3], std::to_string(seg.startNs));
            EXPECT_EQ(slack[s][4], std::to_string(seg.durationNs));
            EXPECT_EQ(slack[s][5], seg.slackNs == kUnboundedSlack ? "NULL" : std::to_string(seg.slackNs));
            EXPECT_EQ(slack[s][6], critical[s] ? "1" : "0");
        }
        // The path: its entries and blind time, back to back from the first event to the last (their
        // durations add up to the latency).
        const auto path = db.rows("SELECT kind, task, start_ns, end_ns FROM critical_path_segments WHERE request_id = " + id + " ORDER BY position");
        ASSERT_EQ(path.size(), a->criticalPath.size() + a->blind.size()) << name;
        std::int64_t total = 0;
        for (const auto& p : path) {
            total += std::stoll(p[3]) - std::stoll(p[2]);
            if (p[0] == "segment") continue;
            EXPECT_EQ(p[0], "blind");
            EXPECT_EQ(p[1], "NULL");
        }
        EXPECT_EQ(total, a->latencyNs) << name;
        EXPECT_EQ(path.front()[2], "0") << name;
        EXPECT_EQ(path.back()[3], std::to_string(a->latencyNs)) << name;
        for (std::size_t k = 0; k < a->criticalPath.size(); ++k) {
            const RequestSegment& seg = a->segments[a->criticalPath[k]];
            auto& [count, us] = perType[{std::string(seg.task), std::string(seg.startEvent), std::string(seg.endEvent), name}];
            ++count;
            us += double(seg.durationNs) / 1000.0;
        }
    }

    // The documented query: segment types by how many requests had them on the critical path.
    const std::string query = documentedQuery();
    ASSERT_FALSE(query.empty()) << "no example query in docs/reference/store-schema.md";
    std::map<std::tuple<std::string, std::string, std::string>, std::int64_t> requestsWith;
    for (const auto& [key, value] : perType) ++requestsWith[{std::get<0>(key), std::get<1>(key), std::get<2>(key)}];
    const auto got = db.rows(query);
    ASSERT_FALSE(got.empty());
    std::int64_t previous = std::numeric_limits<std::int64_t>::max();
    for (const auto& row : got) {
        ASSERT_GE(row.size(), 4u);
        const auto want = requestsWith.find({row[0], row[1], row[2]});
        ASSERT_NE(want, requestsWith.end()) << row[0] << ":" << row[1] << "->" << row[2];
        EXPECT_EQ(std::stoll(row[3]), want->second) << row[0] << ":" << row[1] << "->" << row[2];
        EXPECT_LE(std::stoll(row[3]), previous);  // most often critical first
        previous = std::stoll(row[3]);
    }

    // Not kept any more: the rows go, and the next analysis writes none.
    ASSERT_TRUE(keepResultTables(*store, false));
    EXPECT_EQ(db.rows("SELECT COUNT(*) FROM critical_path_segments")[0][0], "0");
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    EXPECT_EQ(db.rows("SELECT COUNT(*) FROM slack")[0][0], "0");
}
