#pragma once
// A period of generated page loads written as events-csv, for tests that compare two periods: request
// names prefixed (so two periods never share a request), on true clocks (two generator seeds would give
// the same host two different skews), one user per request (repeat visitors would make two periods of a
// few hundred users differ for real).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "generator/PageLoadGenerator.h"
#include "tracelight/base/Time.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"
#include <memory>

namespace tracelight::test {

// Both periods on true clocks: two generator seeds would give the same host two different skews.
// moreFeedMisses: of the first 3n generated requests, every one whose feed fetch missed the cache, then others
// until n are written (a structural change: more requests take the cache-miss path).
inline bool feedMissed(const samples::GeneratedRequest& r) {
    const auto& tasks = samples::PageLoadGenerator::taskNames();
    const auto& events = samples::PageLoadGenerator::eventNames();
    for (const auto& e : r.events)
        if (tasks[e.task] == "fetch-feed" && events[e.event] == "CACHE_MISS") return true;
    return false;
}

inline void writePeriod(const std::string& csv, const std::string& prefix, std::int64_t n, std::uint64_t seed, double slowFeed,
                 bool moreFeedMisses = false) {
    samples::GeneratorOptions options;
    options.seed = seed;
    options.requests = n;
    options.slowFeedMissFactor = slowFeed;
    // A user per request: the generator's repeat visitors keep their own speed, which makes two periods of a
    // few hundred users differ for real (a different population), not by chance.
    options.users = 1000000;
    const samples::PageLoadGenerator gen(options);
    std::ofstream out(csv);
    out << "request,host,task,event,ts_us,seq\n";
    std::vector<std::int64_t> chosen;
    if (moreFeedMisses) {
        for (std::int64_t i = 0; i < 3 * n && std::int64_t(chosen.size()) < n; ++i)
            if (feedMissed(gen.generate(i))) chosen.push_back(i);
        for (std::int64_t i = 0; std::int64_t(chosen.size()) < n; ++i)
            if (!feedMissed(gen.generate(i))) chosen.push_back(i);
    } else {
        for (std::int64_t i = 0; i < n; ++i) chosen.push_back(i);
    }
    for (std::int64_t i : chosen) {
        const auto r = gen.generate(i);
        for (const auto& e : r.events)
            out << prefix << r.name << ',' << gen.hostName(e.host) << ',' << samples::PageLoadGenerator::taskNames()[e.task] << ','
                << samples::PageLoadGenerator::eventNames()[e.event] << ','
                << formatMicroseconds(e.trueNs) << ',' << e.seq << '\n';
    }
}


// A new database `db` with `periods` (1 or 2) periods of n page loads, "baseline" and "problem", the
// problem's feed cache-miss fill `slowFeed` times slower (CSV files written beside it), analysed and
// loaded back in memory.
inline std::shared_ptr<const InMemoryAnalysis> analysedPeriods(const std::string& db, std::int64_t n, double slowFeed, int periods = 2) {
    auto store = TraceStore::open(db, TraceStore::Mode::Create);
    EXPECT_TRUE(store) << store.message();
    for (int p = 0; p < periods; ++p) {
        const std::string csv = db + ".p" + std::to_string(p) + ".csv";
        writePeriod(csv, p ? "slow-" : "base-", n, 5, p ? slowFeed : 1.0);
        ImportOptions options;
        options.inputs = {csv};
        options.period = p ? "problem" : "baseline";
        EXPECT_TRUE(importTraces(*store.value(), options));
    }
    EXPECT_TRUE(analyzeStore(*store.value(), AnalysisOptions{}));
    auto analysis = loadAnalysis(*store.value());
    EXPECT_TRUE(analysis) << analysis.message();
    return std::make_shared<const InMemoryAnalysis>(std::move(analysis.value()));
}

} // namespace tracelight::test
