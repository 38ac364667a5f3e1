// Span formats: the span-to-event mapping, the real sample files, and malformed variants.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "TestUtil.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/import/Import.h"
#include "tracelight/base/Json.h"
#include "tracelight/import/spans/Spans.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/SpanReads.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

namespace {

const std::string kRealData = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/";

// The real trace files sit in ../shared beside the checkout (as in CI); a bare clone elsewhere skips these.
#define REQUIRE_REAL_DATA()                                                                       \
    if (!std::filesystem::is_directory(kRealData)) GTEST_SKIP() << "no " << kRealData << " beside this checkout"

RawSpan span(const char* id, const char* parent, const char* service, const char* op, TimeNs start, TimeNs end) {
    RawSpan s;
    s.traceId = "t";
    s.spanId = id;
    s.parentId = parent;
    s.service = service;
    s.operation = op;
    s.startNs = start;
    s.endNs = end;
    return s;
}

std::vector<std::string> eventsOfTask(const AssembledTrace& t, const std::string& task) {
    std::vector<std::pair<std::int64_t, std::string>> seqAndName;
    for (const auto& e : t.events)
        if (t.text(e.task) == task) seqAndName.emplace_back(e.seq, t.text(e.event) + "@" + t.names[e.host]);
    std::sort(seqAndName.begin(), seqAndName.end());
    std::vector<std::string> out;
    for (auto& [seq, name] : seqAndName) out.push_back(name);
    return out;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct Imported {
    test::ScratchDir dir;
    std::unique_ptr<TraceStore> store;
    Result<ImportSummary> summary = Status::error("not run");

    explicit Imported(const std::vector<std::string>& inputs, InputFormat format = InputFormat::Auto) {
        auto s = TraceStore::open(dir.file("s.tldb"), TraceStore::Mode::Create);
        store = std::move(s.value());
        ImportOptions options;
        options.inputs = inputs;
        options.format = format;
        options.period = "p";
        summary = importTraces(*store, options);
    }
    // Of what the store's reads give: the event model of a span request is derived from its spans.
    std::int64_t scalar(const std::string& sql) const {
        test::StoreAccess::materializeEventModel(*store);
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(test::StoreAccess::db(*store), sql.c_str(), -1, &st, nullptr);
        std::int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
        sqlite3_finalize(st);
        return v;
    }
    // Durations of every span as the store holds them: start->end, and serve->served for joined servers.
    std::multiset<std::int64_t> spanDurations() const {
        std::multiset<std::int64_t> out;
        test::StoreAccess::materializeEventModel(*store);
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(test::StoreAccess::db(*store),
                           "SELECT s.request_id, s.task_id, e.text, s.ts_ns FROM events s JOIN label_text e ON e.id=s.event_id "
                           "WHERE e.text IN ('start','end') OR e.text LIKE 'serve %' OR e.text LIKE 'served %' "
                           "ORDER BY s.request_id, s.task_id, s.ord",
                           -1, &st, nullptr);
        std::map<std::string, std::int64_t> open;
        while (sqlite3_step(st) == SQLITE_ROW) {
            const std::string key = std::to_string(sqlite3_column_int64(st, 0)) + "/" + std::to_string(sqlite3_column_int64(st, 1));
            const std::string name = reinterpret_cast<const char*>(sqlite3_column_text(st, 2));
            const std::int64_t ts = sqlite3_column_int64(st, 3);
            // "serve X" opens what "served X" closes; "start" what "end" closes.
            if (name == "start") open[key] = ts;
            else if (name == "end") out.insert(ts - open[key]);
            else if (name.rfind("serve ", 0) == 0) open[key + name.substr(6)] = ts;
            else out.insert(ts - open[key + name.substr(7)]);
        }
        sqlite3_finalize(st);
        return out;
    }
};

} // namespace

TEST(SpanAssembler, ParentGetsCallAndReturnEventsAndLinks) {
    const auto t = assembleTrace({span("1", "", "web", "GET", 0, 100), span("2", "1", "web", "render", 10, 40),
                                  span("3", "1", "web", "render", 50, 90)});
    EXPECT_TRUE(t.warnings.empty());
    EXPECT_EQ(eventsOfTask(t, "web:GET"), (std::vector<std::string>{"start@web", "call web:render@web", "return web:render@web",
                                                                     "call web:render#2@web", "return web:render#2@web", "end@web"}));
    EXPECT_EQ(eventsOfTask(t, "web:render#2"), (std::vector<std::string>{"start@web", "end@web"}));
    ASSERT_EQ(t.links.size(), 4u);
    EXPECT_EQ(t.text(t.links[0].fromTask), "web:GET");
    EXPECT_EQ(t.text(t.links[0].toTask), "web:render");
    EXPECT_EQ(t.links[0].toSeq, 1);
}

TEST(SpanAssembler, ClientAndRemoteServerBecomeOneMovingTask) {
    RawSpan client = span("2", "1", "frontend", "Get", 10, 60);
    client.attributes.emplace_back("span.kind", "client");
    const auto t = assembleTrace({span("1", "", "frontend", "Recv", 0, 100), client, span("3", "2", "cart", "grpc.Get", 15, 50),
                                  span("4", "3", "cart", "db", 20, 30)});
    EXPECT_EQ(eventsOfTask(t, "frontend:Get"),
              (std::vector<std::string>{"start@frontend", "serve cart:grpc.Get@cart", "call cart:db@cart", "return cart:db@cart",
                                        "served cart:grpc.Get@cart", "end@frontend"}));
    EXPECT_TRUE(eventsOfTask(t, "cart:grpc.Get").empty()) << "the server half joined its client's task";
    EXPECT_EQ(eventsOfTask(t, "cart:db"), (std::vector<std::string>{"start@cart", "end@cart"}));
}

TEST(SpanAssembler, BadSpansAreRepairedOrDroppedWithWarnings) {
    RawSpan noTime = span("7", "1", "s", "x", 0, 0);
    noTime.hasTimestamp = false;
    const auto t = assembleTrace({span("1", "", "s", "root", 0, 100), span("2", "9", "s", "orphan", 10, 20),  // missing parent
                                  span("3", "1", "s", "dup", 10, 20), span("3", "1", "s", "dup", 30, 40),   // duplicate id
                                  span("4", "5", "s", "a", 10, 20), span("5", "4", "s", "b", 10, 20),        // cycle
                                  span("6", "1", "s", "backwards", 50, 40),                                   // negative
                                  span("8", "1", "s", "far", TimeNs{1000000000000000}, TimeNs{1000000000000005}),  // 11.6 days away
                                  noTime});
    std::string all;
    for (const auto& w : t.warnings) all += w + "\n";
    for (const char* expected : {"missing parent 9", "duplicate span id 3", "parent cycle", "ends before it starts",
                                 "far outside", "no timestamp"})
        EXPECT_NE(all.find(expected), std::string::npos) << expected << " not in:\n" << all;
    // Everything that could be placed is still there; nothing crashed.
    EXPECT_FALSE(eventsOfTask(t, "s:orphan").empty());
    EXPECT_FALSE(eventsOfTask(t, "s:a").empty());
    EXPECT_EQ(eventsOfTask(t, "s:far").size(), 0u);
}

TEST(SpanAssembler, ServiceFromPodName) {
    EXPECT_EQ(serviceFromPodName("frontend-579b9bff58-t2dbm"), "frontend");
    EXPECT_EQ(serviceFromPodName("redis-cart-5d5f9c7d8b-2xk9p"), "redis-cart");
    EXPECT_EQ(serviceFromPodName("single"), "single");
}

TEST(SpanImport, RecognisesEveryFormatFromContent) {
    REQUIRE_REAL_DATA();
    EXPECT_EQ(detectInputFormat(kRealData + "otlp/opentelemetry-proto_examples_trace.json").value(), InputFormat::OtlpJson);
    EXPECT_EQ(detectInputFormat(kRealData + "otlp/otlp2jaeger-multi-in.json.txt").value(), InputFormat::OtlpJson);
    EXPECT_EQ(detectInputFormat(kRealData + "jaeger/TraceGraph__testTrace.json").value(), InputFormat::JaegerJson);
    EXPECT_EQ(detectInputFormat(kRealData + "jaeger/TraceFlamegraph__testTrace.json").value(), InputFormat::JaegerJson);
    EXPECT_EQ(detectInputFormat(kRealData + "zipkin/yelp.json").value(), InputFormat::ZipkinJson);
    EXPECT_EQ(detectInputFormat(kRealData + "nezha-onlineboutique/normal/2022-08-23_17_00_trace.csv").value(), InputFormat::SpansCsv);
}

// Every span of every real file comes back with its duration; each resolved parent link is kept.
TEST(SpanImport, RealFilesRoundTripSpansDurationsAndLinks) {
    REQUIRE_REAL_DATA();
    struct Case { std::string file; std::int64_t spans; };
    const std::vector<Case> cases = {{"jaeger/TraceGraph__testTrace.json", 0},
                                     {"jaeger/TraceTimelineViewer__genaiTestTrace.json", 0},
                                     {"zipkin/yelp.json", 0},
                                     {"zipkin/smartthings-oauth-authorization.json", 0},
                                     {"otlp/otlp2jaeger-multi-in-combined.json", 0},
                                     {"otlp/opentelemetry-proto_examples_trace.json", 0}};
    for (const auto& c : cases) {
        // Independent count and durations (in ns, exactly) from the file itself.
        JsonValue doc;
        ASSERT_TRUE(JsonValue::parse(readFile(kRealData + c.file), doc, nullptr, nullptr)) << c.file;
        std::multiset<std::int64_t> fileDurations;
        std::int64_t withParent = 0;
        std::set<std::string> fileKeys;  // attribute keys the file gives its spans
        auto jaegerSpans = [&](const JsonValue& trace) {
            for (const auto& s : trace.find("spans")->array()) {
                fileDurations.insert(1000 * static_cast<std::int64_t>(s.find("duration")->number()));
                withParent += !s.find("references")->array().empty();
                for (const auto& t : s.find("tags")->array())
                    if (!(t.find("value")->isString() && t.find("value")->string().empty())) fileKeys.insert(t.find("key")->string());
            }
        };
        if (doc.isObject() && doc.find("data")) for (const auto& t : doc.find("data")->array()) jaegerSpans(t);
        else if (doc.isObject() && doc.find("spans")) jaegerSpans(doc);
        else if (doc.isArray()) {
            // Zipkin may report one span in pieces (same id and shared flag): one span over their union.
            std::map<std::string, std::pair<double, double>> extent;
            for (const auto& s : doc.array()) {
                const std::string key = s.find("id")->string() + (s.find("shared") && s.find("shared")->boolean() ? "#s" : "");
                const double t = s.find("timestamp")->number(), d = s.find("duration") ? s.find("duration")->number() : 0;
                if (const JsonValue* tags = s.find("tags"))
                    for (const auto& [k, v] : tags->object())
                        if (!(v.isString() && v.string().empty())) fileKeys.insert(k);  // empty values are absent
                auto [it, fresh] = extent.try_emplace(key, t, t + d);
                it->second = {std::min(it->second.first, t), std::max(it->second.second, t + d)};
                if (fresh) withParent += s.find("parentId") != nullptr || (s.find("shared") && s.find("shared")->boolean());
            }
            for (const auto& [key, e] : extent) fileDurations.insert(1000 * std::llround(e.second - e.first));
        }
        else for (const auto& rs : doc.find("resourceSpans")->array())
                for (const auto& ss : rs.find("scopeSpans")->array())
                    for (const auto& s : ss.find("spans")->array()) {
                        fileDurations.insert(std::stoll(s.find("endTimeUnixNano")->string()) -
                                             std::stoll(s.find("startTimeUnixNano")->string()));
                        withParent += s.find("parentSpanId") && !s.find("parentSpanId")->string().empty();
                        if (const JsonValue* attrs = s.find("attributes"))
                            for (const auto& a : attrs->array()) fileKeys.insert(a.find("key")->string());
                    }
        Imported imported({kRealData + c.file});
        ASSERT_TRUE(imported.summary) << c.file << ": " << imported.summary.message();
        EXPECT_GE(imported.summary->spans, static_cast<std::int64_t>(fileDurations.size())) << c.file;
        const auto stored = imported.spanDurations();
        // Spans dropped with a warning (duplicates, no timestamp) are the only ones allowed to be missing.
        EXPECT_LE(static_cast<std::int64_t>(fileDurations.size() - stored.size()), imported.summary->warnings) << c.file;
        std::size_t matched = 0;
        for (auto d : stored) matched += fileDurations.count(d) > 0;
        EXPECT_EQ(matched, stored.size()) << c.file << ": a duration changed";
        // Every attribute key of the file is in the store (as a request or an event attribute).
        for (const auto& key : fileKeys)
            EXPECT_EQ(imported.scalar("SELECT COUNT(*) FROM labels l JOIN label_roles r ON r.label_id=l.id AND r.role=4 WHERE l.text='" + key + "'"), 1)
                << c.file << ": attribute " << key;
        EXPECT_FALSE(fileKeys.empty() && c.file.find("zipkin/yelp") != std::string::npos);
        // Links: up to two per parent/child pair (call, and return unless the child outlives its parent);
        // pairs that became one moving task need none.
        const std::int64_t links = imported.scalar("SELECT COUNT(*) FROM causal_links");
        const std::int64_t joined = imported.scalar("SELECT COUNT(*) FROM events e JOIN label_text l ON l.id=e.event_id WHERE l.text LIKE 'serve %'");
        EXPECT_LE(links, 2 * withParent) << c.file;
        EXPECT_GE(links + joined + imported.summary->warnings, withParent) << c.file;
    }
}

TEST(SpanImport, SpanTableWithItsMappingAndPeriods) {
    REQUIRE_REAL_DATA();
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("n.tldb"), TraceStore::Mode::Create);
    const std::string normal = kRealData + "nezha-onlineboutique/normal/2022-08-23_17_00_trace.csv";
    std::int64_t rows = -1;
    {
        std::ifstream in(normal);
        for (std::string line; std::getline(in, line);) ++rows;
    }
    ImportOptions options;
    options.inputs = {normal};
    options.period = "normal";
    auto mapping = SpanCsvMapping::parse("trace=TraceID,span=SpanID,parent=ParentID,pod=PodName,operation=OperationName,"
                                         "start=StartTimeUnixNano,end=EndTimeUnixNano",
                                         "ns");
    ASSERT_TRUE(mapping);
    options.spanColumns = mapping.value();
    auto summary = importTraces(*store.value(), options);
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_EQ(summary->spans, rows);
    EXPECT_EQ(summary->requests, 502);
    options.inputs = {kRealData + "nezha-onlineboutique/fault/05_27_trace.csv"};
    options.period = "currency-delay";
    options.spanColumns.reset();  // guessed from the header this time
    ASSERT_TRUE(importTraces(*store.value(), options));
    auto info = store.value()->info();
    ASSERT_EQ(info->periods.size(), 2u);
    EXPECT_EQ(info->periods[0].name, "normal");
    EXPECT_EQ(info->periods[0].requests, 502);
    EXPECT_EQ(info->periods[1].name, "currency-delay");
    EXPECT_GT(info->periods[1].requests, 100);
    // Services come from pod names; a host is the pod.
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(test::StoreAccess::db(*store.value()), "SELECT COUNT(*) FROM labels WHERE text LIKE 'currencyservice:%'", -1, &st, nullptr);
    sqlite3_step(st);
    EXPECT_GT(sqlite3_column_int64(st, 0), 0);
    sqlite3_finalize(st);
}

// The waterfall of an imported Jaeger trace shows each span where Jaeger UI puts it: start relative to
// the trace's first span, and its duration (one host, so no skew correction applies).
TEST(SpanImport, JaegerTraceKeepsSpanTimingInTheRequestDetail) {
    REQUIRE_REAL_DATA();
    const std::string file = kRealData + "jaeger/TraceStatistics__traceWithOverlappingChildren.json";
    JsonValue doc;
    ASSERT_TRUE(JsonValue::parse(readFile(file), doc, nullptr, nullptr));
    double first = 1e300;
    for (const auto& s : doc.find("spans")->array()) first = std::min(first, s.find("startTime")->number());
    std::multiset<std::pair<std::int64_t, std::int64_t>> expected;  // (start relative, duration)
    for (const auto& s : doc.find("spans")->array())
        expected.emplace(static_cast<std::int64_t>(s.find("startTime")->number() - first), static_cast<std::int64_t>(s.find("duration")->number()));
    Imported imported({file});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    auto detail = loadRequestDetail(*imported.store, RequestId(1));
    ASSERT_TRUE(detail) << detail.message();
    EXPECT_TRUE(detail->fromSpans) << "the view offers its span tree";
    // A span is the time from its task's first event to its last.
    std::map<std::uint32_t, std::pair<TimeNs, TimeNs>> extent;
    for (std::size_t s = 0; s < detail->dag.segments.size(); ++s) {
        auto& [lo, hi] = extent.try_emplace(detail->segmentTask[s], kNoTime, -kNoTime).first->second;
        lo = std::min(lo, detail->localStartNs[s]);
        hi = std::max(hi, detail->localEndNs[s]);
    }
    std::multiset<std::pair<std::int64_t, std::int64_t>> shown;  // microseconds, as Jaeger gives them
    for (const auto& [task, range] : extent) {
        EXPECT_EQ(range.first % 1000, 0);
        EXPECT_EQ(range.second % 1000, 0);
        shown.emplace(range.first / 1000 - std::llround(first), (range.second - range.first) / 1000);
    }
    EXPECT_EQ(shown, expected);
    EXPECT_FALSE(detail->criticalPath.segments.empty());
}

class SpanBadInput : public ::testing::Test {
protected:
    void expectError(const std::string& name, const std::string& content, InputFormat format, std::vector<std::string> fragments) {
        test::ScratchDir dir;
        Imported imported({dir.write(name, content)}, format);
        ASSERT_FALSE(imported.summary) << name << " was accepted";
        for (const auto& f : fragments)
            EXPECT_NE(imported.summary.message().find(f), std::string::npos) << imported.summary.message() << " lacks " << f;
        EXPECT_EQ(imported.store->info()->requests, 0);
    }
};

TEST_F(SpanBadInput, TruncatedJaegerNamesTheByte) {
    REQUIRE_REAL_DATA();
    const std::string text = readFile(kRealData + "jaeger/TraceFlamegraph__testTrace.json");
    expectError("cut.json", text.substr(0, text.size() / 2), InputFormat::JaegerJson, {"cut.json: byte ", "end of file"});
}

TEST_F(SpanBadInput, WrongTypesAndMissingIds) {
    expectError("types.json", R"({"data": [{"traceID": "t", "spans": 5}]})", InputFormat::JaegerJson,
                {"types.json: byte ", R"("spans" is not an array)"});
    expectError("nospans.json", R"({"data": [{"traceID": "t", "processes": {}}]})", InputFormat::JaegerJson,
                {"nospans.json: byte ", "a trace has no spans array"});
    expectError("notobject.json", R"({"data": [5]})", InputFormat::JaegerJson, {"notobject.json: byte 10: ", "expected a JSON object"});
    expectError("noid.json", R"([{"traceId": "t", "name": "x", "timestamp": 1, "duration": 2}])", InputFormat::ZipkinJson,
                {"noid.json: byte ", "no traceId or id"});
    expectError("otlp.json", R"({"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": "a"}]}]}]})", InputFormat::OtlpJson,
                {"otlp.json:1: ", "no traceId or spanId"});
}

TEST_F(SpanBadInput, FileThatIsNotTheFormatSaysSo) {
    expectError("events.csv", "request,host,task,event,ts_us\nr,h,t,e,1\n", InputFormat::ZipkinJson, {"events.csv: byte 0", "not Zipkin JSON"});
    expectError("events2.csv", "request,host,task,event,ts_us\nr,h,t,e,1\n", InputFormat::OtlpJson, {"events2.csv", "not OTLP JSON"});
    expectError("span.csv", "a,b\n1,2\n", InputFormat::SpansCsv, {"span.csv:1: ", "--map"});
}

TEST(SpanImport, CyclicParentsImportWithAWarning) {
    test::ScratchDir dir;
    Imported imported({dir.write("cycle.json",
                                 R"([{"traceId":"t","id":"a","parentId":"b","name":"x","timestamp":10,"duration":5,"localEndpoint":{"serviceName":"s"}},)"
                                 R"({"traceId":"t","id":"b","parentId":"a","name":"y","timestamp":12,"duration":5,"localEndpoint":{"serviceName":"s"}}])")});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    EXPECT_EQ(imported.summary->tracesWithWarnings, 1);
    EXPECT_EQ(imported.scalar("SELECT COUNT(*) FROM import_warnings"), imported.summary->warnings);
    EXPECT_EQ(imported.summary->requests, 1);
}

// Zipkin's skew sample: the server half starts 65 ms before its client. After correction the server
// starts half the round trip (481 us) after the client sends.
TEST(SpanImport, ClientServerPairsCorrectClockSkew) {
    REQUIRE_REAL_DATA();
    Imported imported({kRealData + "zipkin/skew.json"});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    AnalysisOptions options;
    options.inference.supportFloor = 1;
    ASSERT_TRUE(analyzeStore(*imported.store, options));
    auto offset = [&](const std::string& host) {
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(test::StoreAccess::db(*imported.store), "SELECT c.offset_ns FROM clock_offsets c JOIN labels l ON l.id=c.host_id WHERE l.text=?1",
                           -1, &st, nullptr);
        sqlite3_bind_text(st, 1, host.c_str(), -1, SQLITE_TRANSIENT);
        const std::int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : kNoTime;
        sqlite3_finalize(st);
        return v;
    };
    // client send 1470150004074202, server first event 1470150004008761; client 94539 us, server 93577 us.
    const std::int64_t rtt = (94539 - 93577) * 1000;
    EXPECT_EQ(offset("serviceb@192.0.0.0") - offset("servicea@127.0.0.0"), (8761 - 74202) * 1000 - rtt / 2);
}

TEST(SpanImport, OtlpNanosecondsAreKeptExactly) {
    test::ScratchDir dir;
    Imported imported({dir.write("ns.json",
                                 R"({"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"web"}}]},)"
                                 R"("scopeSpans":[{"spans":[{"traceId":"t1","spanId":"a","name":"GET","startTimeUnixNano":"1700000000123456789",)"
                                 R"("endTimeUnixNano":"1700000000123459790","events":[{"name":"mid","timeUnixNano":"1700000000123457001"}]}]}]}]})")});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    EXPECT_EQ(imported.scalar("SELECT MIN(ts_ns) FROM events"), 1700000000123456789);
    EXPECT_EQ(imported.scalar("SELECT MAX(ts_ns) FROM events"), 1700000000123459790);
    EXPECT_EQ(imported.scalar("SELECT ts_ns FROM events e JOIN label_text l ON l.id=e.event_id WHERE l.text='mid'"), 1700000000123457001);
    EXPECT_EQ(imported.scalar("SELECT latency_local_ns FROM requests"), 3001);
}

// An OTLP span's status is kept as Jaeger keeps it (otel.status_code, otel.status_description), so a failed
// span is counted among its request's errors; an unset status adds nothing.
TEST(SpanImport, OtlpStatusIsKeptAndCountsAsAnError) {
    test::ScratchDir dir;
    Imported imported({dir.write("status.json",
        R"({"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"web"}}]},)"
        R"("scopeSpans":[{"spans":[{"traceId":"t1","spanId":"a","name":"GET","startTimeUnixNano":"1700000000000000000",)"
        R"("endTimeUnixNano":"1700000000000005000","status":{"code":2,"message":"boom"}},)"
        R"({"traceId":"t1","spanId":"b","parentSpanId":"a","name":"db","startTimeUnixNano":"1700000000000001000",)"
        R"("endTimeUnixNano":"1700000000000002000","status":{"code":"STATUS_CODE_OK"}},)"
        R"({"traceId":"t1","spanId":"c","parentSpanId":"a","name":"cache","startTimeUnixNano":"1700000000000002000",)"
        R"("endTimeUnixNano":"1700000000000003000","status":{}}]}]}]})")});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    auto id = requestByName(*imported.store, "t1");
    ASSERT_TRUE(id);
    const RequestSpans spans = requestSpans(*imported.store, *id);
    ASSERT_EQ(spans.size(), 3u);
    auto tag = [](const SpanRecord& s, const std::string& key) {
        for (const auto& [k, v] : s.attributes)
            if (k == key) return v;
        return std::string("-");
    };
    EXPECT_EQ(tag(spans[0], "otel.status_code"), "ERROR");
    EXPECT_EQ(tag(spans[0], "otel.status_description"), "boom");
    EXPECT_EQ(tag(spans[1], "otel.status_code"), "OK");
    EXPECT_EQ(tag(spans[2], "otel.status_code"), "-");
    EXPECT_TRUE(recordsError(spans[0]));
    EXPECT_FALSE(recordsError(spans[1]));
    EXPECT_EQ(imported.scalar("SELECT error_count FROM request_spans"), 1);
    EXPECT_EQ(imported.scalar("SELECT span_count FROM request_spans"), 3);
}

TEST(SpanImport, HugeDurationsAreAPerTraceWarningNotOverflow) {
    // start + duration (and microseconds x 1000) beyond 64 bits: the span is dropped with a warning
    // naming it, the rest of its trace is kept.
    test::ScratchDir dir;
    Imported jaeger({dir.write("huge.json",
                               R"({"data":[{"traceID":"big","spans":[)"
                               R"({"traceID":"big","spanID":"r","operationName":"root","startTime":1700000000000000,"duration":50,"processID":"p1"},)"
                               R"({"traceID":"big","spanID":"c","operationName":"child","startTime":1700000000000010,"duration":9223372036854775000,)"
                               R"("references":[{"refType":"CHILD_OF","spanID":"r"}],"processID":"p1"}],)"
                               R"("processes":{"p1":{"serviceName":"svc"}}}]})")},
                    InputFormat::JaegerJson);
    ASSERT_TRUE(jaeger.summary) << jaeger.summary.message();
    EXPECT_EQ(jaeger.summary->requests, 1);
    ASSERT_GE(jaeger.summary->warnings, 1);
    std::string all;
    for (const auto& w : jaeger.summary->warningSamples) all += w + "\n";
    EXPECT_NE(all.find("big"), std::string::npos) << all;
    EXPECT_NE(all.find("span c"), std::string::npos) << all;
    EXPECT_NE(all.find("out of range"), std::string::npos) << all;

    Imported zipkin({dir.write("huge2.json",
                               R"([{"traceId":"z","id":"a","name":"x","timestamp":9223372036854775,"duration":5,"localEndpoint":{"serviceName":"s"}},)"
                               R"({"traceId":"z","id":"b","parentId":"a","name":"y","timestamp":12,"duration":9223372036854775807,"localEndpoint":{"serviceName":"s"}},)"
                               R"({"traceId":"z","id":"c","parentId":"a","name":"w","timestamp":12,"duration":5,"localEndpoint":{"serviceName":"s"}}])")},
                    InputFormat::ZipkinJson);
    ASSERT_TRUE(zipkin.summary) << zipkin.summary.message();
    all.clear();
    for (const auto& w : zipkin.summary->warningSamples) all += w + "\n";
    EXPECT_NE(all.find("span a"), std::string::npos) << all;
    EXPECT_NE(all.find("span b"), std::string::npos) << all;
    EXPECT_NE(all.find("out of range"), std::string::npos) << all;
}

// Issue 43: a duration or timestamp at or beyond the 64-bit limits is refused (as 1e30 is) or warned about with
// the span named (as -1 is), never read as 0 in silence.
TEST(SpanImport, TimesAtTheSixtyFourBitLimitsAreRefusedOrWarnedAbout) {
    test::ScratchDir dir;
    const char* limits[] = {"9223372036854775807", "9223372036854775808", "18446744073709551616", "-9223372036854775808",
                            "-9223372036854775809", "1e30", "-1"};
    auto refusedOrWarned = [](const Imported& imported, const std::string& file, const std::string& span) {
        if (!imported.summary) {
            const std::string& m = imported.summary.message();
            return m.find(file) != std::string::npos && m.find("span " + span) != std::string::npos &&
                   m.find("out of range") != std::string::npos && m.find('\n') == std::string::npos;
        }
        for (const auto& w : imported.summary->warningSamples)
            if (w.find("span " + span) != std::string::npos) return true;
        return false;
    };
    int n = 0;
    for (const char* value : limits)
        for (const char* field : {"duration", "time"}) {
            const bool duration = std::string(field) == "duration";
            const std::string v = value;
            if (!duration && v == "-1") continue;  // a time before 1970 is a time (-1 is about durations)
            const std::string start = duration ? "1700000000000010" : v, length = duration ? v : "5";
            const std::string jaegerName = "jaeger" + std::to_string(++n) + ".json";
            Imported jaeger({dir.write(jaegerName,
                                       R"({"data":[{"traceID":"big","spans":[)"
                                       R"({"traceID":"big","spanID":"r","operationName":"root","startTime":1700000000000000,"duration":50,"processID":"p1"},)"
                                       R"({"traceID":"big","spanID":"c","operationName":"child","startTime":)" + start + R"(,"duration":)" + length + ","
                                       R"("references":[{"refType":"CHILD_OF","spanID":"r"}],"processID":"p1"}],)"
                                       R"("processes":{"p1":{"serviceName":"svc"}}}]})")},
                            InputFormat::JaegerJson);
            EXPECT_TRUE(refusedOrWarned(jaeger, jaegerName, "c"))
                << "jaeger " << field << " " << value << ": " << (jaeger.summary ? "imported without a warning" : jaeger.summary.message());
            const std::string zipkinName = "zipkin" + std::to_string(n) + ".json";
            Imported zipkin({dir.write(zipkinName,
                                       R"([{"traceId":"z","id":"a","name":"x","timestamp":1700000000000000,"duration":50,"localEndpoint":{"serviceName":"s"}},)"
                                       R"({"traceId":"z","id":"b","parentId":"a","name":"y","timestamp":)" + start + R"(,"duration":)" + length +
                                       R"(,"localEndpoint":{"serviceName":"s"}}])")},
                            InputFormat::ZipkinJson);
            EXPECT_TRUE(refusedOrWarned(zipkin, zipkinName, "b"))
                << "zipkin " << field << " " << value << ": " << (zipkin.summary ? "imported without a warning" : zipkin.summary.message());
            if (!duration) {
                // OTLP gives nanoseconds, start and end: each at the limits.
                for (const char* which : {"start", "end"}) {
                    const std::string otlpName = "otlp" + std::to_string(n) + which + ".json";
                    const std::string startNs = std::string(which) == "start" ? "\"" + v + "\"" : "\"1700000000000000000\"";
                    const std::string endNs = std::string(which) == "end" ? "\"" + v + "\"" : "\"1700000000000001000\"";
                    Imported otlp({dir.write(otlpName,
                                             R"({"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"s"}}]},)"
                                             R"("scopeSpans":[{"spans":[{"traceId":"t","spanId":"r","name":"root","startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000000000005000"},)"
                                             R"({"traceId":"t","spanId":"o","parentSpanId":"r","name":"op","startTimeUnixNano":)" + startNs +
                                             R"(,"endTimeUnixNano":)" + endNs + "}]}]}]}")},
                                  InputFormat::OtlpJson);
                    EXPECT_TRUE(refusedOrWarned(otlp, otlpName, "o"))
                        << "otlp " << which << " " << value << ": " << (otlp.summary ? "imported without a warning" : otlp.summary.message());
                }
            }
        }
}

// ---- issue 10: shapes this project did not generate ----------------------------------------------

namespace {
std::string allWarnings(const AssembledTrace& t) {
    std::string all;
    for (const auto& w : t.warnings) all += w + "\n";
    return all;
}
bool hasLink(const AssembledTrace& t, const std::string& from, const std::string& to) {
    for (const auto& l : t.links)
        if (t.text(l.fromTask) == from && t.text(l.toTask) == to) return true;
    return false;
}
} // namespace

// A span that names itself as parent: one warning for the trace, imported as a root.
TEST(SpanAssembler, OwnParentIsWarnedAndBecomesARoot) {
    const auto t = assembleTrace({span("1", "", "web", "GET", 0, 100), span("2", "2", "web", "self", 10, 20)});
    ASSERT_EQ(t.warnings.size(), 1u) << allWarnings(t);
    EXPECT_NE(t.warnings[0].find("span 2 is its own parent (imported as a root)"), std::string::npos) << t.warnings[0];
    EXPECT_EQ(eventsOfTask(t, "web:self"), (std::vector<std::string>{"start@web", "end@web"}));
    EXPECT_TRUE(t.links.empty());  // a root: no call into it
}

// Parent cycles: one warning per cycle naming its spans; the cycle's earliest span becomes a root and
// the rest keep their parents (so A -> B -> A imports as A calling B). Spans hanging off a cycle keep theirs.
TEST(SpanAssembler, ParentCycleCutsTheEarliestSpanLoose) {
    const auto t = assembleTrace({span("b", "a", "s", "B", 10, 20), span("a", "b", "s", "A", 0, 30),
                                  span("c", "a", "s", "C", 22, 25),                                     // a child of the cycle
                                  span("x", "z", "s", "X", 40, 50), span("y", "x", "s", "Y", 41, 49),  // x -> z -> y -> x
                                  span("z", "y", "s", "Z", 42, 48)});
    const std::string all = allWarnings(t);
    EXPECT_EQ(t.warnings.size(), 2u) << all;
    EXPECT_NE(all.find("parent cycle; span a imported as a root"), std::string::npos) << all;
    EXPECT_NE(all.find("parent cycle; span x imported as a root"), std::string::npos) << all;
    // Who calls whom, by the parents' call events.
    EXPECT_EQ(eventsOfTask(t, "s:A"), (std::vector<std::string>{"start@s", "call s:B@s", "return s:B@s", "call s:C@s",
                                                                 "return s:C@s", "end@s"}));
    EXPECT_EQ(eventsOfTask(t, "s:B"), (std::vector<std::string>{"start@s", "end@s"}));
    EXPECT_EQ(eventsOfTask(t, "s:X"), (std::vector<std::string>{"start@s", "call s:Y@s", "return s:Y@s", "end@s"}));
    EXPECT_EQ(eventsOfTask(t, "s:Y"), (std::vector<std::string>{"start@s", "call s:Z@s", "return s:Z@s", "end@s"}));
    EXPECT_EQ(eventsOfTask(t, "s:Z"), (std::vector<std::string>{"start@s", "end@s"}));
    EXPECT_TRUE(hasLink(t, "s:A", "s:B"));
    EXPECT_EQ(t.links.size(), 8u);  // a call and a return link per parent/child pair: A-B, A-C, X-Y, Y-Z
}

// Duplicate span ids: merged into one span over their union, one warning per extra piece; a piece that
// makes the merged span its own ancestor is cut loose like any cycle. Nothing hangs or crashes.
TEST(SpanAssembler, DuplicateSpanIdsMergeIntoOne) {
    const auto t = assembleTrace({span("1", "", "s", "root", 0, 100), span("2", "1", "s", "op", 10, 20),
                                  span("2", "1", "s", "op", 30, 40), span("2", "3", "s", "op", 5, 50),
                                  span("3", "2", "s", "inner", 12, 18)});
    const std::string all = allWarnings(t);
    EXPECT_NE(all.find("duplicate span id 2 (merged)"), std::string::npos) << all;
    EXPECT_EQ(eventsOfTask(t, "s:op"),
              (std::vector<std::string>{"start@s", "call s:inner@s", "return s:inner@s", "end@s"}));
    const auto cycle = assembleTrace({span("a", "b", "s", "A", 0, 10), span("b", "a", "s", "B", 1, 9), span("a", "b", "s", "A", 0, 12)});
    EXPECT_NE(allWarnings(cycle).find("parent cycle"), std::string::npos) << allWarnings(cycle);
    EXPECT_FALSE(cycle.events.empty());
}

// A chain of 100,000 nested RPCs (each child on the other host, so each joins its caller's task): the
// assembler recursed once per level (a stack overflow) and walked each span's ancestry (quadratic).
TEST(SpanAssembler, DeepChainOfCalls) {
    constexpr int kDepth = 100000;
    std::vector<RawSpan> spans;
    spans.reserve(kDepth);
    for (int i = 0; i < kDepth; ++i) {
        RawSpan s = span("", "", i % 2 ? "b" : "a", "call", i, 2.0 * kDepth - i);
        s.spanId = "s" + std::to_string(i);
        if (i) s.parentId = "s" + std::to_string(i - 1);
        spans.push_back(std::move(s));
    }
    const auto t = assembleTrace(std::move(spans));
    EXPECT_TRUE(t.warnings.empty()) << allWarnings(t);
    ASSERT_EQ(t.events.size(), 2u * kDepth);  // one moving task: start, serve x (n-1), served x (n-1), end
    EXPECT_EQ(eventsOfTask(t, "a:call").size(), 2u * kDepth);
    EXPECT_EQ(t.text(t.events.front().event), "start");
    EXPECT_EQ(t.text(t.events.back().event), "end");
    EXPECT_EQ(t.text(t.events[kDepth].event), "served b:call#" + std::to_string(kDepth / 2));
}

namespace {
// One Jaeger trace: a root "web:GET" with `children` "web:work" children, 10 us apart, all on one host.
std::string wideJaegerTrace(int children) {
    std::string text = R"({"data":[{"traceID":"wide","processes":{"p1":{"serviceName":"web"}},"spans":[)"
                       R"({"spanID":"root","operationName":"GET","startTime":1000000,"duration":3000000,"processID":"p1"})";
    for (int i = 0; i < children; ++i)
        text += R"(,{"spanID":"c)" + std::to_string(i) + R"(","operationName":"work","startTime":)" + std::to_string(1000010 + 10 * i) +
                R"(,"duration":5,"processID":"p1","references":[{"refType":"CHILD_OF","spanID":"root"}]})";
    return text + "]}]}";
}
} // namespace

// One root with 200,000 children, through the whole import (Jaeger JSON): numbering the root's
// distinct call/return events was a search per event (100,000 children took 9.5 s, 1,000,000 did
// not finish in 20 minutes). The counts show every span arrived.
TEST(SpanImport, RootWithTwoHundredThousandChildren) {
    constexpr int kChildren = 200000;
    test::ScratchDir dir;
    Imported imported({dir.write("wide.json", wideJaegerTrace(kChildren))});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    EXPECT_EQ(imported.summary->requests, 1);
    EXPECT_EQ(imported.summary->spans, kChildren + 1);
    EXPECT_EQ(imported.summary->warnings, 0);
    // The root: start, a call and a return per child, end; each child: start, end.
    EXPECT_EQ(imported.summary->events, (2 + 2 * kChildren) + 2 * kChildren);
    EXPECT_EQ(imported.scalar("SELECT COUNT(*) FROM causal_links"), 2 * kChildren);
    EXPECT_EQ(imported.scalar("SELECT COUNT(DISTINCT task_id) FROM events"), kChildren + 1);
    EXPECT_EQ(imported.scalar("SELECT event_count FROM requests"), imported.summary->events);
    // Its 600,000 occurrence labels (a task per child, a call and a return of it) are stored in batches as
    // they are made: each one the events use reads as its text.
    EXPECT_EQ(imported.scalar("SELECT COUNT(*) FROM label_occurrences"), 3 * kChildren - 3);
    EXPECT_EQ(imported.scalar("SELECT COUNT(*) FROM events e WHERE NOT EXISTS (SELECT 1 FROM label_text l WHERE l.id = e.task_id) "
                              "OR NOT EXISTS (SELECT 1 FROM label_text l WHERE l.id = e.event_id)"), 0);
    EXPECT_EQ(imported.scalar("SELECT COUNT(*) FROM label_text WHERE text IN ('web:work#200000', 'call web:work#200000', 'return web:work#200000')"), 3);
}

// A span request is summed as its events come, task by task, instead of held and sorted: its counts, its
// origin host's local span and its repeated events' numbers must be what its stored events say. A client
// span whose server joins its task (an RPC to another host) and logs "retry" three times, beside the real
// Zipkin traces.
TEST(SpanImport, SpanRequestSummariesAgreeWithTheirStoredEvents) {
    test::ScratchDir dir;
    std::vector<std::string> inputs{dir.write("retry.json",
        R"({"data":[{"traceID":"r1","processes":{"p1":{"serviceName":"web"},"p2":{"serviceName":"db"}},"spans":[)"
        R"({"spanID":"a","operationName":"GET","startTime":1000,"duration":100,"processID":"p1"},)"
        R"({"spanID":"b","operationName":"query","startTime":1010,"duration":50,"processID":"p1","tags":[{"key":"span.kind","value":"client"}],)"
        R"("references":[{"refType":"CHILD_OF","spanID":"a"}],"logs":[{"timestamp":1012,"fields":[{"key":"event","value":"retry"}]},)"
        R"({"timestamp":1014,"fields":[{"key":"event","value":"retry"}]},{"timestamp":1016,"fields":[{"key":"event","value":"retry"}]}]},)"
        R"({"spanID":"c","operationName":"select","startTime":1020,"duration":20,"processID":"p2","references":[{"refType":"CHILD_OF","spanID":"b"}]})"
        R"(]}]})")};
    const std::string zipkin = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/zipkin";
    if (std::filesystem::is_directory(zipkin))
        for (const auto& entry : std::filesystem::directory_iterator(zipkin))
            if (entry.path().extension() == ".json") inputs.push_back(entry.path().string());
    Imported imported(inputs);
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    EXPECT_GE(imported.summary->renamedEvents, 2);
    EXPECT_EQ(imported.scalar("SELECT COUNT(*) FROM events e JOIN label_text l ON l.id = e.event_id WHERE l.text IN ('retry', 'retry#2', 'retry#3')"), 3);
    EXPECT_EQ(imported.scalar("SELECT COUNT(*) FROM requests r WHERE "
                              "r.event_count != (SELECT COUNT(*) FROM events e WHERE e.request_id = r.id) OR "
                              "r.task_count != (SELECT COUNT(DISTINCT task_id) FROM events e WHERE e.request_id = r.id) OR "
                              "r.host_count != (SELECT COUNT(DISTINCT host_id) FROM events e WHERE e.request_id = r.id) OR NOT EXISTS "
                              "(SELECT 1 FROM events e WHERE e.request_id = r.id GROUP BY e.host_id "
                              "HAVING MIN(e.ts_ns) = r.start_local_ns AND MAX(e.ts_ns) - MIN(e.ts_ns) = r.latency_local_ns)"),
              0);
    EXPECT_EQ(imported.scalar("SELECT host_count FROM requests WHERE name = 'r1'"), 2);
    // A second import into the same store writes on the caller's thread (its request names could clash
    // with stored ones): its span requests are summed the same way.
    ImportOptions again;
    again.inputs = {dir.write("retry2.json", std::regex_replace(readFile(inputs.front()), std::regex("\"r1\""), "\"r2\""))};
    ASSERT_TRUE(importTraces(*imported.store, again));
    EXPECT_EQ(imported.scalar("SELECT event_count FROM requests WHERE name = 'r2'"), imported.scalar("SELECT event_count FROM requests WHERE name = 'r1'"));
    EXPECT_EQ(imported.scalar("SELECT COUNT(*) FROM requests r WHERE "
                              "r.event_count != (SELECT COUNT(*) FROM events e WHERE e.request_id = r.id) OR "
                              "r.task_count != (SELECT COUNT(DISTINCT task_id) FROM events e WHERE e.request_id = r.id) OR "
                              "r.host_count != (SELECT COUNT(DISTINCT host_id) FROM events e WHERE e.request_id = r.id)"),
              0);
}

// The span rows are written on a thread of their own, a thousand at a time: one that fails there (a trigger
// standing in for a full disk) fails the import with SQLite's reason and stores nothing of it.
TEST(SpanImport, ASpanWriteThatFailsInTheBackgroundFailsTheImportAndStoresNothing) {
    test::ScratchDir dir;
    const std::string wide = dir.write("wide.json", wideJaegerTrace(3000));
    auto opened = TraceStore::open(dir.file("s.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(opened) << opened.message();
    TraceStore& store = *opened.value();
    sqlite3* db = test::StoreAccess::db(store);
    ASSERT_EQ(sqlite3_exec(db, "CREATE TRIGGER full AFTER INSERT ON spans WHEN NEW.idx = 2500 "
                               "BEGIN SELECT RAISE(ABORT, 'simulated full disk'); END", nullptr, nullptr, nullptr), SQLITE_OK);
    ImportOptions options;
    options.inputs = {wide};
    auto failed = importTraces(store, options);
    ASSERT_FALSE(failed);
    EXPECT_NE(failed.message().find("cannot store span: simulated full disk"), std::string::npos) << failed.message();
    for (const char* table : {"requests", "events", "spans", "labels"})
        EXPECT_EQ(test::StoreAccess::rows(store, std::string("SELECT COUNT(*) FROM ") + table), (std::vector<std::string>{"0"})) << table;
    ASSERT_EQ(sqlite3_exec(db, "DROP TRIGGER full", nullptr, nullptr, nullptr), SQLITE_OK);
    auto again = importTraces(store, options);
    ASSERT_TRUE(again) << again.message();
    EXPECT_EQ(test::StoreAccess::rows(store, "SELECT COUNT(*), MIN(idx), MAX(idx) FROM spans"), (std::vector<std::string>{"3001|0|3000"}));
}

// One Jaeger trace larger than one JSON value may be (64 MiB): its spans are streamed one at a time, and
// the process table that Jaeger writes after the spans still names every span's service (issue 15).
TEST(SpanImport, JaegerTraceLargerThanOneJsonValue) {
    constexpr int kSpans = 70;
    const std::string padding(std::size_t{1} << 20, 'x');  // an unknown member of 1 MiB per span
    std::string text = R"({"data": [{"traceID": "big", "spans": [)";
    for (int i = 0; i < kSpans; ++i) {
        if (i) text += ',';
        text += R"({"spanID": "s)" + std::to_string(i) + R"(", "operationName": "op", "processID": ")" + (i % 2 ? "p2" : "p1") +
                R"(", "startTime": )" + std::to_string(1000 + i) + R"(, "duration": )" + std::to_string(i == 0 ? 500 : 10) +
                (i ? R"(, "references": [{"refType": "CHILD_OF", "traceID": "big", "spanID": "s0"}])" : "") + R"(, "x": ")" + padding + R"("})";
    }
    text += R"(], "processes": {"p1": {"serviceName": "front"}, "p2": {"serviceName": "back"}}}, )"
            R"({"traceID": "small", "processes": {"p1": {"serviceName": "solo"}}, "spans": [{"spanID": "a", "operationName": "x", )"
            R"("processID": "p1", "startTime": 5, "duration": 1}]}]})";
    ASSERT_GT(text.size(), kMaxJsonValueBytes);
    test::ScratchDir dir;
    Imported imported({dir.write("big.json", text)});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    EXPECT_EQ(imported.summary->requests, 2);
    EXPECT_EQ(imported.summary->spans, kSpans + 1);
    EXPECT_EQ(imported.summary->warnings, 0);
    EXPECT_EQ(imported.scalar("SELECT COUNT(*) FROM causal_links"), 2 * (kSpans - 1));
    // Every span found its service, before the table (the second trace) or after it (the first).
    for (const char* service : {"front", "back", "solo"})
        EXPECT_EQ(imported.scalar(std::string("SELECT COUNT(*) FROM labels WHERE text = '") + service + "'"), 1) << service;
}

// The k-th span of one operation is an occurrence of that operation's name (issue 15): the 200,000
// children above added a handful of text labels, not 600,000 ("web:work#k", "call web:work#k", ...),
// and the store still spells each one as before.
TEST(SpanImport, RepeatedOperationsAreOccurrencesNotTextLabels) {
    constexpr int kChildren = 1000;
    test::ScratchDir dir;
    Imported imported({dir.write("wide.json", wideJaegerTrace(kChildren))});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    EXPECT_LT(imported.scalar("SELECT COUNT(*) FROM labels"), 20);
    EXPECT_EQ(imported.scalar("SELECT COUNT(*) FROM label_occurrences"), 3 * (kChildren - 1));  // task, call, return
    // The analysis's data keeps the names and spells each occurrence on demand, as the store's view does.
    auto data = loadTraceData(*imported.store);
    ASSERT_TRUE(data) << data.message();
    EXPECT_LT(data->labels.size(), 20u);
    std::set<std::string> texts;
    std::size_t labels = 0;
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(test::StoreAccess::db(*imported.store), "SELECT id, text FROM label_text", -1, &st, nullptr);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const std::string text = reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
        EXPECT_EQ(data->label(static_cast<std::uint32_t>(sqlite3_column_int64(st, 0))), text);
        texts.insert(text);
        ++labels;
    }
    sqlite3_finalize(st);
    EXPECT_EQ(texts.size(), labels) << "each spelling once";
    for (const char* t : {"web:work", "web:work#2", "web:work#1000", "call web:work#1000", "return web:work#7"}) EXPECT_TRUE(texts.count(t)) << t;
    EXPECT_EQ(data->label(0x7fffffffu), "?");
    // The span tree reads its tasks back by name and occurrence.
    const RequestSpans spans = requestSpans(*imported.store, RequestId(1));
    ASSERT_EQ(spans.size(), kChildren + 1u);
    std::set<std::string> tasks;
    for (const auto& s : spans) tasks.insert(s.taskName());
    EXPECT_EQ(tasks.size(), kChildren + 1u);
    EXPECT_TRUE(tasks.count("web:work#1000"));
    EXPECT_EQ(imported.store->label(LabelId(static_cast<std::uint32_t>(
                  imported.scalar("SELECT id FROM label_text WHERE text='return web:work#7'")))),
              "return web:work#7");
}

// A database that spelt occurrences as text ("s:op#2", before schema 8) keeps one id per task: a later
// import of the same shape reuses the old labels instead of making a second "s:op#2".
TEST(SpanImport, OccurrencesSpeltAsTextByOlderImportsKeepTheirIds) {
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("s.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    sqlite3* db = test::StoreAccess::db(*store.value());
    ASSERT_EQ(sqlite3_exec(db, "INSERT INTO labels(id, text) VALUES(1, 's:op'), (2, 's:op#2'), (3, 'call s:op#2')", nullptr, nullptr, nullptr),
              SQLITE_OK);
    auto trace = [&](const char* id) {
        return std::string(R"([{"traceId":")") + id + R"(","id":"r","name":"root","timestamp":10,"duration":100,"localEndpoint":{"serviceName":"s"}},)" +
               R"({"traceId":")" + id + R"(","id":"a","parentId":"r","name":"op","timestamp":20,"duration":5,"localEndpoint":{"serviceName":"s"}},)" +
               R"({"traceId":")" + id + R"(","id":"b","parentId":"r","name":"op","timestamp":40,"duration":5,"localEndpoint":{"serviceName":"s"}}])";
    };
    ImportOptions options;
    options.inputs = {dir.write("t.json", trace("t1"))};
    options.period = "p";
    auto summary = importTraces(*store.value(), options);
    ASSERT_TRUE(summary) << summary.message();
    test::StoreAccess::materializeEventModel(*store.value());
    auto count = [&](const char* sql) {
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(db, sql, -1, &st, nullptr);
        const std::int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
        sqlite3_finalize(st);
        return v;
    };
    EXPECT_EQ(count("SELECT COUNT(*) FROM events WHERE task_id=2"), 2) << "the second s:op span is the old label 2";
    EXPECT_EQ(count("SELECT COUNT(*) FROM events WHERE event_id=3"), 1) << "and its call the old label 3";
    EXPECT_EQ(count("SELECT COUNT(*) FROM label_text WHERE text='s:op#2'"), 1);
}

// A span named like another's occurrence ("work#5" beside "work"), repeated, is an occurrence of an
// occurrence: spelt from the stored label, read on the importing thread while span rows of the traces
// before it are still being written on the other one (the connection must wait for them first).
TEST(SpanImport, AnOccurrenceOfAnOccurrenceIsSpeltWhileRowsAreWrittenInTheBackground) {
    test::ScratchDir dir;
    std::string text = R"({"data":[)";
    for (int t = 0; t < 3; ++t) {
        const std::string id = "t" + std::to_string(t);
        text += std::string(t ? "," : "") + R"({"traceID":")" + id + R"(","processes":{"p1":{"serviceName":"web"}},"spans":[)" +
                R"({"spanID":"root","operationName":"GET","startTime":1000000,"duration":3000000,"processID":"p1"})";
        for (int i = 0; i < 3000; ++i)
            text += R"(,{"spanID":"c)" + std::to_string(i) + R"(","operationName":")" + (i >= 2998 ? "work#5" : i >= 2996 ? "work" : "other") +
                    R"(","startTime":)" + std::to_string(1000010 + 10 * i) +
                    R"(,"duration":5,"processID":"p1","references":[{"refType":"CHILD_OF","spanID":"root"}]})";
        text += "]}";
    }
    Imported imported({dir.write("wide.json", text + "]}")});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    EXPECT_EQ(imported.summary->spans, 3 * 3001);
    // In each trace the first "work#5" span is the task web:work#5 and the second web:work#5#2, each with a
    // start and an end.
    for (const char* task : {"web:work#5", "web:work#5#2"})
        EXPECT_EQ(imported.scalar(std::string("SELECT COUNT(*) FROM events e JOIN label_text t ON t.id=e.task_id WHERE t.text='") + task +
                                  "' AND e.event_id IN (SELECT id FROM labels WHERE text IN ('start','end'))"),
                  3 * 2)
            << task;
    EXPECT_EQ(imported.scalar("SELECT COUNT(*) FROM spans"), 3 * 3001);
}

// An operation named like another's occurrence in the same trace ("work#2" beside two "work" spans) was
// stored as that occurrence: both spans' events in one task, "seq 1 appears twice", the file refused. It
// is kept apart, with a warning; a name that collides with nothing keeps its text.
TEST(SpanImport, AnOperationNamedLikeAnotherOccurrenceIsKeptApart) {
    test::ScratchDir dir;
    auto trace = [](const std::string& id, const std::vector<std::string>& operations) {
        std::string text = R"({"traceID":")" + id + R"(","processes":{"p1":{"serviceName":"web"}},"spans":[)" +
                           R"({"spanID":"root","operationName":"GET","startTime":1000000,"duration":3000,"processID":"p1"})";
        for (std::size_t i = 0; i < operations.size(); ++i)
            text += R"(,{"spanID":"c)" + std::to_string(i) + R"(","operationName":")" + operations[i] + R"(","startTime":)" +
                    std::to_string(1000010 + 100 * i) + R"(,"duration":50,"processID":"p1","references":[{"refType":"CHILD_OF","spanID":"root"}]})";
        return text + "]}";
    };
    // t3: the renamed name is itself the base of another ("a#2'#2", read before "a#2" was renamed).
    Imported imported({dir.write("names.json", R"({"data":[)" + trace("t1", {"work", "work#2", "work", "work"}) + "," +
                                                   trace("t2", {"work", "load#3"}) + "," +
                                                   trace("t3", {"a#2'#2", "a", "a", "a#2", "a#2"}) + "]}")});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    EXPECT_EQ(imported.summary->tracesWithWarnings, 2);
    test::StoreAccess::materializeEventModel(*imported.store);
    auto tasksOf = [&](const char* request) {
        std::vector<std::string> out;
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(test::StoreAccess::db(*imported.store),
                           "SELECT DISTINCT t.text FROM events e JOIN requests r ON r.id=e.request_id JOIN label_text t ON t.id=e.task_id "
                           "WHERE r.name=?1 ORDER BY 1", -1, &st, nullptr);
        sqlite3_bind_text(st, 1, request, -1, SQLITE_STATIC);
        while (sqlite3_step(st) == SQLITE_ROW) out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
        sqlite3_finalize(st);
        return out;
    };
    EXPECT_EQ(tasksOf("t1"), (std::vector<std::string>{"web:GET", "web:work", "web:work#2", "web:work#2'", "web:work#3"}));
    EXPECT_EQ(tasksOf("t2"), (std::vector<std::string>{"web:GET", "web:load#3", "web:work"}));
    EXPECT_EQ(tasksOf("t3"), (std::vector<std::string>{"web:GET", "web:a", "web:a#2", "web:a#2'", "web:a#2'#2", "web:a#2'#2'"}));
    EXPECT_EQ(imported.scalar("SELECT COUNT(*) FROM import_warnings WHERE message LIKE '%web:work#2%kept apart as%web:work#2''%'"), 1);
}

// A trace none of whose spans can be placed adds no request, but its warnings are still counted and
// shown (they were dropped with it: a silent loss).
TEST(SpanImport, WarningsOfATraceWithNothingToPlaceAreKept) {
    test::ScratchDir dir;
    Imported imported({dir.write("lost.json",
                                 R"([{"traceId":"good","id":"a","name":"x","timestamp":10,"duration":5,"localEndpoint":{"serviceName":"s"}},)"
                                 R"({"traceId":"lost","id":"b","name":"y","localEndpoint":{"serviceName":"s"}}])")});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    EXPECT_EQ(imported.summary->requests, 1);
    EXPECT_EQ(imported.summary->warnings, 1);
    ASSERT_EQ(imported.summary->warningSamples.size(), 1u);
    EXPECT_EQ(imported.summary->warningSamples[0], "trace lost: span b has no timestamp");
}

// A Jaeger trace whose 100,000 spans each have their own process: the process was looked up by a
// search of the trace's process table per span (quadratic).
TEST(SpanImport, JaegerTraceWithHundredThousandProcesses) {
    constexpr int kSpans = 100000;
    test::ScratchDir dir;
    std::string processes, spans;
    for (int i = 0; i < kSpans; ++i) {
        const std::string n = std::to_string(i);
        processes += std::string(i ? "," : "") + R"("p)" + n + R"(":{"serviceName":"svc)" + std::to_string(i % 10) +
                     R"(","tags":[{"key":"hostname","value":"host)" + n + R"("}]})";
        spans += std::string(i ? "," : "") + R"({"spanID":"s)" + n + R"(","operationName":"op","startTime":)" +
                 std::to_string(1000 + i) + R"(,"duration":1,"processID":"p)" + n + R"("})";
    }
    Imported imported({dir.write("procs.json", R"({"data":[{"traceID":"many","processes":{)" + processes + R"(},"spans":[)" + spans + "]}]}")},
                      InputFormat::JaegerJson);
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    EXPECT_EQ(imported.summary->spans, kSpans);
    EXPECT_EQ(imported.summary->events, 2 * kSpans);
    EXPECT_EQ(imported.scalar("SELECT COUNT(DISTINCT host_id) FROM events"), kSpans);  // each span's own process
}

// Jaeger JSON whose first trace lists more than 64 KiB of processes before its spans: recognised by
// "data" and "traceID" (it was "neither OTLP, Jaeger nor events-jsonl").
TEST(SpanImport, RecognisesJaegerWithALongProcessTable) {
    test::ScratchDir dir;
    std::string processes;
    for (int i = 0; i < 5000; ++i) processes += std::string(i ? "," : "") + R"("p)" + std::to_string(i) + R"(":{"serviceName":"service-with-a-long-name"})";
    const auto path = dir.write("late-spans.json", R"({"data":[{"traceID":"t","processes":{)" + processes +
                                                       R"(},"spans":[{"spanID":"a","operationName":"x","startTime":1,"duration":2,"processID":"p0"}]}]})");
    auto format = detectInputFormat(path);
    ASSERT_TRUE(format) << format.message();
    EXPECT_EQ(format.value(), InputFormat::JaegerJson);
    // An events-jsonl line that happens to carry such keys as attributes stays an event log.
    const auto jsonl = dir.write("ev.jsonl", R"({"request":"r","host":"h","task":"t","event":"e","ts_us":1,"attrs":{"data":"x","traceID":"y"}})" "\n");
    EXPECT_EQ(detectInputFormat(jsonl).value(), InputFormat::EventsJsonl);
}
