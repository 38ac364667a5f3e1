// Spectroscope's Table 3 on the storage generator, asserted over several seeds: each injected change is
// scored against the generator's exact truth as the paper's section 8 scores it (tests/bench/storage_table3.py
// prints the same figures through the CLI).
//   relevant: most of the entry's problem-period requests were affected, and the entry shows the change as the
//             paper asks: a spin loop's is a response-time mutation with a red edge into the storage write's
//             commit, a structural change's has a precursor;
//   top-10:   the share of the first ten entries that are relevant;
//   fp:       the share of all entries that are not;
//   coverage: the share of the affected problem requests inside relevant entries.
// The no-change control, and the A/A split of every scenario's baseline, must flag at most 5 % of categories.
// The seeds are not those the method was developed on (1-6): what holds must hold for any draw.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "TestUtil.h"
#include "generator/StorageGenerator.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/compare/PeriodComparison.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

using namespace tracelight;
using namespace tracelight::samples;

namespace {

struct Score {
    std::size_t entries = 0, relevant = 0, topTen = 0, topTenRelevant = 0;
    std::size_t ofTheChange = 0;  // entries most of whose problem requests the change affected, shown as asked or not
    std::int64_t affected = 0, covered = 0;
    std::int64_t categories = 0;
    std::int64_t aaTested = 0, aaMutations = 0;
    double top10() const { return topTen ? double(topTenRelevant) / double(topTen) : 1.0; }
    double fp() const { return entries ? double(entries - relevant) / double(entries) : 0.0; }
    double coverage() const { return affected ? double(covered) / double(affected) : 1.0; }
};

bool endsWith(const std::string& s, std::string_view tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

Score table3(StorageChange change, std::uint64_t seed, std::int64_t requests, const CompareOptions& options = {}) {
    test::ScratchDir dir;
    StorageOptions o;
    o.seed = seed;
    o.requests = requests;
    o.change = change;
    const StorageGenerator g(o);
    auto store = TraceStore::open(dir.file("storage.tldb"), TraceStore::Mode::Create);
    EXPECT_TRUE(store) << store.message();
    std::set<std::string> affected;
    for (StoragePeriod p : {StoragePeriod::Baseline, StoragePeriod::Problem}) {
        std::string csv = StorageGenerator::csvHeader();
        for (std::int64_t i = 0; i < requests; ++i) {
            const StorageRequest r = g.generate(p, i);
            g.appendCsv(r, csv);
            if (r.affected) affected.insert(r.name);
        }
        ImportOptions io;
        io.inputs = {dir.write(std::string(storagePeriodName(p)) + ".csv", csv)};
        io.format = InputFormat::EventsCsv;
        io.period = std::string(storagePeriodName(p));
        auto imported = importTraces(*store.value(), io);
        EXPECT_TRUE(imported) << imported.message();
    }
    EXPECT_TRUE(analyzeStore(*store.value(), AnalysisOptions{}));
    auto analysis = loadAnalysis(*store.value());
    EXPECT_TRUE(analysis) << analysis.message();
    auto pc = comparePeriods(*store.value(), analysis.value(), "baseline", "problem", options);
    EXPECT_TRUE(pc) << pc.message();
    const Comparison& cmp = pc->comparison;
    const bool spin = storageSpinNs(change) > 0;

    Score s;
    s.categories = static_cast<std::int64_t>(cmp.categories.size());
    s.aaTested = pc->aa.categoriesTested;
    s.aaMutations = pc->aa.mutations;
    s.affected = static_cast<std::int64_t>(affected.size());
    std::set<std::string> covered;
    for (const CompareEntry& e : cmp.entries) {
        const ComparedCategory& cc = cmp.categories[e.category];
        std::vector<std::string> names;
        for (auto entry : cc.problemEntries) names.push_back(*requestName(*store.value(), pc->requestIds[entry]));
        std::size_t hit = 0;
        for (const auto& n : names) hit += affected.count(n);
        bool shows = false;
        if (spin) {
            shows = e.kind == CompareEntry::Kind::ResponseTime;
            bool commit = false;
            for (const auto& edge : e.changedEdges) {
                const std::string& type = pc->categories->typeNames[edge.type];
                commit = commit || endsWith(type, "->WR_COMMIT") || endsWith(type, "->MD_WR_COMMIT");
            }
            shows = shows && commit;
        } else {
            shows = e.kind == CompareEntry::Kind::Structural && !e.precursors.empty();
        }
        const bool ofTheChange = !names.empty() && 2 * hit > names.size();
        const bool relevant = ofTheChange && shows;
        s.ofTheChange += ofTheChange ? 1 : 0;
        ++s.entries;
        s.relevant += relevant ? 1 : 0;
        if (s.topTen < 10) {
            ++s.topTen;
            s.topTenRelevant += relevant ? 1 : 0;
        }
        if (relevant)
            for (const auto& n : names)
                if (affected.count(n)) covered.insert(n);
    }
    s.covered = static_cast<std::int64_t>(covered.size());
    return s;
}

std::string describe(StorageChange change, std::uint64_t seed, const Score& s) {
    return std::string(storageChangeName(change)) + " seed " + std::to_string(seed) + ": " + std::to_string(s.entries) +
           " entries of " + std::to_string(s.categories) + " categories, top-10 " + std::to_string(s.top10()) + ", fp " +
           std::to_string(s.fp()) + ", coverage " + std::to_string(s.coverage()) + " (" + std::to_string(s.covered) + " of " +
           std::to_string(s.affected) + "), A/A " + std::to_string(s.aaMutations) + " of " + std::to_string(s.aaTested);
}

const std::vector<std::uint64_t> kSeeds = {13, 14, 15, 16, 17};

// The A/A split of a scenario's baseline (the same for every change of a seed) and the control.
void expectQuiet(const Score& s, const std::string& what) {
    EXPECT_LE(double(s.aaMutations), 0.05 * double(s.aaTested)) << what;
}

// Table 3's figures are over every entry of every run: the default corrects the family so that a false entry
// shows in at most alpha (5 %) of runs, and one in a run of eight is 12 %; over the seeds' runs it is rare.
struct Pooled {
    Score total;
    std::string runs;
    void add(const Score& s, const std::string& what) {
        total.entries += s.entries;
        total.relevant += s.relevant;
        total.topTen += s.topTen;
        total.topTenRelevant += s.topTenRelevant;
        runs += what + "\n";
    }
};

} // namespace

// The targets, at 5,000 requests a period (the paper's benchmarks sample far more).
TEST(StorageTable3, SpinLoopsOfHalfAMillisecondAndMoreAreFoundWithTheirWriteEdgesRed) {
    for (StorageChange c : {StorageChange::Spin500us, StorageChange::Spin1ms}) {
        Pooled pooled;
        for (std::uint64_t seed : kSeeds) {
            const Score s = table3(c, seed, 5000);
            const std::string what = describe(c, seed, s);
            pooled.add(s, what);
            EXPECT_GE(s.entries, 1u) << what;
            EXPECT_GE(s.coverage(), 0.92) << what;
            expectQuiet(s, what);
        }
        EXPECT_GE(pooled.total.top10(), 0.93) << pooled.runs;
        EXPECT_LE(pooled.total.fp(), 0.07) << pooled.runs;
    }
}

TEST(StorageTable3, StructuralChangesAreMutationsWithTheirPrecursors) {
    for (StorageChange c : {StorageChange::MetadataOtherNode, StorageChange::SmallIo, StorageChange::ExtraLocks}) {
        Pooled pooled;
        for (std::uint64_t seed : kSeeds) {
            const Score s = table3(c, seed, 5000);
            const std::string what = describe(c, seed, s);
            pooled.add(s, what);
            EXPECT_GE(s.entries, 1u) << what;
            EXPECT_GE(s.coverage(), 0.9) << what;
            expectQuiet(s, what);
        }
        EXPECT_GE(pooled.total.top10(), 0.93) << pooled.runs;
        EXPECT_LE(pooled.total.fp(), 0.07) << pooled.runs;
    }
}

TEST(StorageTable3, TheControlFlagsAtMostOneCategoryInTwenty) {
    for (std::uint64_t seed : kSeeds) {
        const Score s = table3(StorageChange::None, seed, 5000);
        const std::string what = describe(StorageChange::None, seed, s);
        EXPECT_LE(double(s.entries), 0.05 * double(s.categories)) << what;
        expectQuiet(s, what);
    }
}

// At 1,000 requests a period what is found is still right (the same targets over the seeds, the control quiet);
// coverage is not asserted there: a few affected categories hold fewer requests than a test can judge.
TEST(StorageTable3, AtAThousandRequestsWhatIsFoundIsRelevant) {
    for (StorageChange c : {StorageChange::Spin100us, StorageChange::Spin1ms, StorageChange::MetadataOtherNode, StorageChange::SmallIo,
                            StorageChange::None}) {
        Pooled pooled;
        for (std::uint64_t seed : kSeeds) {
            const Score s = table3(c, seed, 1000);
            const std::string what = describe(c, seed, s);
            pooled.add(s, what);
            if (c == StorageChange::None) EXPECT_LE(double(s.entries), 0.05 * double(s.categories)) << what;
            else EXPECT_GE(s.entries, 1u) << what;
            expectQuiet(s, what);
        }
        if (c == StorageChange::None) continue;
        EXPECT_GE(pooled.total.top10(), 0.93) << pooled.runs;
        EXPECT_LE(pooled.total.fp(), 0.07) << pooled.runs;
    }
}

// The interactive loop on the smaller-I/O scenario: the C4.5 tree of the top structural entry with a
// precursor (its problem requests against the precursor's baseline ones) splits first on the size attribute,
// at a threshold between the affected small writes and the baseline's writes, over several seeds.
TEST(StorageTable3, TheRegressionTreeRecoversTheSmallIoSizeThreshold) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        test::ScratchDir dir;
        StorageOptions o;
        o.seed = seed;
        o.requests = 2000;
        o.change = StorageChange::SmallIo;
        const StorageGenerator g(o);
        auto store = TraceStore::open(dir.file("storage.tldb"), TraceStore::Mode::Create);
        ASSERT_TRUE(store) << store.message();
        double largestAffected = 0, smallestBaselineWrite = 1e18;
        for (StoragePeriod p : {StoragePeriod::Baseline, StoragePeriod::Problem}) {
            std::string csv = StorageGenerator::csvHeader();
            for (std::int64_t i = 0; i < o.requests; ++i) {
                const StorageRequest r = g.generate(p, i);
                g.appendCsv(r, csv);
                if (r.affected) largestAffected = std::max(largestAffected, double(r.size));
                if (p == StoragePeriod::Baseline && r.op == StorageOp::Write && r.size > 0)
                    smallestBaselineWrite = std::min(smallestBaselineWrite, double(r.size));
            }
            ImportOptions io;
            io.inputs = {dir.write(std::string(storagePeriodName(p)) + ".csv", csv)};
            io.format = InputFormat::EventsCsv;
            io.period = std::string(storagePeriodName(p));
            auto imported = importTraces(*store.value(), io);
            ASSERT_TRUE(imported) << imported.message();
        }
        ASSERT_TRUE(analyzeStore(*store.value(), AnalysisOptions{}));
        auto analysis = loadAnalysis(*store.value());
        ASSERT_TRUE(analysis) << analysis.message();
        auto pc = comparePeriods(*store.value(), analysis.value(), "baseline", "problem", CompareOptions{});
        ASSERT_TRUE(pc) << pc.message();
        const CompareEntry* entry = nullptr;
        for (const CompareEntry& e : pc->comparison.entries)
            if (e.kind == CompareEntry::Kind::Structural && !e.precursors.empty()) {
                entry = &e;
                break;
            }
        ASSERT_TRUE(entry) << "seed " << seed << ": no structural entry with a precursor";
        const RegressionTree t = explainEntry(*store.value(), pc.value(), *entry, {});
        const std::string what = "seed " + std::to_string(seed) + ":\n" + t.toText();
        ASSERT_FALSE(t.root.isLeaf()) << what;
        EXPECT_EQ(t.attributes[t.root.attribute].name, "size") << what;
        EXPECT_TRUE(t.root.numeric) << what;
        EXPECT_GE(t.root.threshold, largestAffected) << what;
        EXPECT_LT(t.root.threshold, smallestBaselineWrite) << what;
    }
}

// The paper's own statistics (compare --paper: a category marked by its response-time KS test at alpha
// uncorrected, its edges tested only to find the red ones; structural mutations by SM_THRESHOLD 50 alone) flag
// categories on the 100 µs spin at 1,000 requests a period, where the corrected default finds little or nothing;
// in most seeds one of them is a category of the spin. They pay in false entries, which the A/A of the same
// statistics shows.
TEST(StorageTable3, InPaperModeTheHundredMicrosecondSpinIsFlagged) {
    CompareOptions paper;
    paper.paperStatistics = true;
    paper.threshold = CompareOptions::kPaperThreshold;
    std::size_t seedsWithTheSpin = 0;
    std::int64_t paperAa = 0, correctedAa = 0;
    for (std::uint64_t seed : kSeeds) {
        const Score corrected = table3(StorageChange::Spin100us, seed, 1000);
        const Score s = table3(StorageChange::Spin100us, seed, 1000, paper);
        const std::string what = describe(StorageChange::Spin100us, seed, s) + "; corrected: " + describe(StorageChange::Spin100us, seed, corrected);
        EXPECT_GE(s.entries, 1u) << what;
        EXPECT_GE(s.entries, corrected.entries) << what;
        seedsWithTheSpin += s.ofTheChange > 0 ? 1 : 0;
        paperAa += s.aaMutations;
        correctedAa += corrected.aaMutations;
    }
    EXPECT_GT(2 * seedsWithTheSpin, kSeeds.size()) << seedsWithTheSpin << " of " << kSeeds.size() << " seeds";
    EXPECT_GT(paperAa, correctedAa);  // and chance flags more too
}
