// The storage-service generator: determinism, exact truth of each injected change, and a sane analysis.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "TestUtil.h"
#include "generator/StorageGenerator.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;
using namespace tracelight::samples;

namespace {

constexpr std::int64_t kRequests = 4000;

StorageGenerator generator(StorageChange change, std::uint64_t seed = 3) {
    StorageOptions o;
    o.seed = seed;
    o.requests = kRequests;
    o.change = change;
    return StorageGenerator(o);
}

std::string periodCsv(const StorageGenerator& g, StoragePeriod period, std::int64_t n) {
    std::string out = StorageGenerator::csvHeader();
    for (std::int64_t i = 0; i < n; ++i) g.appendCsv(g.generate(period, i), out);
    return out;
}

// The structure of a request: its events in order with the host role (fe, mds, md, data, client).
std::string structure(const StorageGenerator& g, const StorageRequest& r) {
    std::string s;
    for (const auto& e : r.events) {
        std::string host = g.hostName(e.host);
        s += std::string(StorageGenerator::eventNames()[e.event]) + "@" + host.substr(0, host.find('-')) + " ";
    }
    return s;
}
std::vector<std::string_view> eventSequence(const StorageRequest& r) {
    std::vector<std::string_view> out;
    for (const auto& e : r.events) out.push_back(StorageGenerator::eventNames()[e.event]);
    return out;
}
bool hasEvent(const StorageRequest& r, std::string_view name) {
    for (const auto& e : r.events)
        if (StorageGenerator::eventNames()[e.event] == name) return true;
    return false;
}
bool sameRequest(const StorageRequest& a, const StorageRequest& b) {
    if (a.events.size() != b.events.size() || a.op != b.op || a.size != b.size || a.client != b.client) return false;
    for (std::size_t k = 0; k < a.events.size(); ++k)
        if (a.events[k].host != b.events[k].host || a.events[k].event != b.events[k].event ||
            a.events[k].trueNs != b.events[k].trueNs)
            return false;
    return true;
}

const std::vector<StorageChange> kChanges = {StorageChange::None,      StorageChange::MetadataOtherNode,
                                             StorageChange::SmallIo,   StorageChange::Spin100us,
                                             StorageChange::Spin500us, StorageChange::Spin1ms,
                                             StorageChange::ExtraLocks};

} // namespace

TEST(StorageGenerator, ChangeNamesRoundTrip) {
    for (StorageChange c : kChanges) EXPECT_EQ(storageChangeFromName(storageChangeName(c)), c);
    EXPECT_FALSE(storageChangeFromName("spin-2ms"));
    EXPECT_EQ(storageSpinNs(StorageChange::Spin500us), 500000);
}

TEST(StorageGenerator, DeterministicPerSeedAndIndependentOfOrder) {
    for (StorageChange c : {StorageChange::None, StorageChange::SmallIo, StorageChange::Spin1ms}) {
        const auto g1 = generator(c, 11), g2 = generator(c, 11), g3 = generator(c, 12);
        for (StoragePeriod p : {StoragePeriod::Baseline, StoragePeriod::Problem}) {
            const std::string a = periodCsv(g1, p, 500);
            EXPECT_EQ(a, periodCsv(g2, p, 500));
            EXPECT_NE(a, periodCsv(g3, p, 500));
        }
        // Request 300 is the same whether or not the ones before it were generated.
        const StorageGenerator fresh = generator(c, 11);
        EXPECT_TRUE(sameRequest(fresh.generate(StoragePeriod::Problem, 300), g1.generate(StoragePeriod::Problem, 300)));
    }
}

TEST(StorageGenerator, CsvHasOneRowAnEventAndAttributesOnTheFirstRow) {
    const auto g = generator(StorageChange::None);
    const StorageRequest r = g.generate(StoragePeriod::Baseline, 5);
    std::string csv;
    g.appendCsv(r, csv);
    EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')), r.events.size());
    const std::string first = csv.substr(0, csv.find('\n'));
    EXPECT_NE(first.find("," + std::string(storageOpName(r.op)) + ","), std::string::npos) << first;
    EXPECT_NE(first.find(",c" + std::to_string(r.client)), std::string::npos) << first;
    EXPECT_EQ(formatNsAsUs(1793491200000000123), "1793491200000000.123");
    EXPECT_EQ(formatNsAsUs(1000), "1.000");
}

TEST(StorageGenerator, BaselineDoesNotDependOnTheChange) {
    const auto none = generator(StorageChange::None);
    for (StorageChange c : kChanges) {
        const auto g = generator(c);
        for (std::int64_t i = 0; i < kRequests; ++i) {
            const StorageRequest r = g.generate(StoragePeriod::Baseline, i);
            ASSERT_FALSE(r.affected) << r.name;
            ASSERT_TRUE(sameRequest(r, none.generate(StoragePeriod::Baseline, i))) << storageChangeName(c) << " " << r.name;
        }
    }
}

// Every change touches exactly the requests its truth names: an unaffected problem request is the
// control's request to the nanosecond, an affected one differs as the change says.
TEST(StorageGenerator, SpinLengthensExactlyTheStorageWritesOfTheAffectedRequests) {
    const auto none = generator(StorageChange::None);
    for (StorageChange c : {StorageChange::Spin100us, StorageChange::Spin500us, StorageChange::Spin1ms}) {
        const auto g = generator(c);
        const std::int64_t spin = storageSpinNs(c);
        std::int64_t affected = 0;
        for (std::int64_t i = 0; i < kRequests; ++i) {
            const StorageRequest r = g.generate(StoragePeriod::Problem, i), base = none.generate(StoragePeriod::Problem, i);
            const bool writes = hasEvent(r, "WR_COMMIT") || hasEvent(r, "MD_WR_COMMIT");
            ASSERT_EQ(r.affected, writes) << r.name;
            ASSERT_EQ(r.affected, r.op == StorageOp::Write || r.op == StorageOp::Create) << r.name;
            ASSERT_EQ(eventSequence(r), eventSequence(base)) << r.name;  // same structure
            int lengthened = 0;
            for (std::size_t k = 1; k < r.events.size(); ++k) {
                const std::int64_t d = r.events[k].trueNs - r.events[k - 1].trueNs;
                const std::int64_t d0 = base.events[k].trueNs - base.events[k - 1].trueNs;
                const auto name = StorageGenerator::eventNames()[r.events[k].event];
                if (name == "WR_COMMIT" || name == "MD_WR_COMMIT") {
                    ASSERT_EQ(d, d0 + spin) << r.name << " " << name;
                    ++lengthened;
                } else {
                    ASSERT_EQ(d, d0) << r.name << " " << name;
                }
            }
            EXPECT_EQ(lengthened > 0, r.affected);
            ASSERT_EQ(r.latencyNs(), base.latencyNs() + lengthened * spin);
            affected += r.affected ? 1 : 0;
        }
        EXPECT_GT(affected, kRequests / 5);
        EXPECT_LT(affected, kRequests / 2);
    }
}

TEST(StorageGenerator, StructuralChangesAlterExactlyTheAffectedRequests) {
    const auto none = generator(StorageChange::None);
    for (StorageChange c : {StorageChange::MetadataOtherNode, StorageChange::SmallIo, StorageChange::ExtraLocks}) {
        const auto g = generator(c);
        std::int64_t affected = 0;
        for (std::int64_t i = 0; i < kRequests; ++i) {
            const StorageRequest r = g.generate(StoragePeriod::Problem, i), base = none.generate(StoragePeriod::Problem, i);
            EXPECT_EQ(r.op, base.op);
            EXPECT_EQ(r.client, base.client);
            bool reachesMds = false;
            for (const auto& e : base.events) reachesMds = reachesMds || none.hostName(e.host) == "mds-1";
            if (c == StorageChange::ExtraLocks) { ASSERT_EQ(r.affected, reachesMds) << r.name; }
            if (c == StorageChange::MetadataOtherNode && r.affected) { ASSERT_TRUE(hasEvent(base, "MD_WR_COMMIT")); }
            if (c == StorageChange::SmallIo) { ASSERT_EQ(r.affected, r.op == StorageOp::Write && r.size < 65536) << r.name; }
            if (!r.affected) {
                ASSERT_TRUE(sameRequest(r, base)) << storageChangeName(c) << " " << r.name;
                continue;
            }
            ++affected;
            ASSERT_NE(structure(g, r), structure(none, base)) << storageChangeName(c) << " " << r.name;
            switch (c) {
            case StorageChange::MetadataOtherNode:
                // The metadata write leaves the metadata nodes for a data node's write path (most do).
                ASSERT_TRUE(hasEvent(base, "MD_WR_COMMIT"));
                ASSERT_FALSE(hasEvent(r, "MD_WR_COMMIT"));
                break;
            case StorageChange::SmallIo:
                ASSERT_EQ(r.op, StorageOp::Write);
                ASSERT_LT(r.size, 65536);
                ASSERT_GE(base.size, 65536);
                ASSERT_TRUE(hasEvent(r, "RMW_READ"));
                ASSERT_FALSE(hasEvent(base, "RMW_READ"));
                break;
            case StorageChange::ExtraLocks: {
                // One to three more LOCK_ACQUIRE -> LOCK_RELEASE pairs at each metadata-server access;
                // without them the request is the control's.
                const auto seq = eventSequence(r);
                const auto seq0 = eventSequence(base);
                const auto pairs = [](const std::vector<std::string_view>& v) {
                    int n = 0;
                    for (std::size_t k = 1; k < v.size(); ++k) n += v[k - 1] == "LOCK_ACQUIRE" && v[k] == "LOCK_RELEASE";
                    return n;
                };
                const int extra = pairs(seq) - pairs(seq0);
                ASSERT_GE(extra, 1);
                ASSERT_LE(extra, 6);
                ASSERT_EQ(seq.size(), seq0.size() + 2 * static_cast<std::size_t>(extra));
                const auto withoutLocks = [](std::vector<std::string_view> v) {
                    std::erase_if(v, [](std::string_view e) { return e == "LOCK_ACQUIRE" || e == "LOCK_RELEASE"; });
                    return v;
                };
                ASSERT_EQ(withoutLocks(seq), withoutLocks(seq0)) << r.name;
                break;
            }
            default: break;
            }
        }
        // Which requests: most with a metadata write (CREATE, WRITE written through), the small writes, or
        // every request that reaches the metadata server.
        EXPECT_GT(affected, kRequests / 20) << storageChangeName(c);
        EXPECT_LT(affected, c == StorageChange::ExtraLocks ? kRequests * 3 / 4 : kRequests / 4) << storageChangeName(c);
    }
    // Small writes happen only where the truth says: never in the baseline or in another scenario's problem period.
    for (StorageChange c : kChanges) {
        if (c == StorageChange::SmallIo) continue;
        const auto g = generator(c);
        for (std::int64_t i = 0; i < kRequests; ++i) {
            const StorageRequest r = g.generate(StoragePeriod::Problem, i);
            ASSERT_FALSE(hasEvent(r, "RMW_READ")) << r.name;
            ASSERT_TRUE(r.size == 0 || r.size >= 65536) << r.name;
        }
    }
}

// The control: the problem period is another random draw of the same service, nothing more.
TEST(StorageGenerator, ControlChangesNothingButTheRandomDraw) {
    const auto g = generator(StorageChange::None);
    std::map<std::string, std::int64_t> base, problem;
    std::int64_t differ = 0;
    for (std::int64_t i = 0; i < kRequests; ++i) {
        const StorageRequest b = g.generate(StoragePeriod::Baseline, i), p = g.generate(StoragePeriod::Problem, i);
        ASSERT_FALSE(p.affected);
        ++base[structure(g, b)];
        ++problem[structure(g, p)];
        differ += sameRequest(b, p) ? 0 : 1;
    }
    EXPECT_EQ(differ, kRequests);  // a different draw...
    // ...of the same structures in the same proportions (within sampling noise: 4 standard deviations).
    std::set<std::string> all;
    for (const auto& [s, n] : base) all.insert(s);
    for (const auto& [s, n] : problem) all.insert(s);
    for (const auto& s : all) {
        const double a = double(base[s]) / kRequests, b = double(problem[s]) / kRequests;
        const double p = (a + b) / 2;
        EXPECT_LE(std::abs(a - b), 4 * std::sqrt(2 * p * (1 - p) / kRequests) + 1e-9) << s;
    }
    EXPECT_GE(base.size(), 20u);  // hits and misses give many structures
}

TEST(StorageGenerator, TruthFileNamesEveryRequestWithItsPeriodAndChange) {
    const auto g = generator(StorageChange::Spin1ms);
    std::string truth = StorageGenerator::truthHeader();
    EXPECT_EQ(truth, "request,period,affected,change\n");
    g.appendTruth(g.generate(StoragePeriod::Baseline, 0), truth);
    for (std::int64_t i = 0; i < 50; ++i) {
        const StorageRequest r = g.generate(StoragePeriod::Problem, i);
        if (r.affected) {
            std::string line;
            g.appendTruth(r, line);
            EXPECT_EQ(line, r.name + ",problem,1,spin-1ms\n");
            break;
        }
    }
    EXPECT_NE(truth.find("baseline-1,baseline,0,spin-1ms\n"), std::string::npos);
}

// Imported as two periods and analysed, the model is sane: the critical path of a request covers its
// latency exactly (with blind time), and that latency is the true one (first and last event on the client).
TEST(StorageGenerator, ImportedAndAnalysedTheCriticalPathCoversTheTrueLatency) {
    test::ScratchDir dir;
    StorageOptions o;
    o.seed = 5;
    o.requests = 1500;
    o.change = StorageChange::Spin500us;
    const StorageGenerator g(o);
    auto store = TraceStore::open(dir.file("storage.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    for (StoragePeriod p : {StoragePeriod::Baseline, StoragePeriod::Problem}) {
        const std::string name(storagePeriodName(p));
        ImportOptions io;
        io.inputs = {dir.write(name + ".csv", periodCsv(g, p, o.requests))};
        io.format = InputFormat::EventsCsv;
        io.period = name;
        auto imported = importTraces(*store.value(), io);
        ASSERT_TRUE(imported) << imported.message();
        EXPECT_EQ(imported.value().requests, o.requests);
        EXPECT_EQ(imported.value().warnings, 0);
    }
    auto analysed = analyzeStore(*store.value(), AnalysisOptions{});
    ASSERT_TRUE(analysed) << analysed.message();
    EXPECT_EQ(analysed.value().requests, 2 * o.requests);
    EXPECT_GT(analysed.value().happensBefore, 0);
    for (StoragePeriod p : {StoragePeriod::Baseline, StoragePeriod::Problem})
        for (std::int64_t i = 0; i < o.requests; i += 37) {
            const StorageRequest truth = g.generate(p, i);
            auto ra = loadRequestAnalysis(*store.value(), truth.name);
            ASSERT_TRUE(ra) << ra.message();
            const RequestAnalysis& a = ra.value();
            EXPECT_EQ(a.latencyNs, truth.latencyNs()) << truth.name;
            TimeNs covered = 0;
            for (std::uint32_t s : a.criticalPath) covered += a.segments[s].durationNs;
            EXPECT_EQ(covered + a.blindNs, a.latencyNs) << truth.name;
            EXPECT_FALSE(a.criticalPath.empty());
            // One task, one thread of control: every segment is on the critical path.
            EXPECT_EQ(a.criticalPath.size(), truth.events.size() - 1) << truth.name;
            // Clock skew corrected: no segment runs backwards, network hops included (servers are off by
            // up to 2 s, clients by up to 5 s).
            for (const auto& seg : a.segments) EXPECT_GE(seg.durationNs, 0) << truth.name << " " << seg.startEvent;
        }
}

// As in the paper's case, most metadata writes (not all) go to the data storage node.
TEST(StorageGenerator, MetadataOtherNodeRedirectsMostMetadataWrites) {
    const auto none = generator(StorageChange::None), g = generator(StorageChange::MetadataOtherNode);
    std::int64_t writes = 0, redirected = 0;
    for (std::int64_t i = 0; i < kRequests; ++i) {
        const StorageRequest base = none.generate(StoragePeriod::Problem, i), r = g.generate(StoragePeriod::Problem, i);
        if (!hasEvent(base, "MD_WR_COMMIT")) continue;
        ++writes;
        redirected += r.affected ? 1 : 0;
        EXPECT_EQ(r.affected, !hasEvent(r, "MD_WR_COMMIT")) << r.name;
    }
    ASSERT_GT(writes, 200);
    EXPECT_GT(redirected, writes * 3 / 4);
    EXPECT_LT(redirected, writes * 19 / 20);
}
