// The naming filter (the Mystery Machine's one regular expression for test and debug log points): a database
// whose page loads carry extra debug log points and a test task, filtered by name, is analysed exactly as the
// same page loads logged without them.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>

#include "TestUtil.h"
#include "generator/PageLoadGenerator.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/base/Time.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/Periods.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

namespace {

constexpr std::int64_t kRequests = 240;

// n generated page loads as events-csv on skewed clocks; with debug, every request also logs DEBUG_PROBE inside
// its first task (between its first two events) and every third request a task "test-harness" of its own.
std::unique_ptr<TraceStore> pageLoads(const test::ScratchDir& dir, const std::string& name, bool debug) {
    samples::GeneratorOptions options;
    options.seed = 21;
    options.requests = kRequests;
    const samples::PageLoadGenerator gen(options);
    const std::string csv = dir.file(name + ".csv");
    {
        std::ofstream out(csv);
        out << "request,host,task,event,ts_us,seq\n";
        const auto& tasks = samples::PageLoadGenerator::taskNames();
        const auto& events = samples::PageLoadGenerator::eventNames();
        for (std::int64_t i = 0; i < kRequests; ++i) {
            const auto r = gen.generate(i);
            auto local = [&](std::uint32_t host, std::int64_t trueNs) { return formatMicroseconds(trueNs + gen.clockOffsetNs(host)); };
            for (std::size_t k = 0; k < r.events.size(); ++k) {
                const auto& e = r.events[k];
                // Positions doubled: a debug point fits between two of them.
                out << r.name << ',' << gen.hostName(e.host) << ',' << tasks[e.task] << ',' << events[e.event] << ','
                    << local(e.host, e.trueNs) << ',' << 2 * e.seq << '\n';
                if (debug && k == 0 && r.events.size() > 1 && r.events[1].task == e.task) {
                    const auto& next = r.events[1];
                    const std::int64_t at = next.host == e.host ? (e.trueNs + next.trueNs) / 2 : e.trueNs + 1000;
                    out << r.name << ',' << gen.hostName(e.host) << ',' << tasks[e.task] << ",DEBUG_PROBE," << local(e.host, at) << ','
                        << 2 * e.seq + 1 << '\n';
                }
            }
            if (debug && i % 3 == 0) {
                const auto& first = r.events.front();
                out << r.name << ',' << gen.hostName(first.host) << ",test-harness,BEGIN," << local(first.host, first.trueNs + 10) << ",1\n";
                out << r.name << ',' << gen.hostName(first.host) << ",test-harness,END," << local(first.host, first.trueNs + 20) << ",2\n";
            }
        }
    }
    auto store = TraceStore::open(dir.file(name + ".tldb"), TraceStore::Mode::Create);
    EXPECT_TRUE(store) << store.message();
    ImportOptions import;
    import.inputs = {csv};
    EXPECT_TRUE(importTraces(*store.value(), import));
    return std::move(store.value());
}

} // namespace

TEST(NamingFilter, FilteredLogPointsAreAnalysedAsIfNeverLogged) {
    test::ScratchDir dir;
    auto clean = pageLoads(dir, "clean", false);
    auto noisy = pageLoads(dir, "noisy", true);
    ASSERT_TRUE(clean && noisy);
    ASSERT_TRUE(analyzeStore(*clean, AnalysisOptions{}));
    const std::string reference = cachedModelJson(*clean, AnalysisOptions{}).value();

    // Unfiltered, the debug points are segment types of the model.
    ASSERT_TRUE(analyzeStore(*noisy, AnalysisOptions{}));
    const std::string unfiltered = cachedModelJson(*noisy, AnalysisOptions{}).value();
    EXPECT_NE(unfiltered.find("DEBUG_PROBE"), std::string::npos);
    EXPECT_NE(unfiltered.find("test-harness"), std::string::npos);

    // Filtered: stale at once (another filter, other events), then the clean database's model and results.
    ASSERT_TRUE(noisy->setNamingFilter("DEBUG|^test-"));
    EXPECT_EQ(noisy->namingFilter(), "DEBUG|^test-");
    EXPECT_FALSE(analysisIsCurrent(*noisy, AnalysisOptions{}));
    ASSERT_TRUE(analyzeStore(*noisy, AnalysisOptions{}));
    EXPECT_TRUE(analysisIsCurrent(*noisy, AnalysisOptions{}));
    const std::string filtered = cachedModelJson(*noisy, AnalysisOptions{}).value();
    EXPECT_EQ(filtered.find("DEBUG_PROBE"), std::string::npos);
    EXPECT_EQ(filtered.find("test-harness"), std::string::npos);
    EXPECT_EQ(filtered, reference);

    // Every request's critical path and slack, read by another connection, as the clean database's.
    auto reader = TraceStore::open(noisy->path(), TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(reader) << reader.message();
    const auto names = test::storedRequestNames(*clean);
    ASSERT_EQ(names.size(), static_cast<std::size_t>(kRequests));
    for (const std::string& name : names) {
        auto want = loadRequestAnalysis(*clean, name);
        auto got = loadRequestAnalysis(*reader.value(), name);
        ASSERT_TRUE(want) << want.message();
        ASSERT_TRUE(got) << got.message();
        EXPECT_EQ(got->latencyNs, want->latencyNs) << name;
        EXPECT_EQ(got->blindNs, want->blindNs) << name;
        ASSERT_EQ(got->segments.size(), want->segments.size()) << name;
        EXPECT_EQ(got->criticalPath, want->criticalPath) << name;
        for (std::size_t s = 0; s < got->segments.size(); ++s) {
            EXPECT_EQ(got->segments[s].startEvent, want->segments[s].startEvent) << name;
            EXPECT_EQ(got->segments[s].slackNs, want->segments[s].slackNs) << name;
        }
    }

    // Cleared: the debug points are back.
    ASSERT_TRUE(noisy->setNamingFilter(""));
    ASSERT_TRUE(analyzeStore(*noisy, AnalysisOptions{}));
    EXPECT_EQ(cachedModelJson(*noisy, AnalysisOptions{}).value(), unfiltered);
}

TEST(NamingFilter, AnExpressionThatDoesNotCompileIsRefusedAndNothingIsKept) {
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("s.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    EXPECT_TRUE(TraceStore::checkNamingFilter("^test-|DEBUG_[A-Z]+"));
    const Status bad = store.value()->setNamingFilter("DEBUG(");
    EXPECT_FALSE(bad);
    EXPECT_NE(bad.message().find("not a regular expression"), std::string::npos) << bad.message();
    EXPECT_EQ(store.value()->namingFilter(), "");
}
