// Critical-path profiles (issue 13): the average critical path of a set of requests and the diff of two.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include <zlib.h>

#include "TestUtil.h"
#include "core/OnlineBoutiqueStore.h"
#include "core/GeneratedStore.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/base/Json.h"
#include "tracelight/import/Import.h"
#include "profile.pb.h"  // pprof's profile.proto, compiled for core
#include "tracelight/profile/Profile.h"
#include "tracelight/profile/ProfileAaTable.h"
#include "tracelight/profile/ProfileSelection.h"
#include "tracelight/profile/ProfileTables.h"
#include "tracelight/studies/Aggregates.h"

using namespace tracelight;

namespace {

struct Analysed {
    std::unique_ptr<TraceStore> store;
    InMemoryAnalysis analysis;
};

Analysed analysedPageLoads(const test::ScratchDir& dir, std::int64_t n, std::uint64_t seed) {
    Analysed out;
    out.store = test::generatedStore(dir, n, seed);
    EXPECT_TRUE(analyzeStore(*out.store, AnalysisOptions{}));
    auto a = loadAnalysis(*out.store);
    EXPECT_TRUE(a) << a.message();
    out.analysis = std::move(a.value());
    return out;
}

std::vector<std::uint32_t> allRows(const InMemoryAnalysis& a) {
    std::vector<std::uint32_t> rows(a.data.requestCount());
    for (std::uint32_t r = 0; r < rows.size(); ++r) rows[r] = r;
    return rows;
}

} // namespace

// The average critical path adds up: top-level frames (blind included) sum to the mean latency, every
// frame's total is its self time plus its children's, and the categories agree with the breakdown.
TEST(Profile, TotalIsTheMeanLatencyAndFramesNest) {
    test::ScratchDir dir;
    auto a = analysedPageLoads(dir, 400, 7);
    const auto rows = allRows(a.analysis);
    auto set = buildProfiles(a.analysis, a.store.get(), {rows});
    ASSERT_TRUE(set) << set.message();
    const ProfileSet& p = set.value();
    double latency = 0;
    {
        auto agg = computeAggregates(a.analysis, CategoryRules::defaults());
        ASSERT_TRUE(agg);
        for (auto l : agg->latencyNs) latency += double(l);
        latency /= double(agg->requests());
        const Breakdown b = breakdown(agg.value());
        std::map<std::string, double> critical;
        for (const auto& c : b.categories) critical[c.name] = c.criticalNs;
        for (std::size_t f = 0; f < p.frames.size(); ++f)
            if (p.frames[f].parent < 0) { EXPECT_NEAR(p.meanTotalNs(0, f), critical[p.frames[f].name], 1.0) << p.frames[f].name; }
    }
    EXPECT_NEAR(p.meanLatencyNs(0), latency, 1e-6 * latency);
    double top = 0;
    std::vector<double> children(p.frames.size(), 0);
    for (std::size_t f = 0; f < p.frames.size(); ++f) {
        if (p.frames[f].parent < 0) top += p.meanTotalNs(0, f);
        else children[static_cast<std::size_t>(p.frames[f].parent)] += p.meanTotalNs(0, f);
    }
    EXPECT_NEAR(top, latency, 1e-6 * latency);
    for (std::size_t f = 0; f < p.frames.size(); ++f)
        EXPECT_NEAR(p.meanTotalNs(0, f), p.meanSelfNs(0, f) + children[f], 1e-6 * latency) << p.path(f);
    // The JSON says the same.
    JsonValue json;
    const std::string text = profileJson(p, 0);
    ASSERT_TRUE(JsonValue::parse(text, json, nullptr, nullptr));
    ASSERT_NE(json.find("total_us"), nullptr);
    EXPECT_NEAR(json.find("total_us")->number(), latency / 1000.0, 0.01);
}

// Folded stacks round-trip: each line is one frame's path and mean self time, and their sum is the total.
TEST(Profile, FoldedRoundTrips) {
    test::ScratchDir dir;
    auto a = analysedPageLoads(dir, 200, 3);
    auto set = buildProfiles(a.analysis, a.store.get(), {allRows(a.analysis)});
    ASSERT_TRUE(set);
    const ProfileSet& p = set.value();
    std::map<std::string, long long> folded;
    std::istringstream in(profileFolded(p, 0));
    std::string line;
    long long sum = 0;
    while (std::getline(in, line)) {
        const auto space = line.rfind(' ');
        ASSERT_NE(space, std::string::npos) << line;
        const long long v = std::stoll(line.substr(space + 1));
        EXPECT_TRUE(folded.emplace(line.substr(0, space), v).second) << "stack twice: " << line;
        sum += v;
    }
    for (std::size_t f = 0; f < p.frames.size(); ++f) {
        const long long self = std::llround(p.meanSelfNs(0, f));
        if (self > 0) { EXPECT_EQ(folded[p.path(f)], self) << p.path(f); }
    }
    EXPECT_NEAR(double(sum), p.meanLatencyNs(0), double(p.frames.size()));
}

// Two random halves of one period differ by chance only: the diff flags no frame in at least 95 % of
// seeds (Benjamini-Hochberg across frames), and the profile of a period against itself flags nothing.
TEST(ProfileDiff, RandomHalvesFlagNothingInNineteenOfTwentySeeds) {
    test::ScratchDir dir;
    auto a = analysedPageLoads(dir, 600, 11);
    const auto rows = allRows(a.analysis);
    int flagged = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        auto [x, y] = splitAtRandom(rows, seed);
        ASSERT_EQ(x.size() + y.size(), rows.size());
        auto set = buildProfiles(a.analysis, a.store.get(), {x, y});
        ASSERT_TRUE(set);
        flagged += diffProfiles(set.value(), 0, 1).significantFrames > 0 ? 1 : 0;
    }
    EXPECT_LE(flagged, 1);
    auto same = buildProfiles(a.analysis, a.store.get(), {rows, rows});
    ASSERT_TRUE(same);
    EXPECT_EQ(diffProfiles(same.value(), 0, 1).significantFrames, 0);
}

// pprof: the gzipped profile.proto decodes (zlib + the protobuf classes pprof's own proto generates), its
// samples are the frames with self time, each stack leaf first with the frames' names, adding up to the mean
// latency. (cli.smoke decodes the same file with protoc --decode.)
TEST(Profile, PprofDecodesToTheSameStacksAndTotal) {
    test::ScratchDir dir;
    auto a = analysedPageLoads(dir, 200, 3);
    auto set = buildProfiles(a.analysis, a.store.get(), {allRows(a.analysis)});
    ASSERT_TRUE(set);
    const ProfileSet& p = set.value();
    auto pprof = profilePprof(p, 0);
    ASSERT_TRUE(pprof) << pprof.message();
    std::string* gz = &pprof.value();
    ASSERT_GE(gz->size(), 2u);
    EXPECT_EQ(static_cast<unsigned char>((*gz)[0]), 0x1f);  // gzip magic
    EXPECT_EQ(static_cast<unsigned char>((*gz)[1]), 0x8b);
    std::string raw(1 << 24, '\0');
    z_stream z{};
    ASSERT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
    z.next_in = reinterpret_cast<Bytef*>(gz->data());
    z.avail_in = static_cast<uInt>(gz->size());
    z.next_out = reinterpret_cast<Bytef*>(raw.data());
    z.avail_out = static_cast<uInt>(raw.size());
    ASSERT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
    raw.resize(z.total_out);
    inflateEnd(&z);
    perftools::profiles::Profile proto;
    ASSERT_TRUE(proto.ParseFromString(raw));
    ASSERT_GT(proto.string_table_size(), 0);
    EXPECT_EQ(proto.string_table(0), "");
    ASSERT_EQ(proto.sample_type_size(), 1);
    EXPECT_EQ(proto.string_table(proto.sample_type(0).type()), "critical_time");
    EXPECT_EQ(proto.string_table(proto.sample_type(0).unit()), "nanoseconds");
    std::map<std::uint64_t, std::string> functionName;
    for (const auto& fn : proto.function()) functionName[fn.id()] = proto.string_table(fn.name());
    std::map<std::uint64_t, std::string> locationName;
    for (const auto& loc : proto.location()) {
        ASSERT_EQ(loc.line_size(), 1);
        locationName[loc.id()] = functionName.at(loc.line(0).function_id());
    }
    std::map<std::string, long long> stacks;
    long long sum = 0;
    for (const auto& sample : proto.sample()) {
        std::string path;
        for (int i = sample.location_id_size() - 1; i >= 0; --i) path += (path.empty() ? "" : ";") + locationName.at(sample.location_id(i));
        ASSERT_EQ(sample.value_size(), 1);
        EXPECT_TRUE(stacks.emplace(path, sample.value(0)).second) << "stack twice: " << path;
        sum += sample.value(0);
    }
    std::size_t withSelf = 0;
    for (std::size_t f = 0; f < p.frames.size(); ++f) {
        const long long self = std::llround(p.meanSelfNs(0, f));
        if (self <= 0) continue;
        ++withSelf;
        EXPECT_EQ(stacks[p.path(f)], self) << p.path(f);
    }
    EXPECT_EQ(stacks.size(), withSelf);
    EXPECT_NEAR(double(sum), p.meanLatencyNs(0), double(p.frames.size()));
}

// Top frames and the sandwich on a hand-made profile with recursion: A › B › A › C and A › C.
TEST(ProfileTables, TopFramesAndSandwichCountRecursionOnce) {
    ProfileSet p;
    //            0: A       1: A;B      2: A;B;A    3: A;B;A;C  4: A;C
    p.frames = {{-1, "A", FrameKind::Span, {}}, {0, "B", FrameKind::Span, {}}, {1, "A", FrameKind::Span, {}},
                {2, "C", FrameKind::Span, {}}, {0, "C", FrameKind::Span, {}}};
    ProfileGroup g;
    g.requests = 1;
    const double self[] = {10, 20, 30, 40, 50};
    g.frames.resize(5);
    for (int f = 0; f < 5; ++f) g.frames[static_cast<std::size_t>(f)].selfSum = self[f];
    // totals: each frame's self plus its descendants'
    const double total[] = {150, 90, 70, 40, 50};
    for (int f = 0; f < 5; ++f) g.frames[static_cast<std::size_t>(f)].totalSum = total[f];
    p.groups = {g};

    const auto top = topFrames(p, 0);
    ASSERT_EQ(top.size(), 3u);
    EXPECT_EQ(top[0].name, "C");  // 40 + 50 self
    EXPECT_DOUBLE_EQ(top[0].selfNs, 90);
    EXPECT_DOUBLE_EQ(top[0].totalNs, 90);
    EXPECT_EQ(top[1].name, "A");
    EXPECT_DOUBLE_EQ(top[1].selfNs, 40);
    EXPECT_DOUBLE_EQ(top[1].totalNs, 150);  // the inner A lies inside the outer one: not counted again
    EXPECT_EQ(top[1].stacks, 2);
    EXPECT_EQ(top[2].name, "B");

    const Sandwich a = sandwich(p, 0, "A");
    EXPECT_DOUBLE_EQ(a.middle.selfNs, 40);
    EXPECT_DOUBLE_EQ(a.middle.totalNs, 150);
    ASSERT_EQ(a.callers.size(), 2u);
    EXPECT_EQ(a.callers[0].name, "[root]");
    EXPECT_DOUBLE_EQ(a.callers[0].totalNs, 150);
    EXPECT_EQ(a.callers[1].name, "B");
    EXPECT_DOUBLE_EQ(a.callers[1].totalNs, 70);
    ASSERT_EQ(a.callees.size(), 2u);
    EXPECT_EQ(a.callees[0].name, "B");  // 90 under the outer A
    EXPECT_DOUBLE_EQ(a.callees[0].totalNs, 90);
    EXPECT_EQ(a.callees[1].name, "C");  // 40 under the inner A + 50 under the outer
    EXPECT_DOUBLE_EQ(a.callees[1].totalNs, 90);
    const Sandwich none = sandwich(p, 0, "nosuch");
    EXPECT_TRUE(none.callers.empty());
    EXPECT_TRUE(none.callees.empty());
}

// Each frame keeps the requests in which it held the most critical time (for "open the slowest in the
// waterfall"): largest first, at least its mean over the requests where it was critical, the same whatever
// the number of threads (shards merge them).
TEST(Profile, SlowestRequestsPerFrameAreKeptAndMerged) {
    test::ScratchDir dir;
    auto a = analysedPageLoads(dir, 300, 5);
    const auto rows = allRows(a.analysis);
    ProfileOptions one, four;
    one.threads = 1;
    four.threads = 4;
    auto p1 = buildProfiles(a.analysis, a.store.get(), {rows}, one);
    auto p4 = buildProfiles(a.analysis, a.store.get(), {rows}, four);
    ASSERT_TRUE(p1 && p4);
    ASSERT_EQ(p1->frames.size(), p4->frames.size());
    std::size_t checked = 0;
    for (std::size_t f = 0; f < p1->frames.size(); ++f) {
        const FrameStats& s = p1->groups[0].frames[f];
        if (s.criticalRequests == 0) {
            EXPECT_EQ(s.slowest[0].totalNs, 0);
            continue;
        }
        ++checked;
        EXPECT_GE(double(s.slowest[0].totalNs), s.totalSum / double(s.criticalRequests) - 1e-6) << p1->path(f);
        for (std::size_t k = 1; k < kProfileSlowestKept; ++k) EXPECT_LE(s.slowest[k].totalNs, s.slowest[k - 1].totalNs);
        EXPECT_LT(s.slowest[0].row, rows.size());
        // The same frame in the 4-thread build (frame ids may differ: find it by path).
        for (std::size_t g = 0; g < p4->frames.size(); ++g)
            if (p4->path(g) == p1->path(f)) {
                for (std::size_t k = 0; k < kProfileSlowestKept; ++k)
                    EXPECT_EQ(p4->groups[0].frames[g].slowest[k].totalNs, s.slowest[k].totalNs) << p1->path(f) << " #" << k;
            }
    }
    EXPECT_GT(checked, 5u);
}

// Bad input: an empty selection is a clear error, never an empty profile.
TEST(Profile, EmptySelectionSaysSo) {
    test::ScratchDir dir;
    auto a = analysedPageLoads(dir, 20, 1);
    auto set = buildProfiles(a.analysis, a.store.get(), {{}});
    ASSERT_FALSE(set);
    EXPECT_NE(set.message().find("empty selection"), std::string::npos) << set.message();
}

// Online Boutique's labelled faults against the normal minute: the first significant frame (by relative
// slowdown of self time) belongs to the injected service or is the network hop into it — currencyservice
// for the network delay (fault/05_27 + 05_28), shippingservice for the CPU contention (07_26 + 07_27).
TEST(ProfileDiff, OnlineBoutiqueInjectedServiceComesFirst) {
    const std::string ob = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/nezha-onlineboutique";
    if (!std::filesystem::is_directory(ob)) GTEST_SKIP() << "no " << ob << " beside this checkout";
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("ob.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store);
    for (auto [period, files] : {std::pair<std::string, std::vector<std::string>>{"normal", {ob + "/normal/2022-08-23_17_00_trace.csv"}},
                                 {"net", {ob + "/fault/05_27_trace.csv", ob + "/fault/05_28_trace.csv"}},
                                 {"cpu", {ob + "/fault/07_26_trace.csv", ob + "/fault/07_27_trace.csv"}}}) {
        ImportOptions import;
        import.inputs = files;
        import.period = period;
        ASSERT_TRUE(importTraces(*store.value(), import));
    }
    ASSERT_TRUE(analyzeStore(*store.value(), AnalysisOptions{}));
    auto analysis = loadAnalysis(*store.value());
    ASSERT_TRUE(analysis);
    const auto& ids = analysis->data.requestIds;
    for (auto [period, injected] : {std::pair<std::string, std::string>{"net", "currencyservice"}, {"cpu", "shippingservice"}}) {
        auto set = buildProfiles(analysis.value(), store.value().get(),
                                 {periodRows(*store.value(), ids, "normal"), periodRows(*store.value(), ids, period)});
        ASSERT_TRUE(set) << set.message();
        const ProfileDiff diff = diffProfiles(set.value(), 0, 1);
        ASSERT_FALSE(diff.frames.empty());
        const FrameChange& first = diff.frames.front();
        ASSERT_TRUE(first.significant) << period;
        const auto& services = set->frames[first.frame].services;
        EXPECT_NE(std::find(services.begin(), services.end(), injected), services.end()) << period << ": " << set->path(first.frame);
        // The fault costs milliseconds per request, in the injected service's significant frames together (its
        // work and the hops into it: shippingservice's own work comes first, at under a millisecond, its hop next).
        double injectedDeltaNs = 0;
        for (const FrameChange& c : diff.frames) {
            const auto& sv = set->frames[c.frame].services;
            if (c.significant && std::find(sv.begin(), sv.end(), injected) != sv.end()) injectedDeltaNs += c.deltaSelfNs();
        }
        EXPECT_GT(injectedDeltaNs, 1e6) << period;
        EXPECT_GT(first.selfRatio, 1.5) << period;  // more than a 50 % slowdown of its own time
    }
}

// One segment made 5 ms slower in a copy of the requests: the diff flags exactly that frame's chain
// (the segment, its task and its category) and nothing beside it.
TEST(ProfileDiff, AFiveMillisecondSlowerSegmentFlagsExactlyItsChain) {
    enum : std::uint32_t { Task = 1, Other, S, A, B, E, Host, Host2 };
    TraceDataBuilder b;
    for (auto [id, text] : {std::pair{Task, "render"}, {Other, "prefetch"}, {S, "S"}, {A, "A"}, {B, "B"}, {E, "E"},
                            {Host, "web-1"}, {Host2, "web-2"}})
        b.setLabel(id, text);
    std::uint64_t x = 42;
    auto noise = [&] {  // 0..2 ms, SplitMix64
        std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return static_cast<TimeNs>((z ^ (z >> 31)) % 2'000'000);
    };
    const int perGroup = 300;
    for (int r = 0; r < 2 * perGroup; ++r) {
        const TimeNs slower = r >= perGroup ? 5'000'000 : 0;
        b.beginRequest(RequestId(static_cast<std::uint32_t>(r + 1)));
        const TimeNs base = TimeNs(r) * 100'000'000;
        const TimeNs a = base + 3'000'000 + noise(), bb = a + 4'000'000 + noise() + slower, e = bb + 2'000'000 + noise();
        b.addEvent(Task, S, Host, base);
        b.addEvent(Task, A, Host, a);
        b.addEvent(Task, B, Host, bb);
        b.addEvent(Task, E, Host, e);
        // Work on another host that never decides the latency.
        b.addEvent(Other, S, Host2, base);
        b.addEvent(Other, E, Host2, base + 1'000'000);
    }
    InMemoryAnalysis analysis;
    {
        auto a = analyzeInMemory(b.finish(), AnalysisOptions{});
        ASSERT_TRUE(a) << a.message();
        analysis = std::move(a.value());
    }
    std::vector<std::uint32_t> before, after;
    for (std::uint32_t r = 0; r < 2 * perGroup; ++r) (r < perGroup ? before : after).push_back(r);
    auto set = buildProfiles(analysis, nullptr, {before, after});
    ASSERT_TRUE(set) << set.message();
    const ProfileDiff diff = diffProfiles(set.value(), 0, 1);
    std::set<std::string> flagged;
    for (const auto& c : diff.frames)
        if (c.significant) flagged.insert(set->path(c.frame));
    EXPECT_EQ(flagged, (std::set<std::string>{"web", "web;render", "web;render;A->B"}));
    EXPECT_NEAR(diff.frames.front().deltaSelfNs(), 5e6, 2e5);
    EXPECT_EQ(set->path(diff.frames.front().frame), "web;render;A->B");
}

// The paper's worked aggregation (its Table 1, as its text describes it): A1 calls A2 and B1 in parallel;
// in request 1 A2 is slower and on the critical path, in request 2 B1. Merged by identical stack and
// divided by two, both appear on the average critical path, each at half its time: A1 35 ms in all, of
// it 10 ms its own, A2 10 ms (20 / 2), B1 15 ms (30 / 2).
namespace {
// A Jaeger span of processes "pa" (service A) and "pb" (service B); times in µs.
std::string span(const char* trace, const char* id, const char* parent, const char* op, const char* process, long start, long duration) {
    std::string refs = parent ? std::string(R"([{"refType":"CHILD_OF","traceID":")") + trace + R"(","spanID":")" + parent + R"("}])" : "[]";
    return std::string(R"({"traceID":")") + trace + R"(","spanID":")" + id + R"(","operationName":")" + op + R"(","references":)" + refs +
           R"(,"startTime":)" + std::to_string(1700000000000000L + start) + R"(,"duration":)" + std::to_string(duration) +
           R"(,"processID":")" + process + R"(","tags":[],"logs":[]})";
}
const char* const kProcesses = R"("processes":{"pa":{"serviceName":"A","tags":[]},"pb":{"serviceName":"B","tags":[]}})";

// The profile of one Jaeger document, imported and analysed.
Result<ProfileSet> profileOf(const test::ScratchDir& dir, const std::string& json, std::size_t requests) {
    auto store = TraceStore::open(dir.file("p.tldb"), TraceStore::Mode::Create);
    if (!store) return store.status();
    ImportOptions import;
    import.inputs = {dir.write("p.json", json)};
    if (auto imported = importTraces(*store.value(), import); !imported) return imported.status();
    if (auto analysed = analyzeStore(*store.value(), AnalysisOptions{}); !analysed) return analysed.status();
    auto analysis = loadAnalysis(*store.value());
    if (!analysis) return analysis.status();
    if (analysis->data.requestCount() != requests) return Status::error("unexpected request count");
    return buildProfiles(analysis.value(), store.value().get(), {allRows(analysis.value())});
}
} // namespace

// Work nobody waited for is the top-level "[async]" frame beside the latency, by the span that began it, each
// instant once (a child inside its parent's asynchronous part is its parent's already).
TEST(Profile, AsyncWorkIsItsOwnFrameBesideTheLatency) {
    test::ScratchDir dir;
    const std::string json = std::string(R"({"data":[{"traceID":"r1","spans":[)") + span("r1", "a1", nullptr, "A1", "pa", 0, 30000) + "," +
                             span("r1", "a2", "a1", "A2", "pa", 20000, 30000) + "," + span("r1", "b1", "a2", "B1", "pb", 40000, 5000) +
                             "," + span("r1", "a3", "a1", "A3", "pa", 35000, 5000) + "]," + kProcesses + "}]}";
    auto set = profileOf(dir, json, 1);
    ASSERT_TRUE(set) << set.message();
    const ProfileSet& p = set.value();
    std::map<std::string, std::pair<double, FrameKind>> byPath;  // path -> (total ms, kind)
    for (std::size_t f = 0; f < p.frames.size(); ++f) byPath[p.path(f)] = {p.meanTotalNs(0, f) / 1e6, p.frames[f].kind};
    EXPECT_NEAR(p.meanLatencyNs(0) / 1e6, 30.0, 1e-9);
    EXPECT_NEAR(byPath["A:A1"].first, 30.0, 1e-9);
    EXPECT_NEAR(byPath["A:A1;A:A2"].first, 10.0, 1e-9);  // its part before A1 ended
    ASSERT_GE(p.asyncFrame(), 0);
    EXPECT_EQ(p.path(static_cast<std::size_t>(p.asyncFrame())), "[async]");
    EXPECT_NEAR(byPath["[async]"].first, 25.0, 1e-9);  // A2 past A1's end (20) and A3 after it (5); B1 inside A2's
    EXPECT_NEAR(byPath["[async];A:A2"].first, 20.0, 1e-9);
    EXPECT_NEAR(byPath["[async];A:A3"].first, 5.0, 1e-9);
    EXPECT_EQ(byPath.count("[async];B:B1"), 0u);
    EXPECT_EQ(byPath["[async];A:A2"].second, FrameKind::Async);
}

TEST(Profile, ThePapersTwoRequestAggregation) {
    test::ScratchDir dir;
    const std::string processes = kProcesses;
    const std::string json = std::string(R"({"data":[{"traceID":"r1","spans":[)") + span("r1", "a1", nullptr, "A1", "pa", 0, 30000) + "," +
                             span("r1", "a2", "a1", "A2", "pa", 5000, 20000) + "," + span("r1", "b1", "a1", "B1", "pb", 5000, 10000) + "]," +
                             processes + R"(},{"traceID":"r2","spans":[)" + span("r2", "a1", nullptr, "A1", "pa", 1000000, 40000) + "," +
                             span("r2", "a2", "a1", "A2", "pa", 1005000, 10000) + "," + span("r2", "b1", "a1", "B1", "pb", 1005000, 30000) +
                             "]," + processes + "}]}";
    auto store = TraceStore::open(dir.file("paper.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store);
    ImportOptions import;
    import.inputs = {dir.write("paper.json", json)};
    auto imported = importTraces(*store.value(), import);
    ASSERT_TRUE(imported) << imported.message();
    ASSERT_TRUE(analyzeStore(*store.value(), AnalysisOptions{}));
    auto analysis = loadAnalysis(*store.value());
    ASSERT_TRUE(analysis);
    ASSERT_EQ(analysis->data.requestCount(), 2u);
    auto set = buildProfiles(analysis.value(), store.value().get(), {allRows(analysis.value())});
    ASSERT_TRUE(set) << set.message();
    const ProfileSet& p = set.value();
    std::map<std::string, std::pair<double, double>> byPath;  // path -> (total, self), ms
    for (std::size_t f = 0; f < p.frames.size(); ++f) byPath[p.path(f)] = {p.meanTotalNs(0, f) / 1e6, p.meanSelfNs(0, f) / 1e6};
    EXPECT_NEAR(p.meanLatencyNs(0) / 1e6, 35.0, 1e-9);
    EXPECT_NEAR(byPath["A:A1"].first, 35.0, 1e-9);
    EXPECT_NEAR(byPath["A:A1"].second, 10.0, 1e-9);
    EXPECT_NEAR(byPath["A:A1;A:A2"].first, 10.0, 1e-9);
    EXPECT_NEAR(byPath["A:A1;B:B1"].first, 15.0, 1e-9);
    // Each was on the critical path of one request of the two.
    for (std::size_t f = 0; f < p.frames.size(); ++f)
        if (p.frames[f].parent >= 0) { EXPECT_DOUBLE_EQ(p.onPathShare(0, f), 0.5) << p.path(f); }
}

namespace {
// Every frame's path with its mean self and total time and critical count, for comparing two profiles.
std::map<std::string, std::tuple<double, double, double>> frameSummary(const ProfileSet& p) {
    std::map<std::string, std::tuple<double, double, double>> out;
    for (std::size_t f = 0; f < p.frames.size(); ++f)
        out[p.path(f)] = {p.meanSelfNs(0, f), p.meanTotalNs(0, f), p.onPathShare(0, f)};
    return out;
}

// The cached paths read back equal the ones the pass computes, and a profile built from them equals one
// built by running the pass (issue 13: the profile reads what analyze cached).
void expectCacheMatchesThePass(const TraceStore& store, const InMemoryAnalysis& analysis, std::size_t minimumRows) {
    auto loaded = loadCachedCriticalPaths(store, analysis.data);
    ASSERT_TRUE(loaded) << loaded.message();
    const CachedCriticalPaths computed = computeCriticalPaths(analysis, 2);
    ASSERT_GE(analysis.data.requestCount(), minimumRows);
    for (std::size_t r = 0; r < analysis.data.requestCount(); ++r) {
        ASSERT_TRUE(loaded->has(r)) << r;
        CriticalPath a, b;
        loaded->get(r, a);
        computed.get(r, b);
        ASSERT_EQ(a.segments, b.segments) << r;
        ASSERT_EQ(a.latencyNs, b.latencyNs) << r;
        ASSERT_EQ(a.blindNs, b.blindNs) << r;
        ASSERT_EQ(a.blind.size(), b.blind.size()) << r;
        for (std::size_t i = 0; i < a.blind.size(); ++i) {
            EXPECT_EQ(a.blind[i].startNs, b.blind[i].startNs) << r;
            EXPECT_EQ(a.blind[i].durationNs, b.blind[i].durationNs) << r;
        }
        ASSERT_EQ(loaded->segmentCount[r], computed.segmentCount[r]) << r;
        ASSERT_EQ(a.async.size(), b.async.size()) << r;
        for (std::size_t i = 0; i < a.async.size(); ++i) {
            EXPECT_EQ(a.async[i].span, b.async[i].span) << r;
            EXPECT_EQ(a.async[i].endNs - a.async[i].startNs, b.async[i].endNs - b.async[i].startNs) << r;
        }
    }
    const auto rows = allRows(analysis);
    ProfileOptions withCache;
    withCache.paths = &loaded.value();
    auto fromPass = buildProfiles(analysis, &store, {rows});
    auto fromCache = buildProfiles(analysis, &store, {rows}, withCache);
    ASSERT_TRUE(fromPass && fromCache);
    EXPECT_EQ(fromCache->cachedPaths, static_cast<std::int64_t>(rows.size()));  // every request read its path
    EXPECT_EQ(fromPass->cachedPaths, 0);
    EXPECT_EQ(fromCache->meanLatencyNs(0), fromPass->meanLatencyNs(0));
    EXPECT_EQ(frameSummary(fromCache.value()), frameSummary(fromPass.value()));
}
} // namespace

TEST(Profile, CachedCriticalPathsGiveTheSameProfile) {
    test::ScratchDir dir;
    auto a = analysedPageLoads(dir, 600, 5);
    expectCacheMatchesThePass(*a.store, a.analysis, 600);
}

TEST(Profile, CachedCriticalPathsGiveTheSameProfileOfSpans) {
    if (!test::haveOnlineBoutique()) GTEST_SKIP() << "no " << test::kOnlineBoutique;
    test::ScratchDir dir;
    auto store = test::onlineBoutiqueStore(dir.file("ob.tldb"), {{"normal", {test::kObNormalMinute}}}, true);
    ASSERT_TRUE(store);
    auto analysis = loadAnalysis(*store);
    ASSERT_TRUE(analysis) << analysis.message();
    expectCacheMatchesThePass(*store, analysis.value(), 100);
}

// One model of a call: both legs of a call's hop (the trip out and the trip back) are one frame named
// `caller → callee` under the client span, the name the breakdown's category gives the hop. A1 (service A)
// waits 30 ms for B1 (service B, 5..20 ms): 5 ms out, 10 ms back, 15 ms of B's own work.
TEST(Profile, BothLegsOfACallAreOneCallerToCalleeFrame) {
    test::ScratchDir dir;
    const std::string json = std::string(R"({"data":[{"traceID":"r1","spans":[)") + span("r1", "a1", nullptr, "A1", "pa", 0, 30000) + "," +
                             span("r1", "b1", "a1", "B1", "pb", 5000, 15000) + "]," + kProcesses + "}]}";
    auto set = profileOf(dir, json, 1);
    ASSERT_TRUE(set) << set.message();
    const ProfileSet& p = set.value();
    std::map<std::string, std::pair<double, FrameKind>> byPath;  // path -> (total ms, kind)
    for (std::size_t f = 0; f < p.frames.size(); ++f) byPath[p.path(f)] = {p.meanTotalNs(0, f) / 1e6, p.frames[f].kind};
    EXPECT_EQ(byPath.count("A:A1;B \xE2\x86\x92 A"), 0u);
    ASSERT_EQ(byPath.count("A:A1;A \xE2\x86\x92 B"), 1u);
    EXPECT_NEAR(byPath["A:A1;A \xE2\x86\x92 B"].first, 15.0, 1e-9);
    EXPECT_EQ(byPath["A:A1;A \xE2\x86\x92 B"].second, FrameKind::Network);
    EXPECT_NEAR(byPath["A:A1;B:B1"].first, 15.0, 1e-9);
    for (std::size_t f = 0; f < p.frames.size(); ++f) {
        if (p.frames[f].kind == FrameKind::Network) {
            EXPECT_EQ(p.frames[f].services, (std::vector<std::string>{"A", "B"}));
        }
    }
}

// On Online Boutique every hop frame is named caller first: under the client span of its caller (its parent
// frame's service) and as the breakdown names its category, never as the trip back ("currencyservice → frontend").
TEST(Profile, OnlineBoutiqueHopsAreNamedCallerToCallee) {
    if (!test::haveOnlineBoutique()) GTEST_SKIP() << "no " << test::kOnlineBoutique;
    test::ScratchDir dir;
    auto store = test::onlineBoutiqueStore(dir.file("ob.tldb"), {{"normal", {test::kObNormalMinute}}}, true);
    ASSERT_TRUE(store);
    auto analysis = loadAnalysis(*store);
    ASSERT_TRUE(analysis) << analysis.message();
    auto set = buildProfiles(analysis.value(), store.get(), {allRows(analysis.value())});
    ASSERT_TRUE(set) << set.message();
    const ProfileSet& p = set.value();
    const std::string arrow = " \xE2\x86\x92 ";
    const TypeCategories typed = categorizeSegmentTypes(analysis->data, CategoryRules::defaults());
    const std::set<std::string> categories(typed.categories.begin(), typed.categories.end());
    std::set<std::string> hops;
    for (std::size_t f = 0; f < p.frames.size(); ++f) {
        const ProfileFrameInfo& info = p.frames[f];
        if (info.kind != FrameKind::Network) continue;
        hops.insert(info.name);
        ASSERT_EQ(info.services.size(), 2u) << info.name;
        EXPECT_EQ(info.name, info.services[0] + arrow + info.services[1]);
        EXPECT_EQ(categories.count(info.name), 1u) << info.name << " is no category of the breakdown";
        ASSERT_GE(info.parent, 0) << info.name;
        const ProfileFrameInfo& caller = p.frames[static_cast<std::size_t>(info.parent)];
        ASSERT_FALSE(caller.services.empty()) << info.name;
        EXPECT_EQ(hostRole(caller.services[0]), info.services[0]) << p.path(f);
    }
    EXPECT_EQ(hops.count("frontend" + arrow + "currencyservice"), 1u);
    EXPECT_EQ(hops.count("currencyservice" + arrow + "frontend"), 0u);
}

// The paper's Table 3 on a textbook case: every request's one segment takes 1 ms or 11 ms, each with
// probability 1/2 (σ = 5 ms), so each of the profile's frames (category, task, segment: each the whole
// latency) moves between two random profiles of n requests by a normal difference of standard deviation
// 5 ms · √(2/n); the expected number of frames past a threshold t is frames · P(|Z| > t / that).
TEST(ProfileAaTable, FramesPastAThresholdAsTheCentralLimitTheoremPredicts) {
    enum : std::uint32_t { Task = 1, S, E, Host };
    TraceDataBuilder b;
    for (auto [id, text] : {std::pair{Task, "render"}, {S, "S"}, {E, "E"}, {Host, "web-1"}}) b.setLabel(id, text);
    std::uint64_t x = 7;
    auto coin = [&] {  // SplitMix64
        std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return ((z ^ (z >> 31)) & 1) != 0;
    };
    const int requests = 4000;
    for (int r = 0; r < requests; ++r) {
        b.beginRequest(RequestId(static_cast<std::uint32_t>(r + 1)));
        const TimeNs start = TimeNs(r) * 100'000'000;
        b.addEvent(Task, S, Host, start);
        b.addEvent(Task, E, Host, start + (coin() ? 11'000'000 : 1'000'000));
    }
    auto analysis = analyzeInMemory(b.finish(), AnalysisOptions{});
    ASSERT_TRUE(analysis) << analysis.message();
    const std::vector<std::uint32_t> rows = allRows(analysis.value());
    auto whole = buildProfiles(analysis.value(), nullptr, {rows});
    ASSERT_TRUE(whole) << whole.message();
    const double frames = double(whole->frames.size());
    ASSERT_GE(frames, 2);
    for (std::size_t f = 0; f < whole->frames.size(); ++f) ASSERT_NEAR(whole->meanTotalNs(0, f), whole->meanLatencyNs(0), 1);

    AaTableOptions table;
    table.sizes = {100};
    table.thresholdsNs = {500'000, 1'000'000, 2'000'000};
    table.repeats = 200;
    auto cells = aaFalsePositiveTable(analysis.value(), nullptr, rows, table);
    ASSERT_TRUE(cells) << cells.message();
    ASSERT_EQ(cells->size(), 3u);
    const double sd = 5.0 * std::sqrt(2.0 / 100);  // ms
    for (const AaTableCell& c : cells.value()) {
        const double t = double(c.thresholdNs) / 1e6;
        const double p = std::erfc(t / sd / std::sqrt(2.0));
        const double expected = frames * p;
        const double sdOfMean = frames * std::sqrt(p * (1 - p) / table.repeats);
        EXPECT_NEAR(c.meanFrames, expected, 4 * sdOfMean + 0.01) << "threshold " << t << " ms";
        EXPECT_LE(c.ci95Low, c.meanFrames);
        EXPECT_GE(c.ci95High, c.meanFrames);
        EXPECT_EQ(c.size, 100u);
    }
    // Fewer frames move as the threshold grows.
    EXPECT_GT(cells.value()[0].meanFrames, cells.value()[1].meanFrames);
    EXPECT_GT(cells.value()[1].meanFrames, cells.value()[2].meanFrames);
    // A size the rows cannot give twice is refused, naming it.
    table.sizes = {3000};
    auto refused = aaFalsePositiveTable(analysis.value(), nullptr, rows, table);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.message().find("3000"), std::string::npos) << refused.message();
    EXPECT_EQ(defaultAaSizes(4000), (std::vector<std::size_t>{100, 1000}));
    EXPECT_EQ(defaultAaSizes(150), (std::vector<std::size_t>{75}));
}

// A profile's sample: at most n distinct rows of those given, in row order, the same for the same seed.
TEST(ProfileSelection, SampleIsASortedSubsetOfAtMostNRowsFixedBySeed) {
    std::vector<std::uint32_t> rows;
    for (std::uint32_t r = 0; r < 1000; r += 3) rows.push_back(r);
    const auto a = sampleRows(rows, 50, 9), b = sampleRows(rows, 50, 9), c = sampleRows(rows, 50, 10);
    ASSERT_EQ(a.size(), 50u);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
    EXPECT_EQ(std::adjacent_find(a.begin(), a.end()), a.end());
    for (auto r : a) EXPECT_TRUE(std::binary_search(rows.begin(), rows.end(), r));
    EXPECT_EQ(sampleRows(rows, 0, 9), rows);
    EXPECT_EQ(sampleRows(rows, 5000, 9), rows);
}
