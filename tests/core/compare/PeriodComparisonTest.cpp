// The one comparison runner the CLI and the app share: the periods checked, categorised once, re-ranked.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>

#include "TestUtil.h"
#include "core/GeneratedStore.h"
#include "core/OnlineBoutiqueStore.h"
#include "tracelight/store/RequestTable.h"
#include "tracelight/compare/AaStudy.h"
#include "tracelight/compare/PeriodComparison.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"
#include "tracelight/store/Periods.h"

using namespace tracelight;

TEST(PeriodComparison, ChecksThePeriodsThenComparesAndReRanks) {
    test::ScratchDir dir;
    auto store = test::generatedStore(dir, 300, 5);
    ASSERT_TRUE(addPeriodByTime(*store, "all", 0, std::numeric_limits<std::int64_t>::max()));
    ASSERT_TRUE(addPeriodByTime(*store, "fast", 0, std::numeric_limits<std::int64_t>::max()));  // the same requests, another name
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

// Span data: each category is named by its request type and a short summary of its structure — the
// operation, span count and host count most of its requests have (counted here again from the request list).
TEST(PeriodComparison, SpanCategoriesAreNamedByTypeAndShape) {
    if (!test::haveOnlineBoutique()) GTEST_SKIP() << "no " << test::kOnlineBoutique;
    test::ScratchDir dir;
    auto store = test::currencyDelayStore(dir.file("ob.tldb"));
    ASSERT_TRUE(store);
    auto analysis = loadAnalysis(*store);
    ASSERT_TRUE(analysis);
    auto pc = comparePeriods(*store, analysis.value(), "normal", "fault", CompareOptions{});
    ASSERT_TRUE(pc) << pc.message();
    auto table = loadRequestTable(*store);
    ASSERT_TRUE(table);
    std::map<std::uint32_t, std::size_t> rowOf;
    for (std::size_t i = 0; i < table->size(); ++i) rowOf[table->ids[i].value] = i;
    ASSERT_EQ(pc->requestTypes.size(), pc->comparison.categories.size());
    std::size_t checked = 0;
    for (const ComparedCategory& cc : pc->comparison.categories) {
        std::map<std::string, int> operations;
        std::map<std::uint32_t, int> spans, hosts;
        for (const auto* entries : {&cc.baselineEntries, &cc.problemEntries})
            for (auto e : *entries) {
                const std::size_t row = rowOf.at(pc->requestIds[e].value);
                ++operations[table->spanLabels[table->operation[row]]];
                ++spans[table->spanCount[row]];
                ++hosts[table->hostCount[row]];
            }
        auto mode = [](const auto& counts) {
            return std::max_element(counts.begin(), counts.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
        };
        const std::string expected = mode(operations) + " · " + std::to_string(mode(spans)) + " spans on " + std::to_string(mode(hosts)) + " hosts";
        EXPECT_EQ(requestTypeOf(pc.value(), cc), expected) << "category " << cc.id;
        ++checked;
    }
    EXPECT_GT(checked, 3u);
}

// Over time, the baseline's A/A by user: every request of a user in the same half, so each bucket's two groups add
// up to the halves splitByUser makes of the baseline's users; without users, random halves of its requests.
TEST(PeriodComparison, OverTimeTheBaselinesAaSplitsUsersWhenAsked) {
    test::ScratchDir dir;
    auto store = test::generatedStore(dir, 400, 5);
    ASSERT_TRUE(addPeriodByTime(*store, "all", 0, std::numeric_limits<std::int64_t>::max()));
    ASSERT_TRUE(addPeriodByTime(*store, "again", 0, std::numeric_limits<std::int64_t>::max()));
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    auto analysis = loadAnalysis(*store);
    ASSERT_TRUE(analysis);
    auto pc = comparePeriods(*store, analysis.value(), "all", "again", CompareOptions{});
    ASSERT_TRUE(pc) << pc.message();
    // 37 users, each with the requests whose id leaves its remainder (the generated store has no user attribute).
    std::vector<std::string> users;
    for (RequestId id : pc->requestIds) users.push_back("u" + std::to_string(id.value % 37));
    ASSERT_EQ(users.size(), pc->categories->rows.size());
    std::vector<std::string> baselineUsers;
    for (auto e : pc->baselineEntries) baselineUsers.push_back(users[e]);
    const UserSplit split = splitByUser(baselineUsers, 1);
    ASSERT_GT(split.usersA, 0);
    ASSERT_GT(split.usersB, 0);
    const auto sums = [](const AaStudy& s) {
        std::int64_t a = 0, b = 0;
        for (const TimeBucket& t : s.buckets) a += t.requestsA, b += t.requestsB;
        return std::pair{a, b};
    };
    const PeriodsOverTime byUser = periodsOverTime(pc.value(), {}, 4, 1, 100, users);
    EXPECT_EQ(sums(byUser.aa), std::pair(split.requestsA, split.requestsB));
    const PeriodsOverTime byRequest = periodsOverTime(pc.value(), {}, 4, 1, 100);
    const auto [a, b] = sums(byRequest.aa);
    EXPECT_EQ(a + b, static_cast<std::int64_t>(pc->baselineEntries.size()));
    EXPECT_LE(std::abs(a - b), 1);  // random halves of the requests
    EXPECT_NE(sums(byUser.aa), sums(byRequest.aa));
}
