// The clock-skew policy (issue 11): event logs keep the Mystery Machine's min-RTT correction; span
// data keeps its recorded clocks unless a server lies outside its client (centred as Jaeger's
// adjuster does) or many round trips agree on an offset that excludes 0. Every decision is stored
// per host pair with the rule that fired.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/GeneratedStore.h"
#include "StoreAccess.h"
#include "TestUtil.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/ClockAdjustments.h"
#include "tracelight/analysis/ClockSkew.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/SpanReads.h"
#include "tracelight/store/StoredAnalysis.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

namespace {

const std::string kRealData = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/";
#define REQUIRE_REAL_DATA()                                                                       \
    if (!std::filesystem::is_directory(kRealData)) GTEST_SKIP() << "no " << kRealData << " beside this checkout"

constexpr std::uint32_t kTask = 1, kSend = 2, kServe = 3, kServed = 4, kReply = 5, kHostA = 10, kHostB = 11;

// One request: a task sends on A at `send`, runs on B from `first` to `last` (B's clock), and is back
// on A at `reply`.
void addRoundTrip(TraceDataBuilder& b, std::uint32_t request, bool fromSpans, TimeNs send, TimeNs first, TimeNs last, TimeNs reply) {
    b.beginRequest(RequestId(request), fromSpans);
    b.addEvent(kTask, kSend, kHostA, send);
    b.addEvent(kTask, kServe, kHostB, first);
    b.addEvent(kTask, kServed, kHostB, last);
    b.addEvent(kTask, kReply, kHostA, reply);
}

SkewDecision onlyDecision(const TraceData& data) {
    SkewEstimates estimates = collectSkewEstimates(data, 1);
    const auto decisions = decideSkew(estimates);
    EXPECT_EQ(decisions.size(), 1u);
    return decisions.empty() ? SkewDecision{} : decisions.front();
}

// B's offset relative to A as solved.
TimeNs solvedOffset(const TraceData& data) {
    const ClockOffsets offsets = solveClockOffsets(collectSkewEstimates(data, 1), data.hostLabels.size());
    return offsets.offsetNs[1] - offsets.offsetNs[0];
}

} // namespace

// A span whose server fits inside its client is no evidence of skew, however uneven the trips out
// and back (the GenAI trace: 1 s out, nothing back). Before the policy, min-RTT centred it (-499 ms).
TEST(ClockSkewPolicy, SpanServerThatFitsKeepsItsClock) {
    TraceDataBuilder b;
    addRoundTrip(b, 1, true, 0, 1'000'000'000, 1'900'000'000, 2'000'000'000);
    const TraceData data = b.finish();
    const SkewDecision d = onlyDecision(data);
    EXPECT_EQ(d.rule, SkewRule::Fits);
    EXPECT_FALSE(d.applied);
    EXPECT_EQ(d.roundTrips, 1);
    EXPECT_EQ(d.outside, 0);
    EXPECT_EQ(solvedOffset(data), 0);
}

// The same round trip in an event log keeps the Mystery Machine's correction: RTT/2 after the send.
TEST(ClockSkewPolicy, EventLogKeepsMinRtt) {
    TraceDataBuilder b;
    addRoundTrip(b, 1, false, 0, 1'000'000'000, 1'900'000'000, 2'000'000'000);
    const TraceData data = b.finish();
    const SkewDecision d = onlyDecision(data);
    EXPECT_EQ(d.rule, SkewRule::MinRtt);
    EXPECT_TRUE(d.applied);
    // RTT = 2 s - 0.9 s = 1.1 s; first server event 0.55 s after the send: offset 1 s - 0.55 s.
    EXPECT_EQ(solvedOffset(data), 450'000'000);
}

// A server that starts before its client sends: centred in the client (the latency split evenly).
TEST(ClockSkewPolicy, SpanServerOutsideItsClientIsCentred) {
    TraceDataBuilder b;
    addRoundTrip(b, 1, true, 1000, 500, 1300, 2000);  // server 800 ns inside a 1000 ns client, 500 ns early
    const TraceData data = b.finish();
    const SkewDecision d = onlyDecision(data);
    EXPECT_EQ(d.rule, SkewRule::ChildOutsideParent);
    EXPECT_TRUE(d.applied);
    EXPECT_EQ(d.outside, 1);
    EXPECT_EQ(solvedOffset(data), 500 - 1000 - (1000 - 800) / 2);  // server starts at 1100 on A's clock
}

// Many round trips that all allow one offset range excluding 0: a confirmed pair, the offset kept
// inside what every round trip allows.
TEST(ClockSkewPolicy, ManyRoundTripsConfirmAnOffset) {
    TraceDataBuilder b;
    for (std::uint32_t r = 1; r <= kConfirmedRoundTrips; ++r) {
        const TimeNs t = TimeNs(r) * 10'000;
        // B runs 300 ns behind; each server sits 100..500 ns after the send on true time.
        addRoundTrip(b, r, true, t, t + 100 + r * 10 - 300, t + 900 - 300, t + 1000 + r);
    }
    const TraceData data = b.finish();
    const SkewDecision d = onlyDecision(data);
    EXPECT_EQ(d.rule, SkewRule::ConfirmedPair);
    EXPECT_EQ(d.roundTrips, kConfirmedRoundTrips);
    EXPECT_GT(d.outside, 0);
    const TimeNs offset = solvedOffset(data);
    // Every round trip fits with the chosen offset.
    for (std::size_t r = 0; r < data.requestCount(); ++r) {
        const auto ev = data.eventsOf(r);
        EXPECT_GE(ev[1].localNs - offset, ev[0].localNs) << r;
        EXPECT_LE(ev[2].localNs - offset, ev[3].localNs) << r;
    }
}

// Round trips that disagree (one server early, another late beyond any one offset): not evidence of
// a clock apart; the recorded clocks stay and the pair says so. Only the early one counts as outside:
// a server ending after its client's reply is explained without skew.
TEST(ClockSkewPolicy, DisagreeingRoundTripsKeepTheClocks) {
    TraceDataBuilder b;
    addRoundTrip(b, 1, true, 1000, 900, 1500, 2000);    // early by 100
    addRoundTrip(b, 2, true, 10000, 10500, 11200, 11000);  // late by 200, and needs B's clock ahead by > 200
    const TraceData data = b.finish();
    const SkewDecision d = onlyDecision(data);
    EXPECT_EQ(d.rule, SkewRule::Inconsistent);
    EXPECT_FALSE(d.applied);
    EXPECT_EQ(d.outside, 1);
    EXPECT_EQ(solvedOffset(data), 0);
}

namespace {

struct ImportedDb {
    test::ScratchDir dir;
    std::unique_ptr<TraceStore> store;

    explicit ImportedDb(const std::string& input) {
        store = std::move(TraceStore::open(dir.file("s.tldb"), TraceStore::Mode::Create).value());
        ImportOptions options;
        options.inputs = {input};
        options.period = "p";
        auto imported = importTraces(*store, options);
        EXPECT_TRUE(imported) << imported.message();
        AnalysisOptions analysis;
        analysis.inference.supportFloor = 1;
        auto analysed = analyzeStore(*store, analysis);
        EXPECT_TRUE(analysed) << analysed.message();
    }
    std::map<std::string, TimeNs> offsetsByHost() const {
        std::map<std::string, TimeNs> out;
        for (const auto& [host, offset] : clockOffsets(*store)) out[store->label(LabelId(host))] = offset;
        return out;
    }
};

} // namespace

// The GenAI trace's clocks are fine: the graphql-gateway spans are not moved 500 ms later. Its critical
// path is what the caller waited for: under Query.assistantReply, graphql.execution (an internal span of
// the gateway) encloses the agent's call, whose server span hangs from Query.assistantReply with no client
// span; graphql.execution is the span that waited for it, so the path runs through the agent's work
// (docs/concepts/critical-path-and-slack.md).
TEST(ClockSkewPolicy, GenAiJaegerTraceKeepsItsClocks) {
    REQUIRE_REAL_DATA();
    ImportedDb db(kRealData + "jaeger/TraceTimelineViewer__genaiTestTrace.json");
    EXPECT_EQ(spanRequestIds(*db.store).size(), 1u);
    for (const auto& [host, offset] : db.offsetsByHost()) EXPECT_EQ(offset, 0) << host;
    const auto pairs = clockPairs(*db.store);
    ASSERT_FALSE(pairs.empty());
    for (const auto& p : pairs) {
        EXPECT_EQ(p.rule, "fits") << db.store->label(LabelId(p.client)) << " -> " << db.store->label(LabelId(p.server));
        EXPECT_FALSE(p.applied);
        EXPECT_EQ(p.offsetNs, 0);
    }

    auto a = loadRequestAnalysis(*db.store, "4a1b2c3d4e5f60718293a4b5c6d7e8f9");
    ASSERT_TRUE(a) << a.message();
    EXPECT_EQ(a->latencyNs, 44'000'000'000);
    std::map<std::string, TimeNs> criticalByTask;
    const RequestSegment* longest = nullptr;
    // An entry only part of whose segment is on the path counts that part.
    forEachPathEntry(a->criticalPath.size(), a->clips, [&](std::size_t k, const PathClip* clip) {
        const RequestSegment& s = a->segments[a->criticalPath[k]];
        criticalByTask[std::string(s.task)] += clip ? clip->endNs - clip->startNs : s.durationNs;
        if (!longest || s.durationNs > longest->durationNs) longest = &s;
    });
    ASSERT_NE(longest, nullptr);
    EXPECT_EQ(longest->task, "coding-agent:invoke_agent triage-agent");
    EXPECT_FALSE(longest->network);
    // graphql.execution 1 ms before the call and from its return to its parent's end (it overflows
    // Query.assistantReply by 1 ms); the agent's own work 38 s of its 42 s, its model calls and tools the rest.
    EXPECT_EQ(criticalByTask["graphql-gateway:graphql.execution"], 999'000'000);
    EXPECT_EQ(criticalByTask["coding-agent:invoke_agent triage-agent"], 38'000'000'000);
    // The edge's task (with the gateway joined into it): 1 ms before each call, the last second after.
    EXPECT_EQ(criticalByTask["api-edge:POST /api/graphql"], 1'001'000'000);
    for (const auto& [task, ns] : criticalByTask) EXPECT_GE(ns, 0) << task;
}

// Zipkin's skew sample: the server half starts 65 ms before its client. Still corrected, by the
// child-outside-parent rule, to half the round trip (481 us) after the send; the decision is stored.
TEST(ClockSkewPolicy, ZipkinSkewSampleIsCorrectedAndSaysWhy) {
    REQUIRE_REAL_DATA();
    ImportedDb db(kRealData + "zipkin/skew.json");
    const auto offsets = db.offsetsByHost();
    const TimeNs rtt = (94539 - 93577) * 1000;
    EXPECT_EQ(offsets.at("serviceb@192.0.0.0") - offsets.at("servicea@127.0.0.0"), (8761 - 74202) * 1000 - rtt / 2);
    const auto pairs = clockPairs(*db.store);
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(db.store->label(LabelId(pairs[0].client)), "servicea@127.0.0.0");
    EXPECT_EQ(db.store->label(LabelId(pairs[0].server)), "serviceb@192.0.0.0");
    EXPECT_EQ(pairs[0].rule, "child-outside-parent");
    EXPECT_TRUE(pairs[0].applied);
    EXPECT_EQ(pairs[0].roundTrips, 1);
    EXPECT_EQ(pairs[0].outside, 1);
    EXPECT_EQ(pairs[0].rttNs, rtt);
    EXPECT_EQ(pairs[0].offsetNs, (8761 - 74202) * 1000 - rtt / 2);
}

// The Online Boutique minute: pairs whose servers all fit keep their clocks (relative offset 0);
// the one pair with servers outside their clients (frontend -> adservice, 8 of 298) is corrected by
// an offset every round trip agrees with; after correction no server lies outside its client.
TEST(ClockSkewPolicy, OnlineBoutiqueMinuteKeepsConsistentClocks) {
    REQUIRE_REAL_DATA();
    ImportedDb db(kRealData + "nezha-onlineboutique/normal/2022-08-23_17_00_trace.csv");
    const auto offsets = clockOffsets(*db.store);
    auto offsetOf = [&](std::uint32_t host) { return offsets.count(host) ? offsets.at(host) : 0; };
    const auto pairs = clockPairs(*db.store);
    ASSERT_GE(pairs.size(), 10u);
    std::int64_t outsideBefore = 0, corrected = 0;
    for (const auto& p : pairs) {
        const std::string name = db.store->label(LabelId(p.client)) + " -> " + db.store->label(LabelId(p.server));
        outsideBefore += p.outside;
        EXPECT_NE(p.rule, "min-rtt") << name;
        if (p.rule == "fits") { EXPECT_EQ(offsetOf(p.server) - offsetOf(p.client), 0) << name; }
        if (p.applied) {
            ++corrected;
            EXPECT_EQ(offsetOf(p.server) - offsetOf(p.client), p.offsetNs) << name;
            EXPECT_LT(std::abs(p.offsetNs), 1'000'000) << name << ": a skew of under a millisecond";
        }
    }
    EXPECT_GT(outsideBefore, 0);
    EXPECT_LE(corrected, 1);

    // Every round trip, re-read on the adjusted clocks: none outside its client now.
    auto data = loadTraceData(*db.store);
    ASSERT_TRUE(data);
    for (auto& e : data->events) e.localNs -= offsetOf(data->hostLabels[e.host.value].value);
    for (std::size_t r = 0; r < data->requestCount(); ++r) ASSERT_TRUE(data->isFromSpans(r));
    const SkewEstimates after = collectSkewEstimates(data.value(), 1);
    std::int64_t outsideAfter = 0;
    for (const auto& [key, e] : after.pairs()) outsideAfter += e.outside;
    EXPECT_EQ(outsideAfter, 0);
}

// The decisions as the app and the CLI list them: each stored pair once, its hosts named as the store's
// labels name them (brute force: one label lookup per host), with the numbers and rule stored.
TEST(ClockSkewPolicy, AdjustmentsListEveryStoredPairWithItsHostsNames) {
    test::ScratchDir dir;
    auto store = test::generatedStore(dir, 400, 2);
    EXPECT_TRUE(loadClockAdjustments(*store).empty()) << "before any analysis";
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    const auto pairs = clockPairs(*store);
    const auto adjustments = loadClockAdjustments(*store);
    ASSERT_GT(pairs.size(), 10u);
    ASSERT_EQ(adjustments.size(), pairs.size());
    std::size_t applied = 0;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        const ClockAdjustment& a = adjustments[i];
        EXPECT_EQ(a.client, store->label(LabelId(pairs[i].client))) << i;
        EXPECT_EQ(a.server, store->label(LabelId(pairs[i].server))) << i;
        EXPECT_FALSE(a.client.empty() || a.server.empty()) << i;
        EXPECT_EQ(a.offsetNs, pairs[i].offsetNs);
        EXPECT_EQ(a.rttNs, pairs[i].rttNs);
        EXPECT_EQ(a.roundTrips, pairs[i].roundTrips);
        EXPECT_EQ(a.outside, pairs[i].outside);
        EXPECT_EQ(a.rule, pairs[i].rule);
        EXPECT_EQ(a.applied, pairs[i].applied);
        applied += a.applied;
    }
    EXPECT_GT(applied, 0u) << "event logs: every pair with round trips is corrected (min-rtt)";

    // A host id far past any the import gives (a damaged store) is named without a table that large.
    ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(*store),
                           "INSERT INTO labels(id, text) VALUES(4000000000, 'far-host');"
                           "UPDATE clock_pairs SET client_host_id = 4000000000 WHERE (client_host_id, server_host_id) = "
                           "(SELECT client_host_id, server_host_id FROM clock_pairs ORDER BY 1, 2 LIMIT 1)",
                           nullptr, nullptr, nullptr), SQLITE_OK);
    const auto withFar = loadClockAdjustments(*store);
    ASSERT_EQ(withFar.size(), pairs.size());
    EXPECT_EQ(std::count_if(withFar.begin(), withFar.end(), [](const ClockAdjustment& a) { return a.client == "far-host"; }), 1);
}

// What `analyze` prints without reading every pair: the adjusted or estimated pairs with the most round
// trips (ties by client, server), and the counts; brute force from the full list.
TEST(ClockSkewPolicy, TheDigestIsTheFullListsPairsWithTheMostEvidence) {
    test::ScratchDir dir;
    auto store = test::generatedStore(dir, 400, 2);
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    // Some pairs keep their clocks (as span requests' pairs do), with equal round trips among the rest.
    ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(*store),
                           "UPDATE clock_pairs SET rule='fits', applied=0, offset_ns=0 WHERE (client_host_id + server_host_id) % 3 = 0;"
                           "UPDATE clock_pairs SET round_trips = 7 WHERE (client_host_id + server_host_id) % 5 = 1;",
                           nullptr, nullptr, nullptr), SQLITE_OK);
    const auto pairs = clockPairs(*store);
    const auto all = loadClockAdjustments(*store);
    ASSERT_EQ(all.size(), pairs.size());
    std::vector<std::size_t> adjusted;
    std::int64_t kept = 0, keptTrips = 0;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        if (pairs[i].rule != "fits") adjusted.push_back(i);
        else ++kept, keptTrips += pairs[i].roundTrips;
    }
    ASSERT_GT(kept, 0);
    ASSERT_GT(adjusted.size(), 8u);
    std::stable_sort(adjusted.begin(), adjusted.end(), [&](std::size_t a, std::size_t b) { return pairs[a].roundTrips > pairs[b].roundTrips; });
    for (std::size_t shown : {std::size_t{0}, std::size_t{5}, adjusted.size() + 10}) {
        const ClockAdjustmentDigest digest = loadClockAdjustmentDigest(*store, shown);
        EXPECT_EQ(digest.adjusted, static_cast<std::int64_t>(adjusted.size()));
        EXPECT_EQ(digest.kept, kept);
        EXPECT_EQ(digest.keptRoundTrips, keptTrips);
        ASSERT_EQ(digest.mostEvidence.size(), std::min(shown, adjusted.size()));
        for (std::size_t k = 0; k < digest.mostEvidence.size(); ++k) {
            const ClockAdjustment& want = all[adjusted[k]];
            const ClockAdjustment& got = digest.mostEvidence[k];
            EXPECT_EQ(got.client, want.client) << k;
            EXPECT_EQ(got.server, want.server) << k;
            EXPECT_EQ(got.roundTrips, want.roundTrips) << k;
            EXPECT_EQ(got.offsetNs, want.offsetNs) << k;
            EXPECT_EQ(got.rule, want.rule) << k;
            EXPECT_EQ(got.applied, want.applied) << k;
        }
    }
}
