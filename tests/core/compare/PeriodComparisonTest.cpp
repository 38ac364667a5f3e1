// The one comparison runner the CLI and the app share: the periods checked, categorised once, re-ranked.
#include <gtest/gtest.h>

#include <limits>

#include "TestUtil.h"
#include "core/GeneratedStore.h"
#include "tracelight/compare/PeriodComparison.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

using namespace tracelight;

TEST(PeriodComparison, ChecksThePeriodsThenComparesAndReRanks) {
    test::ScratchDir dir;
    auto store = test::generatedStore(dir, 300, 5);
    ASSERT_TRUE(store->addPeriodByTime("all", 0, std::numeric_limits<std::int64_t>::max()));
    ASSERT_TRUE(store->addPeriodByTime("fast", 0, std::numeric_limits<std::int64_t>::max()));  // the same requests, another name
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    auto analysis = loadAnalysis(*store);
    ASSERT_TRUE(analysis);
    CompareOptions options;
    auto same = comparePeriods(*store, analysis.value(), "all", "all", options);
    ASSERT_FALSE(same);
    EXPECT_NE(same.message().find("the same period 'all'"), std::string::npos) << same.message();
    auto unknown = comparePeriods(*store, analysis.value(), "all", "nope", options);
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.message().find("no period 'nope'"), std::string::npos) << unknown.message();

    auto pc = comparePeriods(*store, analysis.value(), "all", "fast", options);
    ASSERT_TRUE(pc) << pc.message();
    EXPECT_EQ(pc->baselineEntries.size(), 300u);
    EXPECT_EQ(pc->comparison.baselineRequests, 300);
    EXPECT_EQ(pc->requestIds.size(), pc->categories->rows.size());
    EXPECT_GT(pc->comparison.problemRequests, 0);
    // Re-ranking keeps the categories and follows the new options: an impossible threshold leaves no
    // structural entry.
    CompareOptions strict = options;
    strict.threshold = 1e9;
    const PeriodComparison again = recompare(pc.value(), strict);
    EXPECT_EQ(again.categories.get(), pc->categories.get());
    for (const auto& e : again.comparison.entries) EXPECT_NE(e.kind, CompareEntry::Kind::Structural);
}
