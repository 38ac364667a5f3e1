#include <gtest/gtest.h>
#include <sqlite3.h>

#include "StoreAccess.h"

#include "TestUtil.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/RequestTable.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/store/Periods.h"

using namespace tracelight;

TEST(RequestTable, LoadsEveryRequestAndSortsNaturally) {
    test::ScratchDir dir;
    std::string csv = "request,host,task,event,ts_us\n";
    for (int i = 1; i <= 12; ++i)
        csv += "req-" + std::to_string(i) + ",h,t,A,0\nreq-" + std::to_string(i) + ",h,t,B," + std::to_string((i * 7) % 12 + 1) + "\n";
    auto store = TraceStore::open(dir.file("t.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store);
    ImportOptions options;
    options.inputs = {dir.write("r.csv", csv)};
    ASSERT_TRUE(importTraces(*store.value(), options));
    auto table = loadRequestTable(*store.value());
    ASSERT_TRUE(table) << table.message();
    ASSERT_EQ(table->size(), 12u);
    EXPECT_FALSE(table->skewCorrected);
    EXPECT_EQ(table->periodNames, std::vector<std::string>{"r"});

    const auto byName = sortedOrder(table.value(), RequestColumn::Name, false);
    EXPECT_EQ(table->names[byName[1]], "req-2");   // natural: req-2 before req-10
    EXPECT_EQ(table->names[byName[11]], "req-12");
    const auto byLatency = sortedOrder(table.value(), RequestColumn::Latency, true);
    for (std::size_t k = 1; k < byLatency.size(); ++k)
        EXPECT_GE(table->latencyNs[byLatency[k - 1]], table->latencyNs[byLatency[k]]);
    EXPECT_EQ(table->latencyNs[byLatency[0]], 12000);
}

// A request belongs to its import batch and to every period defined over it; the table lists them all
// (batch first), and membership is what "in period P" means to the table's filters.
TEST(RequestTable, ListsEveryPeriodARequestBelongsTo) {
    test::ScratchDir dir;
    std::string csv = "request,host,task,event,ts_us,size\n";
    for (int i = 1; i <= 6; ++i)
        csv += "q" + std::to_string(i) + ",h,t,A," + std::to_string(i * 100) + "," + std::to_string(i) + "\nq" + std::to_string(i) +
               ",h,t,B," + std::to_string(i * 100 + 5) + ",\n";
    auto store = TraceStore::open(dir.file("m.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store);
    ImportOptions options;
    options.inputs = {dir.write("batch.csv", csv)};
    ASSERT_TRUE(importTraces(*store.value(), options));
    ASSERT_TRUE(addPeriodWhere(*store.value(), "big", "size > 3"));
    ASSERT_TRUE(addPeriodWhere(*store.value(), "odd", "size < 2"));
    auto table = loadRequestTable(*store.value());
    ASSERT_TRUE(table) << table.message();
    ASSERT_EQ(table->periodNames, (std::vector<std::string>{"batch", "big", "odd"}));
    ASSERT_EQ(table->memberBegin.size(), 7u);
    for (std::size_t i = 0; i < table->size(); ++i) {
        const int n = std::stoi(table->names[i].substr(1));
        EXPECT_TRUE(table->inPeriod(i, 0)) << n;
        EXPECT_EQ(table->inPeriod(i, 1), n > 3) << n;
        EXPECT_EQ(table->inPeriod(i, 2), n < 2) << n;
        const std::string expected = std::string("batch") + (n > 3 ? ", big" : "") + (n < 2 ? ", odd" : "");
        EXPECT_EQ(table->periodList(i), expected) << n;
    }
}

namespace {
// A Jaeger trace: root on `service` running `op`, its calls (service, op) in order, each a child of the root.
std::string jaegerTrace(const std::string& id, const std::string& op, const std::vector<std::pair<std::string, std::string>>& calls,
                        const std::string& rootTags = "") {
    std::string spans = R"({"spanID":")" + id + R"(0","operationName":")" + op + R"(","startTime":1000000,"duration":9000,"processID":"p0","tags":[)" +
                        rootTags + "]}";
    std::string processes = R"("p0":{"serviceName":"front"})";
    for (std::size_t k = 0; k < calls.size(); ++k) {
        const std::string n = std::to_string(k + 1);
        spans += R"(,{"spanID":")" + id + n + R"(","operationName":")" + calls[k].second + R"(","startTime":)" +
                 std::to_string(1001000 + 1000 * k) + R"(,"duration":500,"processID":"p)" + n +
                 R"(","references":[{"refType":"CHILD_OF","traceID":")" + id + R"(","spanID":")" + id + R"(0"}]})";
        processes += R"(,"p)" + n + R"(":{"serviceName":")" + calls[k].first + R"("})";
    }
    return R"({"traceID":")" + id + R"(","processes":{)" + processes + R"(},"spans":[)" + spans + "]}";
}
} // namespace

// What the list shows of span requests: the entry's service, the operation it is known by (the entry's, or its
// first call when one generic entry fronts nearly every request), its spans and the ones that recorded an error.
// An event log's requests have none of it.
TEST(RequestTable, SpanRequestsShowTheirServiceOperationSpansAndErrors) {
    test::ScratchDir dir;
    std::string traces;
    // Twelve requests through one generic entry, told apart by their first call; one with two failed spans.
    for (int i = 0; i < 12; ++i) {
        const std::string id = "aa" + std::to_string(10 + i);
        const std::vector<std::pair<std::string, std::string>> calls =
            i % 2 ? std::vector<std::pair<std::string, std::string>>{{"cart", "GetCart"}, {"ads", "GetAds"}}
                  : std::vector<std::pair<std::string, std::string>>{{"catalog", "GetProduct"}};
        traces += (traces.empty() ? "" : ",") + jaegerTrace(id, "Recv", calls, i == 3 ? R"({"key":"error","type":"bool","value":true},)"
                                                                                        R"({"key":"http.status_code","type":"int64","value":503})"
                                                                                      : "");
    }
    auto store = TraceStore::open(dir.file("s.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store);
    ImportOptions options;
    options.inputs = {dir.write("t.json", R"({"data":[)" + traces + "]}")};
    ASSERT_TRUE(importTraces(*store.value(), options));
    auto table = loadRequestTable(*store.value());
    ASSERT_TRUE(table) << table.message();
    ASSERT_EQ(table->size(), 12u);
    ASSERT_TRUE(table->hasSpans);
    auto text = [&](const std::vector<std::uint32_t>& slots, std::size_t i) {
        return slots[i] == RequestTable::kNoLabel ? std::string("-") : table->spanLabels[slots[i]];
    };
    for (std::size_t i = 0; i < table->size(); ++i) {
        const int n = std::stoi(table->names[i].substr(2)) - 10;
        EXPECT_EQ(text(table->service, i), "front");
        EXPECT_EQ(text(table->entryOperation, i), "Recv");
        EXPECT_EQ(text(table->operation, i), n % 2 ? "GetCart" : "GetProduct") << table->names[i];
        EXPECT_EQ(text(table->callService, i), n % 2 ? "cart" : "catalog");
        EXPECT_EQ(table->spanCount[i], n % 2 ? 3u : 2u);
        EXPECT_EQ(table->errorCount[i], n == 3 ? 1 : 0) << table->names[i];  // one span, however many signs
    }
    const auto byOperation = sortedOrder(table.value(), RequestColumn::Operation, false);
    EXPECT_EQ(text(table->operation, byOperation.front()), "GetCart");
    EXPECT_EQ(text(table->operation, byOperation.back()), "GetProduct");
    const auto byErrors = sortedOrder(table.value(), RequestColumn::Errors, true);
    EXPECT_EQ(table->errorCount[byErrors.front()], 1);

    // An event log beside them: no span columns for its request.
    ImportOptions events;
    events.inputs = {dir.write("e.csv", "request,host,task,event,ts_us\nreq-1,h,t,A,0\nreq-1,h,t,B,5\n")};
    ASSERT_TRUE(importTraces(*store.value(), events));
    table = loadRequestTable(*store.value());
    ASSERT_TRUE(table);
    for (std::size_t i = 0; i < table->size(); ++i)
        if (table->names[i] == "req-1") {
            EXPECT_EQ(table->spanCount[i], 0u);
            EXPECT_EQ(table->service[i], RequestTable::kNoLabel);
            EXPECT_EQ(table->operation[i], RequestTable::kNoLabel);
        }
}

// Hex trace ids sort as text (natural order would compare their digit runs as numbers).
TEST(RequestTable, HexTraceIdsSortAsText) {
    test::ScratchDir dir;
    const std::vector<std::string> ids = {"9f0000000000000a", "10aa000000000000", "a000000000000000", "0fff000000000000"};
    std::string csv = "request,host,task,event,ts_us\n";
    for (const auto& id : ids) csv += id + ",h,t,A,0\n" + id + ",h,t,B,5\n";
    auto store = TraceStore::open(dir.file("h.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store);
    ImportOptions options;
    options.inputs = {dir.write("h.csv", csv)};
    ASSERT_TRUE(importTraces(*store.value(), options));
    auto table = loadRequestTable(*store.value());
    ASSERT_TRUE(table);
    const auto order = sortedOrder(table.value(), RequestColumn::Name, false);
    std::vector<std::string> names;
    for (auto i : order) names.push_back(table->names[i]);
    EXPECT_EQ(names, (std::vector<std::string>{"0fff000000000000", "10aa000000000000", "9f0000000000000a", "a000000000000000"}));
}

// A database from before the summaries: opened for writing, its span requests get their service, operation and
// span count from their spans; errors were not counted then, and say so (-1).
TEST(RequestTable, SpanSummariesAreFilledInWhenAnOlderDatabaseIsUpgraded) {
    test::ScratchDir dir;
    const std::string file = dir.file("old.tldb");
    {
        auto store = TraceStore::open(file, TraceStore::Mode::Create);
        ASSERT_TRUE(store);
        ImportOptions options;
        options.inputs = {dir.write("t.json", R"({"data":[)" + jaegerTrace("bb1", "GET /", {{"db", "query"}, {"cache", "get"}}) + "]}")};
        ASSERT_TRUE(importTraces(*store.value(), options));
        test::StoreAccess::storeEventModel(*store.value());
        char* err = nullptr;
        ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(*store.value()),
                               (std::string(test::StoreAccess::kUndoSchema13) +
                                "DROP TABLE request_spans; UPDATE meta SET value='11' WHERE key='schema_version'").c_str(),
                               nullptr, nullptr, &err),
                  SQLITE_OK)
            << (err ? err : "");
    }
    auto store = TraceStore::open(file, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(store) << store.message();
    auto table = loadRequestTable(*store.value());
    ASSERT_TRUE(table) << table.message();
    ASSERT_EQ(table->size(), 1u);
    EXPECT_EQ(table->spanCount[0], 3u);
    EXPECT_EQ(table->errorCount[0], -1);
    EXPECT_EQ(table->spanLabels[table->service[0]], "front");
    EXPECT_EQ(table->spanLabels[table->entryOperation[0]], "GET /");
    EXPECT_EQ(table->spanLabels[table->callService[0]], "db");
    EXPECT_EQ(table->spanLabels[table->callOperation[0]], "query");
}
