// The span tree kept in the store (issue 11): what assembleTrace returns and what the store reads back.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "PackedSpanUndo.h"
#include "TestUtil.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/SpanCriticalPath.h"
#include "tracelight/import/Import.h"
#include "tracelight/import/spans/Spans.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/SpanReads.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

namespace {

const std::string kRealData = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/";
#define REQUIRE_REAL_DATA()                                                                       \
    if (!std::filesystem::is_directory(kRealData)) GTEST_SKIP() << "no " << kRealData << " beside this checkout"

RawSpan span(const char* id, const char* parent, const char* service, const char* op, TimeNs start, TimeNs end,
             const char* host = "") {
    RawSpan s;
    s.traceId = "t";
    s.spanId = id;
    s.parentId = parent;
    s.service = service;
    s.operation = op;
    s.host = host;
    s.startNs = start;
    s.endNs = end;
    return s;
}

struct Imported {
    test::ScratchDir dir;
    std::unique_ptr<TraceStore> store;
    Result<ImportSummary> summary = Status::error("not run");
    explicit Imported(const std::vector<std::string>& inputs) {
        store = std::move(TraceStore::open(dir.file("s.tldb"), TraceStore::Mode::Create).value());
        ImportOptions options;
        options.inputs = inputs;
        options.period = "p";
        summary = importTraces(*store, options);
    }
    // The only request's spans (or the one named).
    RequestSpans spansOf(const std::string& name) const {
        auto id = requestByName(*store, name);
        return id ? requestSpans(*store, *id) : RequestSpans{};
    }
    // Of what the store's reads give (a span request's events are derived from its spans).
    std::int64_t scalar(const std::string& sql) const {
        test::StoreAccess::materializeEventModel(*store);
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(test::StoreAccess::db(*store), sql.c_str(), -1, &st, nullptr);
        std::int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
        sqlite3_finalize(st);
        return v;
    }
};

// Every span's parent comes before it; the start and end events it names are the events in the store.
void expectWellFormed(const RequestSpans& spans) {
    for (std::size_t i = 0; i < spans.size(); ++i) {
        EXPECT_LT(spans[i].parent, static_cast<std::int32_t>(i)) << spans[i].spanId;
        EXPECT_GE(spans[i].parent, -1);
        EXPECT_FALSE(spans[i].task.empty());
        EXPECT_LT(spans[i].startOrd, spans[i].endOrd) << spans[i].spanId;
    }
}

const SpanRecord* byOperation(const RequestSpans& spans, const std::string& op) {
    for (const auto& s : spans)
        if (s.operation == op) return &s;
    return nullptr;
}

} // namespace

TEST(SpanTree, AssemblerReturnsTheTreeParentsFirstWithWhereItsEventsLanded) {
    std::vector<RawSpan> spans;
    // Given children first and out of order on purpose.
    spans.push_back(span("s", "c", "db", "query", 30, 60, "dbhost"));
    spans.back().attributes = {{"span.kind", "server"}, {"db.statement", "SELECT 1"}};
    spans.back().events = {{"rows", 50}};
    spans.push_back(span("c", "r", "web", "call db", 20, 70, "webhost"));
    spans.back().attributes = {{"span.kind", "SPAN_KIND_CLIENT"}};
    spans.push_back(span("l", "r", "web", "render", 80, 90, "webhost"));
    spans.back().followsFrom = {"c"};
    spans.push_back(span("r", "", "web", "GET /", 10, 100, "webhost"));
    const AssembledTrace t = assembleTrace(spans);
    ASSERT_EQ(t.spans.size(), 4u);
    EXPECT_EQ(t.spans[0].spanId, "r");
    EXPECT_EQ(t.spans[1].spanId, "c");
    EXPECT_EQ(t.spans[2].spanId, "s");
    EXPECT_EQ(t.spans[3].spanId, "l");
    EXPECT_EQ(t.spans[0].parent, -1);
    EXPECT_EQ(t.spans[1].parent, 0);
    EXPECT_EQ(t.spans[2].parent, 1);
    EXPECT_EQ(t.spans[3].parent, 0);
    EXPECT_EQ(t.spans[1].kind, "client");
    EXPECT_EQ(t.spans[2].kind, "server");
    EXPECT_EQ(t.spans[0].kind, "");
    EXPECT_EQ(t.spans[2].host, "dbhost");
    EXPECT_EQ(t.spans[2].attributes.size(), 2u);
    EXPECT_EQ(t.spans[2].attributes[1].second, "SELECT 1");
    ASSERT_EQ(t.spans[2].events.size(), 1u);
    EXPECT_EQ(t.spans[2].events[0].name, "rows");
    EXPECT_EQ(t.spans[2].events[0].tsNs, 50);
    EXPECT_EQ(t.spans[3].links, std::vector<std::string>{"c"});
    // The server joined its client's task: its events land there.
    EXPECT_EQ(t.spans[2].taskName(), t.spans[1].taskName());
    expectWellFormed(t.spans);
    for (const auto& s : t.spans) {
        bool start = false, end = false;
        for (const auto& e : t.events) {
            if (t.text(e.task) != s.taskName()) continue;
            if (e.seq == s.startOrd) { start = true; EXPECT_EQ(e.tsNs, s.startNs) << s.spanId; }
            if (e.seq == s.endOrd) { end = true; EXPECT_EQ(e.tsNs, s.endNs) << s.spanId; }
        }
        EXPECT_TRUE(start && end) << s.spanId;
    }
}

// A server hanging from a span of another service that is not a client was called by a span of that
// service which was running all along: the innermost internal span under the parent that encloses the
// call. It keeps its parent as written; its caller is the enclosing span, and its call and return are
// that span's events. Without kinds, under a client, or with nothing enclosing it, it stays as written.
TEST(SpanTree, ServerCalledFromAnEnclosingInternalSpanWaitsThere) {
    auto kind = [](RawSpan s, const char* k) {
        if (*k) s.attributes = {{"span.kind", k}};
        return s;
    };
    auto trace = [&](const char* parentKind, const char* innerKind, TimeNs innerEnd) {
        return std::vector<RawSpan>{
            kind(span("r", "", "gw", "query", 0, 100, "h1"), parentKind),
            kind(span("x", "r", "gw", "execute", 2, innerEnd, "h1"), innerKind),
            kind(span("y", "x", "gw", "resolve", 3, 95, "h1"), innerKind),
            kind(span("a", "r", "agent", "invoke", 5, 90, "h2"), "server"),
            kind(span("b", "a", "agent", "model", 6, 80, "h2"), "client"),
        };
    };
    auto byId = [](const AssembledTrace& t, const std::string& id) -> const SpanRecord& {
        for (const auto& s : t.spans)
            if (s.spanId == id) return s;
        ADD_FAILURE() << "no span " << id;
        return t.spans.front();
    };
    auto index = [](const AssembledTrace& t, const std::string& id) {
        for (std::size_t i = 0; i < t.spans.size(); ++i)
            if (t.spans[i].spanId == id) return static_cast<std::int32_t>(i);
        return -2;
    };
    {
        const AssembledTrace t = assembleTrace(trace("server", "internal", 99));
        expectWellFormed(t.spans);
        const SpanRecord& agent = byId(t, "a");
        EXPECT_EQ(agent.parent, index(t, "r"));   // as written
        EXPECT_EQ(agent.caller, index(t, "y"));   // the innermost enclosing internal span
        EXPECT_EQ(byId(t, "b").caller, -1);       // its own child is where it was
        EXPECT_EQ(byId(t, "y").caller, -1);
        // The call and the return are events of the caller's task, not the parent's.
        const std::string callerTask = byId(t, "y").taskName(), parentTask = byId(t, "r").taskName();
        int inCaller = 0, inParent = 0;
        for (const auto& e : t.events) {
            const std::string name = t.text(e.event);
            if (name.find("invoke") == std::string::npos || t.text(e.task) == agent.taskName()) continue;
            inCaller += t.text(e.task) == callerTask;
            inParent += t.text(e.task) == parentTask;
        }
        EXPECT_EQ(inCaller, 2);
        EXPECT_EQ(inParent, 0);
    }
    // The inner spans end before the call returns: nothing encloses it.
    EXPECT_EQ(byId(assembleTrace(trace("server", "internal", 60)), "a").caller, -1);
    // No kinds: read as written.
    EXPECT_EQ(byId(assembleTrace(trace("", "", 99)), "a").caller, -1);
    // The parent is a client: the call is its own.
    EXPECT_EQ(byId(assembleTrace(trace("client", "internal", 99)), "a").caller, -1);
}

// A trace over more than one block of input spans (SpanBlocks), given in shuffled order with spans to
// drop in every block: the records come out depth first with siblings in start order, as a plain walk
// of the known tree says, and each keeps its own fields.
TEST(SpanTree, TraceOfSeveralBlocksIsTheKnownTreeDepthFirst) {
    const std::size_t n = SpanBlocks::kBlock + 20000;
    std::mt19937 random(11);
    std::vector<std::size_t> parentOf(n);
    std::vector<std::vector<std::size_t>> kids(n);
    for (std::size_t i = 1; i < n; ++i) {
        parentOf[i] = random() % std::min<std::size_t>(i, 50) + (i > 50 ? i - 50 : 0);  // bushy and deep
        kids[parentOf[i]].push_back(i);  // i rising: start order, as span i starts at 10 * i
    }
    std::vector<std::size_t> given(n);
    for (std::size_t i = 0; i < n; ++i) given[i] = i;
    std::shuffle(given.begin(), given.end(), random);
    std::vector<RawSpan> spans;
    std::size_t untimed = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = given[k];
        const std::string id = std::to_string(i);
        spans.push_back(span(id.c_str(), i == 0 ? "" : std::to_string(parentOf[i]).c_str(), "svc", ("op" + id).c_str(),
                             TimeNs(10 * i), TimeNs(10 * i + 5 * n), "h"));
        if (k % 997 == 0) {  // a span without a time, dropped: one or more in every block
            spans.push_back(span(("x" + id).c_str(), "0", "svc", "untimed", 0, 0, "h"));
            spans.back().hasTimestamp = false;
            ++untimed;
        }
    }
    std::vector<std::size_t> expected, stack{0};
    while (!stack.empty()) {
        const std::size_t i = stack.back();
        stack.pop_back();
        expected.push_back(i);
        for (auto c = kids[i].rbegin(); c != kids[i].rend(); ++c) stack.push_back(*c);
    }
    const AssembledTrace t = assembleTrace(std::move(spans));
    EXPECT_EQ(t.warnings.size(), untimed);
    ASSERT_EQ(t.spans.size(), n);
    std::vector<std::int32_t> at(n, -1);
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = expected[k];
        at[i] = static_cast<std::int32_t>(k);
        ASSERT_EQ(t.spans[k].spanId, std::to_string(i)) << "record " << k;
        EXPECT_EQ(t.spans[k].operation, "op" + std::to_string(i));
        EXPECT_EQ(t.spans[k].startNs, TimeNs(10 * i));
        EXPECT_EQ(t.spans[k].parent, i == 0 ? -1 : at[parentOf[i]]) << "record " << k;
    }
}

TEST(SpanTree, JaegerGenAiTraceRoundTripsThroughTheStore) {
    REQUIRE_REAL_DATA();
    Imported imported({kRealData + "jaeger/TraceTimelineViewer__genaiTestTrace.json"});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    const RequestSpans spans = imported.spansOf("4a1b2c3d4e5f60718293a4b5c6d7e8f9");
    ASSERT_EQ(spans.size(), 57u);
    expectWellFormed(spans);
    EXPECT_EQ(spans[0].operation, "POST /api/graphql");
    EXPECT_EQ(spans[0].parent, -1);
    EXPECT_EQ(spans[0].kind, "server");
    EXPECT_EQ(spans[0].attributes.size(), 4u);
    EXPECT_EQ(spans[0].startNs, 1770000000001000LL * 1000);
    EXPECT_EQ(spans[0].endNs - spans[0].startNs, 44000000LL * 1000);
    const SpanRecord* agent = byOperation(spans, "invoke_agent triage-agent");
    ASSERT_NE(agent, nullptr);
    EXPECT_EQ(spans[static_cast<std::size_t>(agent->parent)].operation, "Query.assistantReply");
    EXPECT_EQ(agent->attributes.size(), 4u);
    // Each span's start event is in the store where the record says.
    EXPECT_EQ(imported.scalar("SELECT COUNT(*) FROM spans s JOIN events e ON e.request_id=s.request_id AND e.task_id=s.task_id "
                              "AND e.ord=s.start_ord AND e.ts_ns=s.start_ns"),
              57);
}

TEST(SpanTree, ZipkinSharedServerSpanIsAChildOfItsClientHalf) {
    REQUIRE_REAL_DATA();
    Imported imported({kRealData + "zipkin/yelp.json"});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    ASSERT_EQ(spanRequestIds(*imported.store).size(), 1u);
    const RequestSpans spans = requestSpans(*imported.store, RequestId(spanRequestIds(*imported.store)[0]));
    ASSERT_EQ(spans.size(), 16u);
    expectWellFormed(spans);
    int pairs = 0;
    for (const auto& s : spans) {
        if (s.kind != "server" || s.parent < 0) continue;
        const SpanRecord& p = spans[static_cast<std::size_t>(s.parent)];
        if (p.spanId != s.spanId) continue;
        ++pairs;
        EXPECT_EQ(p.kind, "client");
        EXPECT_NE(p.service, s.service);
    }
    EXPECT_EQ(pairs, 3);  // 7a77..., f5f2..., 668e... have both halves; the root's client half is missing
    const SpanRecord* spectre = byOperation(spans, "get");
    ASSERT_NE(spectre, nullptr);
}

TEST(SpanTree, ZipkinAnnotationsAreTheSpanEventsAndTagsItsAttributes) {
    REQUIRE_REAL_DATA();
    Imported imported({kRealData + "zipkin/smartthings-mobile-web-install.json"});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    std::size_t events = 0, spanCount = 0;
    ASSERT_TRUE(scanSpans(*imported.store, [&](RequestId, const RequestSpans& spans) {
        expectWellFormed(spans);
        spanCount += spans.size();
        for (const auto& s : spans) events += s.events.size();
        return true;
    }));
    EXPECT_EQ(events, 92u);  // the file's annotations
    EXPECT_EQ(static_cast<std::int64_t>(spanCount), imported.scalar("SELECT COUNT(*) FROM spans"));
}

// The shape scan (the service map's) reads what the full scan reads, span for span, in the same order.
TEST(SpanTree, ShapeScanIsTheRecordsShapes) {
    REQUIRE_REAL_DATA();
    Imported imported({kRealData + "zipkin/smartthings-mobile-web-install.json", kRealData + "jaeger/TraceStatistics__testTrace.json",
                       kRealData + "otlp/opentelemetry-proto_examples_trace.json"});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    std::vector<std::pair<RequestId, RequestSpans>> records;
    ASSERT_TRUE(scanSpans(*imported.store, [&](RequestId id, const RequestSpans& spans) {
        records.emplace_back(id, spans);
        return true;
    }));
    ASSERT_GE(records.size(), 3u);
    std::size_t request = 0;
    ASSERT_TRUE(scanSpanShapes(*imported.store, [&](RequestId id, const std::vector<SpanShape>& shapes) {
        EXPECT_LT(request, records.size());
        if (request >= records.size()) return false;
        const auto& [recordId, spans] = records[request++];
        EXPECT_EQ(id, recordId);
        EXPECT_EQ(shapes.size(), spans.size());
        for (std::size_t i = 0; i < std::min(shapes.size(), spans.size()); ++i) {
            EXPECT_EQ(shapes[i].parent, spans[i].parent) << i;
            EXPECT_EQ(shapes[i].service, spans[i].service) << i;
            EXPECT_EQ(shapes[i].operation, spans[i].operation) << i;
            EXPECT_EQ(shapes[i].host, spans[i].host) << i;
            EXPECT_EQ(shapes[i].kind, spans[i].kind) << i;
            EXPECT_EQ(shapes[i].startNs, spans[i].startNs) << i;
            EXPECT_EQ(shapes[i].endNs, spans[i].endNs) << i;
            EXPECT_EQ(shapes[i].taskName(), spans[i].taskName()) << i;
            EXPECT_EQ(shapes[i].startOrd, spans[i].startOrd) << i;
            EXPECT_EQ(shapes[i].endOrd, spans[i].endOrd) << i;
        }
        return true;
    }, [&] { EXPECT_EQ(request, records.size()) << "called once every request was handed over"; ++request; }));
    EXPECT_EQ(request, records.size() + 1) << "and once";
    // One request's shapes (which own their texts) and one span's whole record, as the span tree reads them.
    for (const auto& [id, spans] : records) {
        const RequestSpanShapes one = requestSpanShapes(*imported.store, id);
        ASSERT_EQ(one.spans.size(), spans.size());
        for (std::size_t i = 0; i < spans.size(); ++i) {
            EXPECT_EQ(one.spans[i].operation, spans[i].operation) << i;
            EXPECT_EQ(one.spans[i].taskName(), spans[i].taskName()) << i;
            const auto whole = requestSpan(*imported.store, id, static_cast<std::uint32_t>(i));
            ASSERT_TRUE(whole) << i;
            EXPECT_EQ(whole->spanId, spans[i].spanId) << i;
            EXPECT_EQ(whole->attributes, spans[i].attributes) << i;
            EXPECT_EQ(whole->processAttributes, spans[i].processAttributes) << i;
            EXPECT_EQ(whole->links, spans[i].links) << i;
            ASSERT_EQ(whole->events.size(), spans[i].events.size()) << i;
            for (std::size_t k = 0; k < spans[i].events.size(); ++k) EXPECT_EQ(whole->events[k].name, spans[i].events[k].name);
        }
        EXPECT_FALSE(requestSpan(*imported.store, id, static_cast<std::uint32_t>(spans.size()))) << "past its last span";
    }
    CancelToken cancelled;
    cancelled.cancel();
    EXPECT_TRUE(requestSpanShapes(*imported.store, records.front().first, &cancelled).spans.empty()) << "a cancelled read gives nothing";
    int visited = 0;
    EXPECT_EQ(scanSpanShapes(*imported.store, [&](RequestId, const std::vector<SpanShape>&) { return ++visited < 2; }).message(), "cancelled");
    EXPECT_EQ(visited, 2);
}

TEST(SpanTree, JaegerFollowsFromBesideAParentIsALink) {
    REQUIRE_REAL_DATA();
    Imported real({kRealData + "jaeger/TraceStatistics__testTrace.json"});
    ASSERT_TRUE(real.summary) << real.summary.message();
    const RequestSpans spans = real.spansOf("trace-123");
    ASSERT_EQ(spans.size(), 11u);
    expectWellFormed(spans);
    // A FOLLOWS_FROM beside a CHILD_OF is a link (alone, it is the parent, as in Jaeger UI).
    test::ScratchDir dir;
    Imported imported({dir.write("ff.json",
        R"({"data":[{"traceID":"ff","processes":{"p1":{"serviceName":"web"}},"spans":[)"
        R"({"spanID":"a","operationName":"A","startTime":1000000,"duration":100,"processID":"p1"},)"
        R"({"spanID":"b","operationName":"B","startTime":1000010,"duration":10,"processID":"p1","references":[{"refType":"CHILD_OF","spanID":"a"}]},)"
        R"({"spanID":"c","operationName":"C","startTime":1000030,"duration":10,"processID":"p1","references":[)"
        R"({"refType":"CHILD_OF","spanID":"a"},{"refType":"FOLLOWS_FROM","spanID":"b"}]}]}]})")});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    const RequestSpans ff = imported.spansOf("ff");
    ASSERT_EQ(ff.size(), 3u);
    EXPECT_EQ(ff[2].spanId, "c");
    EXPECT_EQ(ff[2].parent, 0);
    EXPECT_EQ(ff[2].links, std::vector<std::string>{"b"});
}

TEST(SpanTree, OtlpExampleKeepsKindAttributesAndEvents) {
    REQUIRE_REAL_DATA();
    Imported imported({kRealData + "otlp/opentelemetry-proto_examples_trace.json"});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    std::vector<RequestSpans> all;
    ASSERT_TRUE(scanSpans(*imported.store, [&](RequestId, const RequestSpans& spans) {
        all.push_back(spans);
        return true;
    }));
    ASSERT_EQ(all.size(), 1u);
    ASSERT_EQ(all[0].size(), static_cast<std::size_t>(imported.summary->spans));
    expectWellFormed(all[0]);
    EXPECT_EQ(all[0][0].service, "my.service");
    EXPECT_EQ(all[0][0].kind, "server");
    std::size_t attrs = 0;
    for (const auto& s : all[0]) attrs += s.attributes.size();
    EXPECT_GT(attrs, 0u);
    // The resource's attributes are the process's, apart from the span's own.
    const auto& resource = all[0][0].processAttributes;
    EXPECT_NE(std::find(resource.begin(), resource.end(), std::pair<std::string, std::string>{"service.name", "my.service"}), resource.end());
    for (const auto& [k, v] : all[0][0].attributes) EXPECT_NE(k, "service.name");
}

// A span's own tags and its process's are kept apart (they were merged, so the detail panel showed a
// process's tags as every span's own); the request's attributes still see both, as the analysis did.
TEST(SpanTree, ProcessTagsAreKeptApartFromTheSpansOwn) {
    test::ScratchDir dir;
    Imported imported({dir.write("p.json", R"({"data":[{"traceID":"t1","processes":{"p1":{"serviceName":"web","tags":[)"
                                               R"({"key":"hostname","value":"web-7"},{"key":"ip","value":"10.0.0.7"}]}},"spans":[)"
                                               R"({"spanID":"a","operationName":"GET","startTime":1000,"duration":50,"processID":"p1",)"
                                               R"("tags":[{"key":"http.status_code","value":200},{"key":"span.kind","value":"server"}]},)"
                                               R"({"spanID":"b","operationName":"db","startTime":1010,"duration":20,"processID":"p1",)"
                                               R"("references":[{"refType":"CHILD_OF","spanID":"a"}]}]}]})")});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    const RequestSpans spans = imported.spansOf("t1");
    ASSERT_EQ(spans.size(), 2u);
    using Tags = std::vector<std::pair<std::string, std::string>>;
    EXPECT_EQ(spans[0].attributes, (Tags{{"http.status_code", "200"}, {"span.kind", "server"}}));
    EXPECT_EQ(spans[0].processAttributes, (Tags{{"hostname", "web-7"}, {"ip", "10.0.0.7"}}));
    EXPECT_TRUE(spans[1].attributes.empty());
    EXPECT_EQ(spans[1].processAttributes, spans[0].processAttributes);
    EXPECT_EQ(spans[0].host, "web-7");
    const auto request = requestAttributes(*imported.store, *requestByName(*imported.store, "t1"));
    EXPECT_EQ(request, (Tags{{"hostname", "web-7"}, {"http.status_code", "200"}, {"ip", "10.0.0.7"}, {"span.kind", "server"}}));
}

// A process's tags are stored once, not on each of its spans: two traces of one process, and a second file of it,
// add one process row of two tags; each span still reads them back, and a database of the older layout (each
// span's process tags on the span) reads the same after its upgrade.
TEST(SpanTree, AProcesssTagsAreStoredOnceAndUpgradedToThat) {
    test::ScratchDir dir;
    auto trace = [](const std::string& id, const std::string& host) {
        return R"({"traceID":")" + id + R"(","processes":{"p1":{"serviceName":"web","tags":[{"key":"hostname","value":"web-7"},)"
               R"({"key":"ip","value":"10.0.0.7"}]},"p2":{"serviceName":"db","tags":[{"key":"hostname","value":")" + host + R"("}]}},)"
               R"("spans":[{"spanID":"a","operationName":"GET","startTime":1000,"duration":50,"processID":"p1",)"
               R"("tags":[{"key":"span.kind","value":"server"}]},)"
               R"({"spanID":"b","operationName":"q","startTime":1010,"duration":20,"processID":"p2","references":[{"refType":"CHILD_OF","spanID":"a"}]},)"
               R"({"spanID":"c","operationName":"render","startTime":1031,"duration":10,"processID":"p1","references":[{"refType":"CHILD_OF","spanID":"a"}]}]})";
    };
    Imported imported({dir.write("one.json", R"({"data":[)" + trace("t1", "db-1") + "," + trace("t2", "db-1") + "]}"),
                       dir.write("two.json", R"({"data":[)" + trace("t3", "db-2") + "]}")});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    const TraceStore& store = *imported.store;
    EXPECT_EQ(test::StoreAccess::rows(store, "SELECT COUNT(*) FROM processes"), (std::vector<std::string>{"3"}));  // web, db-1, db-2
    EXPECT_EQ(test::StoreAccess::rows(store, "SELECT COUNT(*) FROM process_attrs"), (std::vector<std::string>{"4"}));
    EXPECT_EQ(test::StoreAccess::rows(store, "SELECT COUNT(*) FROM spans WHERE tags IS NOT NULL"), (std::vector<std::string>{"3"}));  // span.kind of each a
    using Tags = std::vector<std::pair<std::string, std::string>>;
    std::vector<RequestSpans> before;
    for (const char* id : {"t1", "t2", "t3"}) {
        const RequestSpans spans = imported.spansOf(id);
        ASSERT_EQ(spans.size(), 3u) << id;
        EXPECT_EQ(spans[0].processAttributes, (Tags{{"hostname", "web-7"}, {"ip", "10.0.0.7"}})) << id;
        EXPECT_EQ(spans[0].attributes, (Tags{{"span.kind", "server"}})) << id;
        EXPECT_EQ(spans[1].processAttributes, (Tags{{"hostname", id == std::string("t3") ? "db-2" : "db-1"}})) << id;
        EXPECT_EQ(spans[2].processAttributes, spans[0].processAttributes) << id;
        EXPECT_TRUE(spans[2].attributes.empty()) << id;
        before.push_back(spans);
    }
    const std::string path = store.path();
    imported.store.reset();
    {
        auto older = TraceStore::open(path, TraceStore::Mode::ReadWrite);
        ASSERT_TRUE(older) << older.message();
        ASSERT_TRUE(test::undoSchema18(test::StoreAccess::db(*older.value())));
        char* err = nullptr;
        ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(*older.value()), test::StoreAccess::kUndoSchema17, nullptr, nullptr, &err), SQLITE_OK)
            << (err ? err : "");
        EXPECT_EQ(test::StoreAccess::rows(*older.value(), "SELECT COUNT(*) FROM span_attrs WHERE process=1"), (std::vector<std::string>{"15"}));
    }
    auto upgraded = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(upgraded) << upgraded.message();
    EXPECT_EQ(upgraded.value()->schemaVersion(), TraceStore::kSchemaVersion);
    EXPECT_EQ(test::StoreAccess::rows(*upgraded.value(), "SELECT COUNT(*) FROM processes"), (std::vector<std::string>{"3"}));
    EXPECT_EQ(test::StoreAccess::rows(*upgraded.value(), "SELECT COUNT(*) FROM process_attrs"), (std::vector<std::string>{"4"}));
    EXPECT_EQ(test::StoreAccess::rows(*upgraded.value(), "SELECT COUNT(*) FROM spans WHERE tags IS NOT NULL"), (std::vector<std::string>{"3"}));
    int k = 0;
    for (const char* id : {"t1", "t2", "t3"}) {
        const RequestSpans after = requestSpans(*upgraded.value(), *requestByName(*upgraded.value(), id));
        ASSERT_EQ(after.size(), before[k].size()) << id;
        for (std::size_t i = 0; i < after.size(); ++i) {
            EXPECT_EQ(after[i].attributes, before[k][i].attributes) << id << ' ' << i;
            EXPECT_EQ(after[i].processAttributes, before[k][i].processAttributes) << id << ' ' << i;
        }
        ++k;
    }
}

// A span's own tags, events and links are packed on its row (one row per span, not one per tag, event and link),
// read back as they were imported, and a database of the older layout (a row each) reads the same after its
// upgrade: the spans, the event model derived from them and the events' attributes.
TEST(SpanTree, ASpansTagsEventsAndLinksArePackedOnItsRowAndUpgradedToThat) {
    test::ScratchDir dir;
    const std::string file = dir.write("t.json",
        R"({"data":[{"traceID":"t1","processes":{"p1":{"serviceName":"web","tags":[{"key":"hostname","value":"web-7"}]}},)"
        R"("spans":[{"spanID":"a","operationName":"GET","startTime":1000,"duration":50,"processID":"p1",)"
        R"("tags":[{"key":"span.kind","value":"server"},{"key":"http.status_code","type":"int64","value":200},{"key":"empty","value":""}],)"
        R"("logs":[{"timestamp":1005,"fields":[{"key":"event","value":"retry"}]},{"timestamp":1003,"fields":[{"key":"event","value":"retry"}]}]},)"
        R"({"spanID":"b","operationName":"q","startTime":1010,"duration":20,"processID":"p1","references":[{"refType":"CHILD_OF","spanID":"a"},)"
        R"({"refType":"FOLLOWS_FROM","traceID":"t0","spanID":"x'1"},{"refType":"FOLLOWS_FROM","traceID":"t0","spanID":"y2"}],)"
        R"("logs":[{"timestamp":900,"fields":[{"key":"event","value":"early"}]}]}]}]})");
    Imported imported({file});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    const TraceStore& store = *imported.store;
    EXPECT_EQ(test::StoreAccess::rows(store, "SELECT idx, tags IS NULL, events IS NULL, links IS NULL FROM spans ORDER BY idx"),
              (std::vector<std::string>{"0|0|0|1", "1|1|0|0"}));
    const RequestSpans before = imported.spansOf("t1");
    ASSERT_EQ(before.size(), 2u);
    using Tags = std::vector<std::pair<std::string, std::string>>;
    EXPECT_EQ(before[0].attributes, (Tags{{"span.kind", "server"}, {"http.status_code", "200"}, {"empty", ""}}));
    ASSERT_EQ(before[0].events.size(), 2u);
    EXPECT_EQ(before[1].links.size(), 2u);
    const auto modelOf = [](const TraceStore& s) {
        test::StoreAccess::materializeEventModel(s);
        auto rows = test::StoreAccess::rows(s, "SELECT * FROM temp.events ORDER BY 1, 2, 3");
        for (auto& link : test::StoreAccess::rows(s, "SELECT * FROM temp.causal_links ORDER BY 1, 2, 3, 4, 5")) rows.push_back("link " + link);
        auto request = requestByName(s, "t1");
        for (const auto& a : eventAttributes(s, *request)) rows.push_back("attr " + a.event + " " + a.key + "=" + a.value);
        return rows;
    };
    const auto modelBefore = modelOf(store);
    EXPECT_GT(modelBefore.size(), 6u);
    const std::string path = store.path();
    imported.store.reset();
    {
        auto older = TraceStore::open(path, TraceStore::Mode::ReadWrite);
        ASSERT_TRUE(older) << older.message();
        ASSERT_TRUE(test::undoSchema18(test::StoreAccess::db(*older.value())));
        EXPECT_EQ(test::StoreAccess::rows(*older.value(), "SELECT COUNT(*) FROM span_attrs"), (std::vector<std::string>{"3"}));
        EXPECT_EQ(test::StoreAccess::rows(*older.value(), "SELECT COUNT(*) FROM span_events"), (std::vector<std::string>{"3"}));
        EXPECT_EQ(test::StoreAccess::rows(*older.value(), "SELECT span_id FROM span_links ORDER BY pos"), (std::vector<std::string>{"x'1", "y2"}));
    }
    auto upgraded = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(upgraded) << upgraded.message();
    EXPECT_EQ(upgraded.value()->schemaVersion(), TraceStore::kSchemaVersion);
    EXPECT_EQ(test::StoreAccess::rows(*upgraded.value(), "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('span_attrs', 'span_events', 'span_links')"),
              (std::vector<std::string>{"0"}));
    const RequestSpans after = requestSpans(*upgraded.value(), *requestByName(*upgraded.value(), "t1"));
    ASSERT_EQ(after.size(), before.size());
    for (std::size_t i = 0; i < after.size(); ++i) {
        EXPECT_EQ(after[i].attributes, before[i].attributes) << i;
        EXPECT_EQ(after[i].links, before[i].links) << i;
        ASSERT_EQ(after[i].events.size(), before[i].events.size()) << i;
        for (std::size_t k = 0; k < after[i].events.size(); ++k) {
            EXPECT_EQ(after[i].events[k].name, before[i].events[k].name) << i << ' ' << k;
            EXPECT_EQ(after[i].events[k].tsNs, before[i].events[k].tsNs) << i << ' ' << k;
        }
    }
    EXPECT_EQ(modelOf(*upgraded.value()), modelBefore);
}

// A damaged packed part is reported with the span it is on, not read as something else.
TEST(SpanTree, ADamagedPackedPartIsReportedNotGuessedAt) {
    test::ScratchDir dir;
    Imported imported({dir.write("t.json", R"({"data":[{"traceID":"t1","processes":{"p1":{"serviceName":"web"}},)"
                                           R"("spans":[{"spanID":"a","operationName":"GET","startTime":1000,"duration":50,"processID":"p1",)"
                                           R"("tags":[{"key":"k","value":"v"}]}]}]})")});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(*imported.store), "UPDATE spans SET tags = x'0180'", nullptr, nullptr, nullptr), SQLITE_OK);
    bool called = false;
    const Status read = scanSpans(*imported.store, [&](RequestId, const RequestSpans&) { return called = true; });
    EXPECT_FALSE(read);
    EXPECT_NE(read.message().find("span 0: its tags, events or links are damaged"), std::string::npos) << read.message();
    EXPECT_FALSE(called);
}

// Spans are read for all requests in request order, one visit each, identical to the per-request read;
// an event-log import has none.
TEST(SpanTree, ScanVisitsEachSpanRequestInOrderAndMatchesTheSingleRead) {
    REQUIRE_REAL_DATA();
    Imported imported({kRealData + "zipkin/yelp.json", kRealData + "jaeger/TraceStatistics__testTrace.json",
                       kRealData + "jaeger/TraceTimelineViewer__genaiTestTrace.json"});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    std::vector<std::uint32_t> seen;
    ASSERT_TRUE(scanSpans(*imported.store, [&](RequestId id, const RequestSpans& spans) {
        seen.push_back(id.value);
        const RequestSpans one = requestSpans(*imported.store, id);
        EXPECT_EQ(one.size(), spans.size());
        for (std::size_t i = 0; i < one.size() && i < spans.size(); ++i) {
            EXPECT_EQ(one[i].spanId, spans[i].spanId);
            EXPECT_EQ(one[i].attributes, spans[i].attributes);
            EXPECT_EQ(one[i].links, spans[i].links);
            EXPECT_EQ(one[i].events.size(), spans[i].events.size());
        }
        return true;
    }));
    EXPECT_EQ(seen.size(), 3u);
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    // Stopping early says so.
    EXPECT_FALSE(scanSpans(*imported.store, [](RequestId, const RequestSpans&) { return false; }));
}

TEST(SpanTree, EventLogsHaveNoSpans) {
    test::ScratchDir dir;
    Imported imported({dir.write("e.csv", "request,host,task,event,ts_us\nr1,h,t,a,1\nr1,h,t,b,2\n")});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    EXPECT_TRUE(imported.spansOf("r1").empty());
    EXPECT_EQ(imported.scalar("SELECT COUNT(*) FROM spans"), 0);
}

// A trace of 100,000 spans is written and read back with a fixed number of statements (no query per
// span): this completes within the test's time limit only when it is linear.
TEST(SpanTree, HundredThousandSpanTraceRoundTrips) {
    constexpr int kSpans = 100000;
    test::ScratchDir dir;
    std::string text = R"({"data":[{"traceID":"big","processes":{"p1":{"serviceName":"web"}},"spans":[)"
                       R"({"spanID":"s0","operationName":"GET","startTime":1000000,"duration":3000000,"processID":"p1",)"
                       R"("tags":[{"key":"k","type":"string","value":"v"}]})";
    for (int i = 1; i < kSpans; ++i)
        text += R"(,{"spanID":"s)" + std::to_string(i) + R"(","operationName":"work","startTime":)" + std::to_string(1000010 + 10 * i) +
                R"(,"duration":5,"processID":"p1","references":[{"refType":"CHILD_OF","spanID":"s)" + std::to_string(i / 2) +
                R"("}],"logs":[{"timestamp":)" + std::to_string(1000011 + 10 * i) + R"(,"fields":[{"key":"event","value":"x"}]}]})";
    text += "]}]}";
    Imported imported({dir.write("big.json", text)});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    const RequestSpans spans = imported.spansOf("big");
    ASSERT_EQ(spans.size(), static_cast<std::size_t>(kSpans));
    expectWellFormed(spans);
    EXPECT_EQ(spans[0].attributes, (std::vector<std::pair<std::string, std::string>>{{"k", "v"}}));
    std::size_t events = 0;
    for (const auto& s : spans) events += s.events.size();
    EXPECT_EQ(events, static_cast<std::size_t>(kSpans - 1));
}

// ---- per-span critical time ----------------------------------------------------------------------

namespace {
struct Analysed {
    RequestDetail detail;
    RequestSpans spans;
    SpanCriticalPath path;
};
Analysed analyse(Imported& imported, const std::string& request) {
    AnalysisOptions options;
    options.inference.supportFloor = 1;
    EXPECT_TRUE(analyzeStore(*imported.store, options));
    Analysed a;
    const auto id = requestByName(*imported.store, request);
    EXPECT_TRUE(id.has_value());
    if (!id) return a;
    auto detail = loadRequestDetail(*imported.store, *id);
    EXPECT_TRUE(detail) << detail.message();
    if (!detail) return a;
    a.detail = std::move(detail.value());
    a.spans = requestSpans(*imported.store, *id);
    a.path = spanCriticalPath(a.detail, spanShapes(a.spans));
    return a;
}
std::size_t spanOf(const Analysed& a, const std::string& op) {
    for (std::size_t i = 0; i < a.spans.size(); ++i)
        if (a.spans[i].operation == op) return i;
    ADD_FAILURE() << "no span " << op;
    return a.spans.size();
}
const SpanCriticalTime& timeOf(const Analysed& a, const std::string& op) {
    for (std::size_t i = 0; i < a.spans.size(); ++i)
        if (a.spans[i].operation == op) return a.path.times.spans[i];
    static SpanCriticalTime none;
    ADD_FAILURE() << "no span " << op;
    return none;
}
constexpr TimeNs kMs = 1000000;
} // namespace

// The textbook request: GET / on web calls the database (a client span with its server on db) and
// then renders locally. The path runs through the root's start, the trip out, the query, the trip
// back, the root again, the render and the root's end.
TEST(SpanCriticalPath, TextbookTraceSplitsTheCriticalPathAmongSpans) {
    test::ScratchDir dir;
    Imported imported({dir.write("book.json",
        R"({"data":[{"traceID":"book","processes":{"w":{"serviceName":"web"},"d":{"serviceName":"db"}},"spans":[)"
        R"({"spanID":"r","operationName":"GET /","startTime":1000000,"duration":100000,"processID":"w"},)"
        R"({"spanID":"c","operationName":"call db","startTime":1010000,"duration":80000,"processID":"w",)"
        R"("tags":[{"key":"span.kind","value":"client"}],"references":[{"refType":"CHILD_OF","spanID":"r"}]},)"
        R"({"spanID":"s","operationName":"query","startTime":1020000,"duration":60000,"processID":"d",)"
        R"("tags":[{"key":"span.kind","value":"server"}],"references":[{"refType":"CHILD_OF","spanID":"c"}],)"
        R"("logs":[{"timestamp":1050000,"fields":[{"key":"event","value":"rows read"}]}]},)"
        R"({"spanID":"l","operationName":"render","startTime":1092000,"duration":6000,"processID":"w",)"
        R"("references":[{"refType":"CHILD_OF","spanID":"r"}]}]}]})")});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    const Analysed a = analyse(imported, "book");
    ASSERT_EQ(a.spans.size(), 4u);
    EXPECT_EQ(a.detail.criticalPath.latencyNs, 100 * kMs);
    // Self time: own time minus the children.
    EXPECT_EQ(timeOf(a, "GET /").selfNs, 14 * kMs);
    EXPECT_EQ(timeOf(a, "call db").selfNs, 20 * kMs);
    EXPECT_EQ(timeOf(a, "query").selfNs, 60 * kMs);
    EXPECT_EQ(timeOf(a, "render").selfNs, 6 * kMs);
    // Critical time: everything is on the path here; the client's part is its network trips.
    EXPECT_EQ(timeOf(a, "query").criticalNs, 60 * kMs);
    EXPECT_EQ(timeOf(a, "query").networkNs, 0);
    EXPECT_EQ(timeOf(a, "call db").criticalNs, 20 * kMs);
    EXPECT_EQ(timeOf(a, "call db").networkNs, 20 * kMs);
    EXPECT_EQ(timeOf(a, "render").criticalNs, 6 * kMs);
    EXPECT_EQ(timeOf(a, "GET /").criticalNs, 14 * kMs);
    // The query's log splits its time into two segments, both on the path and touching: one part.
    EXPECT_EQ(std::count(a.path.segmentSpan.begin(), a.path.segmentSpan.end(), static_cast<std::int32_t>(spanOf(a, "query"))), 2);
    const auto query = a.path.times.criticalIntervals(spanOf(a, "query"));
    ASSERT_EQ(query.size(), 1u);
    EXPECT_EQ(query[0].second - query[0].first, 60 * kMs);
    // Each span's parts are in time order, apart, and add up to its critical time.
    for (std::size_t i = 0; i < a.spans.size(); ++i) {
        TimeNs parts = 0;
        const auto intervals = a.path.times.criticalIntervals(i);
        for (std::size_t k = 0; k < intervals.size(); ++k) {
            EXPECT_LT(intervals[k].first, intervals[k].second) << a.spans[i].operation;
            if (k > 0) {
                EXPECT_LT(intervals[k - 1].second, intervals[k].first) << a.spans[i].operation;
            }
            parts += intervals[k].second - intervals[k].first;
        }
        EXPECT_EQ(parts, a.path.times.spans[i].criticalNs) << a.spans[i].operation;
    }
    // The root's own time on the path is in three parts: before the call, between the return and the
    // render, and after the render.
    EXPECT_EQ(a.path.times.criticalIntervals(spanOf(a, "GET /")).size(), 3u);
    int network = 0;
    for (bool b : a.path.criticalNetwork) network += b;
    EXPECT_EQ(network, 2);
    TimeNs sum = 0;
    for (const auto& t : a.path.times.spans) sum += t.criticalNs;
    EXPECT_EQ(sum, a.path.criticalNs);
    EXPECT_EQ(a.path.criticalNs + a.detail.criticalPath.blindNs, a.detail.criticalPath.latencyNs);
}

// The caller waited for graphql.execution, the child of Query.assistantReply that returned last; the
// agent's server span hangs from Query.assistantReply with no client span, and graphql.execution, an
// internal span of the same service, encloses the call: it waited for the agent, whose work is on the path.
TEST(SpanCriticalPath, GenAiTraceRunsThroughTheAgentItsExecutionWaitedFor) {
    REQUIRE_REAL_DATA();
    Imported imported({kRealData + "jaeger/TraceTimelineViewer__genaiTestTrace.json"});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    const Analysed a = analyse(imported, "4a1b2c3d4e5f60718293a4b5c6d7e8f9");
    ASSERT_EQ(a.spans.size(), 57u);
    // Every critical segment belongs to a span; the agent's subtree holds 42 of the 44 s, graphql.execution
    // the millisecond before the call and the second after it.
    TimeNs sum = 0, underAgent = 0, execution = 0;
    std::int32_t agent = -1;
    std::vector<bool> inAgent(a.spans.size(), false);
    for (std::size_t i = 0; i < a.spans.size(); ++i) {
        if (a.spans[i].operation == "invoke_agent triage-agent") agent = static_cast<std::int32_t>(i);
        inAgent[i] = static_cast<std::int32_t>(i) == agent ||
                     (a.spans[i].parent >= 0 && inAgent[static_cast<std::size_t>(a.spans[i].parent)]);
        sum += a.path.times.spans[i].criticalNs;
        if (inAgent[i]) underAgent += a.path.times.spans[i].criticalNs;
        if (a.spans[i].operation == "graphql.execution") execution = a.path.times.spans[i].criticalNs;
        EXPECT_LE(a.path.times.spans[i].criticalNs, a.spans[i].endNs - a.spans[i].startNs) << a.spans[i].operation;
        EXPECT_LE(a.path.times.spans[i].selfNs, a.spans[i].endNs - a.spans[i].startNs) << a.spans[i].operation;
    }
    ASSERT_GE(agent, 0);
    EXPECT_EQ(sum, a.path.criticalNs);
    EXPECT_EQ(underAgent, 42'000'000'000);
    EXPECT_EQ(execution, 999'000'000);
    EXPECT_EQ(a.spans[static_cast<std::size_t>(agent)].caller, static_cast<std::int32_t>(spanOf(a, "graphql.execution")));
    EXPECT_EQ(a.spans[static_cast<std::size_t>(agent)].parent, static_cast<std::int32_t>(spanOf(a, "Query.assistantReply")));
    EXPECT_EQ(a.path.criticalNs, 44'000'000'000);
}

// A service, operation or tag whose text reads as another one's occurrence ("web#2" beside "web") is
// interned as that occurrence, not as a text label: the span tree must still spell it, not drop the span.
TEST(SpanTree, NamesThatReadAsOccurrencesAreSpeltNotDropped) {
    test::ScratchDir dir;
    Imported imported({dir.write("o.json",
        R"({"data":[{"traceID":"t1","processes":{"p1":{"serviceName":"web"},"p2":{"serviceName":"web#2"}},"spans":[)"
        R"({"traceID":"t1","spanID":"a","operationName":"get","startTime":1000,"duration":100,"processID":"p1","references":[],)"
        R"("tags":[{"key":"k","type":"string","value":"v"}]},)"
        R"({"traceID":"t1","spanID":"b","operationName":"get#3","startTime":1010,"duration":50,"processID":"p2",)"
        R"("references":[{"refType":"CHILD_OF","traceID":"t1","spanID":"a"}],"tags":[{"key":"k#2","type":"string","value":"v#2"}],)"
        R"("logs":[{"timestamp":1020,"fields":[{"key":"event","type":"string","value":"retry"}]},)"
        R"({"timestamp":1030,"fields":[{"key":"event","type":"string","value":"retry#2"}]}]}]}]})")});
    ASSERT_TRUE(imported.summary) << imported.summary.message();
    const RequestSpans spans = imported.spansOf("t1");
    ASSERT_EQ(spans.size(), 2u);
    std::map<std::string, const SpanRecord*> byId;
    for (const auto& s : spans) byId[s.spanId] = &s;
    ASSERT_TRUE(byId.count("a") && byId.count("b"));
    EXPECT_EQ(byId["b"]->service, "web#2");
    EXPECT_EQ(byId["b"]->operation, "get#3");
    ASSERT_EQ(byId["b"]->attributes.size(), 1u);
    EXPECT_EQ(byId["b"]->attributes[0], (std::pair<std::string, std::string>{"k#2", "v#2"}));
    EXPECT_EQ(byId["a"]->service, "web");
    // Its logs too: "retry#2" beside "retry" is stored as that name's occurrence and must still be read.
    ASSERT_EQ(byId["b"]->events.size(), 2u);
    EXPECT_EQ(byId["b"]->events[0].name, "retry");
    EXPECT_EQ(byId["b"]->events[1].name, "retry#2");
}
