// Suspects (issue 39): the services most likely responsible for a slower period, on labelled real faults.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "TestUtil.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/compare/Suspects.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

using namespace tracelight;

namespace {

const std::string kOb = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/nezha-onlineboutique/";

struct Periods {
    test::ScratchDir dir;
    std::unique_ptr<TraceStore> store;
    InMemoryAnalysis analysis;
    std::vector<std::uint32_t> normal, fault;

    // The normal minute as "normal", the given fault minutes as "fault".
    explicit Periods(const std::vector<std::string>& faultMinutes) {
        store = std::move(TraceStore::open(dir.file("ob.tldb"), TraceStore::Mode::Create).value());
        ImportOptions options;
        options.inputs = {kOb + "normal/2022-08-23_17_00_trace.csv"};
        options.period = "normal";
        EXPECT_TRUE(importTraces(*store, options));
        if (!faultMinutes.empty()) {
            options.inputs.clear();
            for (const auto& m : faultMinutes) options.inputs.push_back(kOb + "fault/" + m + "_trace.csv");
            options.period = "fault";
            EXPECT_TRUE(importTraces(*store, options));
        }
        EXPECT_TRUE(analyzeStore(*store, AnalysisOptions{}));
        analysis = std::move(loadAnalysis(*store).value());
        normal = periodRows(*store, analysis.data.requestIds, "normal");
        fault = periodRows(*store, analysis.data.requestIds, "fault");
    }
};

} // namespace

// CPU contention in shippingservice (07:26): only about a tenth of its calls got slower, by two orders of
// magnitude; the tail test finds it and it leads, its evidence its own work.
TEST(Suspects, ShippingCpuContentionLeads) {
    if (!std::filesystem::is_directory(kOb)) GTEST_SKIP() << "no " << kOb;
    Periods p({"07_26", "07_27"});
    auto suspects = findSuspects(p.analysis, *p.store, p.normal, p.fault);
    ASSERT_TRUE(suspects) << suspects.message();
    ASSERT_FALSE(suspects->empty());
    const Suspect& first = suspects->front();
    EXPECT_EQ(first.service, "shippingservice");
    EXPECT_LT(first.pValue, 0.05);
    EXPECT_GT(first.score, 2);
    ASSERT_FALSE(first.evidence.empty());
    EXPECT_EQ(first.evidence.front().key, "shippingservice");
    EXPECT_FALSE(first.evidence.front().hop);
    EXPECT_GT(first.evidence.front().targetSlowShare, first.evidence.front().baseSlowShare);
}

// A network delay into currencyservice: it leads, the hop frontend → currencyservice among its evidence,
// owned by the callee (frontend's other hops did not slow down).
TEST(Suspects, ASlowerHopImplicatesItsCallee) {
    if (!std::filesystem::is_directory(kOb)) GTEST_SKIP() << "no " << kOb;
    Periods p({"05_27", "05_28"});
    auto suspects = findSuspects(p.analysis, *p.store, p.normal, p.fault);
    ASSERT_TRUE(suspects) << suspects.message();
    auto currency = std::find_if(suspects->begin(), suspects->end(), [](const Suspect& s) { return s.service == "currencyservice"; });
    ASSERT_NE(currency, suspects->end());
    EXPECT_EQ(currency - suspects->begin(), 0);
    bool hop = false;
    for (const auto& e : currency->evidence) hop = hop || (e.hop && e.key == "frontend → currencyservice");
    EXPECT_TRUE(hop);
    EXPECT_GT(currency->deltaUs, 100'000);  // hundreds of milliseconds per request
    EXPECT_TRUE(std::none_of(suspects->begin(), suspects->end(), [](const Suspect& s) { return s.service == "frontend"; }));
}

// Random halves of one normal minute: no suspect in at least 19 of 20 splits.
TEST(Suspects, RandomHalvesOfANormalMinuteNameNoSuspect) {
    if (!std::filesystem::is_directory(kOb)) GTEST_SKIP() << "no " << kOb;
    Periods p({});
    ASSERT_GT(p.normal.size(), 400u);
    int quiet = 0;
    for (std::uint32_t seed = 1; seed <= 20; ++seed) {
        std::vector<std::uint32_t> rows = p.normal;
        std::shuffle(rows.begin(), rows.end(), std::mt19937(seed));
        const std::vector<std::uint32_t> a(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(rows.size() / 2));
        const std::vector<std::uint32_t> b(rows.begin() + static_cast<std::ptrdiff_t>(rows.size() / 2), rows.end());
        auto suspects = findSuspects(p.analysis, *p.store, a, b);
        ASSERT_TRUE(suspects) << suspects.message();
        quiet += suspects->empty();
    }
    EXPECT_GE(quiet, 19);
}
