// A span file read into memory (readSpanFiles) against the same file imported into a new database and read
// back: the same events, links and spans, request by request, and the same critical path, slack and span
// parts for every request once each is analysed (the critical path also without the model, as
// `critical-path FILE` computes it), on every real span file and on generated traces.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "TestUtil.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/import/Import.h"
#include "import/spans/SpanStager.h"
#include "tracelight/import/TraceFileContents.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

using namespace tracelight;

namespace {

const std::string kRealdata = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/";

// Every request's events (by label text), links and spans must agree, and so must each request's analysis.
void expectSameAsDatabase(const std::string& file, std::size_t maxRequests = 400) {
    SCOPED_TRACE(file);
    test::ScratchDir dir;
    auto store = std::move(TraceStore::open(dir.file("x.tldb"), TraceStore::Mode::Create).value());
    ImportOptions options;
    options.inputs = {file};
    ASSERT_TRUE(importTraces(*store, options));
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    auto stored = loadTraceData(*store);
    ASSERT_TRUE(stored) << stored.message();

    auto contents = readSpanFiles(options);
    ASSERT_TRUE(contents) << contents.message();
    const TraceData& mem = contents->data;
    const TraceData& db = stored.value();
    ASSERT_EQ(mem.requestCount(), db.requestCount());
    ASSERT_EQ(contents->requestNames.size(), mem.requestCount());
    for (std::size_t r = 0; r < mem.requestCount(); ++r) {
        ASSERT_EQ(requestName(*store, db.requestIds[r]).value_or(""), contents->requestNames[r]) << "request " << r;
        const auto a = mem.eventsOf(r), b = db.eventsOf(r);
        ASSERT_EQ(a.size(), b.size()) << contents->requestNames[r];
        for (std::size_t e = 0; e < a.size(); ++e) {
            ASSERT_EQ(mem.label(a[e].task), db.label(b[e].task)) << contents->requestNames[r] << " event " << e;
            ASSERT_EQ(mem.label(a[e].event), db.label(b[e].event)) << contents->requestNames[r] << " event " << e;
            ASSERT_EQ(mem.label(mem.hostLabels[a[e].host.value].value), db.label(db.hostLabels[b[e].host.value].value));
            ASSERT_EQ(a[e].localNs, b[e].localNs);
        }
        const auto la = mem.linksOf(r), lb = db.linksOf(r);
        ASSERT_EQ(la.size(), lb.size());
        for (std::size_t l = 0; l < la.size(); ++l) EXPECT_TRUE(la[l].from == lb[l].from && la[l].to == lb[l].to);
        const auto sa = mem.spansOf(r), sb = db.spansOf(r);
        ASSERT_EQ(sa.size(), sb.size());
        for (std::size_t s = 0; s < sa.size(); ++s)
            EXPECT_TRUE(sa[s].parent == sb[s].parent && sa[s].startEvent == sb[s].startEvent && sa[s].endEvent == sb[s].endEvent &&
                        sa[s].wait == sb[s].wait);
    }

    // Each request analysed in memory gives what the database cached.
    const std::vector<std::string> names = contents->requestNames;
    std::vector<std::vector<std::string>> spanIds = std::move(contents->spanIds);
    auto analysis = analyzeInMemory(std::move(contents->data), AnalysisOptions{});
    ASSERT_TRUE(analysis) << analysis.message();
    const CategoryRules rules = CategoryRules::defaults();
    for (std::size_t r = 0; r < names.size() && r < maxRequests; ++r) {
        SCOPED_TRACE(names[r]);
        auto fromStore = loadRequestAnalysis(*store, names[r]);
        ASSERT_TRUE(fromStore) << fromStore.message();
        auto inMemory = requestAnalysis(analysis.value(), r, names[r], spanIds[r]);
        ASSERT_TRUE(inMemory) << inMemory.message();
        const RequestAnalysis& x = inMemory.value();
        const RequestAnalysis& y = fromStore.value();
        // The critical path alone, without the model, where a span tree gives it: the same path and segments.
        std::vector<std::string> ids = spanIds[r];
        if (auto pathOnly = requestCriticalPathWithoutModel(analysis->data, AnalysisOptions{}, r, names[r], std::move(ids))) {
            ASSERT_TRUE(*pathOnly) << pathOnly->message();
            const RequestAnalysis& p = pathOnly->value();
            EXPECT_TRUE(p.startNs == y.startNs && p.latencyNs == y.latencyNs && p.blindNs == y.blindNs);
            EXPECT_EQ(p.criticalPath, y.criticalPath);
            EXPECT_EQ(p.entrySpan, y.entrySpan);
            EXPECT_EQ(p.spanIds, y.spanIds);
            ASSERT_EQ(p.segments.size(), y.segments.size());
            for (std::size_t s = 0; s < p.segments.size(); ++s)
                ASSERT_TRUE(p.segments[s].task == y.segments[s].task && p.segments[s].startEvent == y.segments[s].startEvent &&
                            p.segments[s].endEvent == y.segments[s].endEvent && p.segments[s].startNs == y.segments[s].startNs &&
                            p.segments[s].durationNs == y.segments[s].durationNs)
                    << "segment " << s;
            ASSERT_EQ(p.clips.size(), y.clips.size());
            for (std::size_t c = 0; c < p.clips.size(); ++c)
                EXPECT_TRUE(p.clips[c].entry == y.clips[c].entry && p.clips[c].startNs == y.clips[c].startNs && p.clips[c].endNs == y.clips[c].endNs);
            ASSERT_EQ(p.async.size(), y.async.size());
            for (std::size_t c = 0; c < p.async.size(); ++c)
                EXPECT_TRUE(p.async[c].span == y.async[c].span && p.async[c].startNs == y.async[c].startNs && p.async[c].endNs == y.async[c].endNs);
            ASSERT_EQ(p.blind.size(), y.blind.size());
            for (std::size_t b = 0; b < p.blind.size(); ++b)
                EXPECT_TRUE(p.blind[b].startNs == y.blind[b].startNs && p.blind[b].durationNs == y.blind[b].durationNs);
        } else {
            EXPECT_TRUE(x.entrySpan.empty() && x.async.empty()) << "the span tree's path, but not without the model";
        }
        EXPECT_EQ(x.startNs, y.startNs);
        EXPECT_EQ(x.latencyNs, y.latencyNs);
        EXPECT_EQ(x.blindNs, y.blindNs);
        ASSERT_EQ(x.segments.size(), y.segments.size());
        for (std::size_t s = 0; s < x.segments.size(); ++s) {
            const RequestSegment &p = x.segments[s], &q = y.segments[s];
            ASSERT_TRUE(p.task == q.task && p.startEvent == q.startEvent && p.endEvent == q.endEvent && p.startNs == q.startNs &&
                        p.durationNs == q.durationNs && p.slackNs == q.slackNs && p.network == q.network)
                << "segment " << s << ": " << p.task << " " << p.startEvent << "->" << p.endEvent;
        }
        EXPECT_EQ(x.criticalPath, y.criticalPath);
        EXPECT_EQ(x.entrySpan, y.entrySpan);
        EXPECT_EQ(x.spanIds, y.spanIds);
        ASSERT_EQ(x.clips.size(), y.clips.size());
        for (std::size_t c = 0; c < x.clips.size(); ++c) EXPECT_TRUE(x.clips[c].startNs == y.clips[c].startNs && x.clips[c].endNs == y.clips[c].endNs);
        ASSERT_EQ(x.async.size(), y.async.size());
        for (std::size_t c = 0; c < x.async.size(); ++c)
            EXPECT_TRUE(x.async[c].span == y.async[c].span && x.async[c].startNs == y.async[c].startNs && x.async[c].endNs == y.async[c].endNs);
        ASSERT_EQ(x.blind.size(), y.blind.size());
        if (!x.spanIds.empty()) {
            auto categories = requestSegmentCategories(*store, names[r], loadCategoryRules(*store));
            ASSERT_TRUE(categories);
            EXPECT_EQ(requestSegmentCategories(analysis->data, r, rules), categories.value());
        }
    }
}

std::vector<std::string> realSpanFiles() {
    std::vector<std::string> files;
    for (const char* folder : {"jaeger", "zipkin", "otlp"}) {
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(kRealdata + folder, ec)) {
            const std::string path = entry.path().string();
            if (entry.is_regular_file() && (path.ends_with(".json") || path.ends_with(".json.txt"))) files.push_back(path);
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

TEST(TraceFileContents, EveryRealJaegerZipkinAndOtlpFileReadsAsItsDatabaseDoes) {
    const auto files = realSpanFiles();
    if (files.empty()) GTEST_SKIP() << "no " << kRealdata;
    int read = 0;
    for (const auto& file : files) {
        // A file the import refuses is no comparison (its error is the import's own test).
        ImportOptions options;
        options.inputs = {file};
        test::ScratchDir dir;
        auto probe = std::move(TraceStore::open(dir.file("p.tldb"), TraceStore::Mode::Create).value());
        if (!importTraces(*probe, options)) {
            EXPECT_FALSE(readSpanFiles(options)) << file;
            continue;
        }
        expectSameAsDatabase(file);
        ++read;
    }
    EXPECT_GE(read, 20);
}

TEST(TraceFileContents, OnlineBoutiqueMinuteReadsAsItsDatabaseDoes) {
    const std::string minute = kRealdata + "nezha-onlineboutique/normal/2022-08-23_17_00_trace.csv";
    if (!std::filesystem::exists(minute)) GTEST_SKIP() << "no " << minute;
    expectSameAsDatabase(minute, 120);
}

// A trace whose names repeat (numbered occurrences), with span events, a FOLLOWS_FROM child and a server
// taken into its client's task: built so that every part of the derivation is used.
TEST(TraceFileContents, GeneratedTraceWithRepeatsEventsAndDetachedWorkReadsAsItsDatabaseDoes) {
    test::ScratchDir dir;
    const std::string file = dir.file("t.json");
    std::ofstream out(file);
    out << R"({"data":[{"traceID":"t1","processes":{"p1":{"serviceName":"front"},"p2":{"serviceName":"back"}},"spans":[)"
        << R"({"traceID":"t1","spanID":"a","operationName":"GET /","processID":"p1","startTime":1000,"duration":900,"references":[],)"
        << R"("tags":[{"key":"span.kind","type":"string","value":"server"}],"logs":[{"timestamp":1100,"fields":[{"key":"event","value":"cache miss"}]},)"
        << R"({"timestamp":1200,"fields":[{"key":"event","value":"cache miss"}]}]},)";
    for (int i = 0; i < 3; ++i) {
        const std::string c = "c" + std::to_string(i), s = "s" + std::to_string(i);
        const int start = 1300 + 150 * i;
        out << R"({"traceID":"t1","spanID":")" << c << R"(","operationName":"call","processID":"p1","startTime":)" << start
            << R"(,"duration":120,"references":[{"refType":"CHILD_OF","traceID":"t1","spanID":"a"}],"tags":[{"key":"span.kind","type":"string","value":"client"}]},)"
            << R"({"traceID":"t1","spanID":")" << s << R"(","operationName":"serve","processID":"p2","startTime":)" << start + 10
            << R"(,"duration":100,"references":[{"refType":"CHILD_OF","traceID":"t1","spanID":")" << c
            << R"("}],"tags":[{"key":"span.kind","type":"string","value":"server"}]},)";
    }
    out << R"({"traceID":"t1","spanID":"f","operationName":"later","processID":"p2","startTime":1850,"duration":400,)"
        << R"("references":[{"refType":"FOLLOWS_FROM","traceID":"t1","spanID":"a"}],"tags":[]})";
    out << "]}]}";
    out.close();
    expectSameAsDatabase(file);
}

// Span events whose names are apart in the trace but one label once numbered ("retry" twice is "retry" and
// "retry#2", which a third event names as text; "call back:serve#2" is a call's name): the file read into
// memory names them as the database's read does.
TEST(TraceFileContents, SpanEventNamesThatMeetOnceNumberedReadAsTheDatabaseDoes) {
    test::ScratchDir dir;
    const std::string file = dir.file("t.json");
    std::ofstream out(file);
    const auto log = [](int at, const char* name) {
        return R"({"timestamp":)" + std::to_string(at) + R"(,"fields":[{"key":"event","value":")" + name + R"("}]})";
    };
    out << R"({"data":[{"traceID":"t1","processes":{"p1":{"serviceName":"front"},"p2":{"serviceName":"back"}},"spans":[)"
        << R"({"traceID":"t1","spanID":"a","operationName":"GET /","processID":"p1","startTime":1000,"duration":900,"references":[],"logs":[)"
        << log(1100, "retry") << "," << log(1150, "retry") << "," << log(1200, "retry#2") << "," << log(1250, "call back:serve#2") << "]},";
    for (int i = 0; i < 2; ++i)
        out << R"({"traceID":"t1","spanID":"s)" << i << R"(","operationName":"serve","processID":"p2","startTime":)" << 1300 + 200 * i
            << R"(,"duration":100,"references":[{"refType":"CHILD_OF","traceID":"t1","spanID":"a"}]})" << (i ? "" : ",");
    out << "]}]}";
    out.close();
    expectSameAsDatabase(file);
}

TEST(TraceFileContents, AnEventLogIsNotReadIntoMemory) {
    test::ScratchDir dir;
    const std::string file = dir.file("e.csv");
    std::ofstream(file) << "request,host,task,event,ts_us\nr1,h,t,start,1\nr1,h,t,end,2\n";
    ImportOptions options;
    options.inputs = {file};
    auto contents = readSpanFiles(options);
    ASSERT_FALSE(contents);
    EXPECT_NE(contents.message().find("not span data"), std::string::npos) << contents.message();
    EXPECT_TRUE(needsDatabase(contents.status())) << contents.message();
}

TEST(TraceFileContents, SpansOverTheMemoryBudgetAreRefusedSoTheCallerCanImportThem) {
    const std::string minute = kRealdata + "nezha-onlineboutique/normal/2022-08-23_17_00_trace.csv";
    if (!std::filesystem::exists(minute)) GTEST_SKIP() << "no " << minute;
    ImportOptions options;
    options.inputs = {minute};
    options.spanMemoryBudget = 64 * 1024;
    auto contents = readSpanFiles(options);
    ASSERT_FALSE(contents);
    EXPECT_TRUE(needsDatabase(contents.status())) << contents.message();
    EXPECT_NE(contents.message().find(kSpansOverMemoryBudget), std::string::npos) << contents.message();
}
