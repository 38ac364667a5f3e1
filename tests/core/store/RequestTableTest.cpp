#include <gtest/gtest.h>

#include "TestUtil.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/RequestTable.h"
#include "tracelight/store/TraceStore.h"

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
    ASSERT_TRUE(store.value()->addPeriodWhere("big", "size > 3"));
    ASSERT_TRUE(store.value()->addPeriodWhere("odd", "size < 2"));
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
