// A span request is stored once, as its spans: its events, causal links and event attributes are derived
// from the span rows whenever it is read, and are what the import summed.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "TestUtil.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

namespace {

// web GET (0-100 µs) calls its client span 'query' (10-60, two 'retry' logs), whose server 'select' runs on
// the db host (20-50); GET logs an event named 'end' at 90 and has a tag that differs from the request's.
const char* kTrace =
    R"({"data":[{"traceID":"t1","processes":{"p1":{"serviceName":"web"},"p2":{"serviceName":"db"}},"spans":[)"
    R"({"spanID":"a","operationName":"GET","startTime":1700000000000000,"duration":100,"processID":"p1",)"
    R"("tags":[{"key":"region","value":"eu"}],"logs":[{"timestamp":1700000000000090,"fields":[{"key":"event","value":"end"}]}]},)"
    R"({"spanID":"b","operationName":"query","startTime":1700000000000010,"duration":50,"processID":"p1",)"
    R"("tags":[{"key":"span.kind","value":"client"},{"key":"region","value":"us"}],"references":[{"refType":"CHILD_OF","spanID":"a"}],)"
    R"("logs":[{"timestamp":1700000000000012,"fields":[{"key":"event","value":"retry"}]},)"
    R"({"timestamp":1700000000000014,"fields":[{"key":"event","value":"retry"}]}]},)"
    R"({"spanID":"c","operationName":"select","startTime":1700000000000020,"duration":30,"processID":"p2",)"
    R"("tags":[{"key":"span.kind","value":"server"}],"references":[{"refType":"CHILD_OF","spanID":"b"}]})"
    R"(]}]})";

struct Stored {
    test::ScratchDir dir;
    std::unique_ptr<TraceStore> store;
    Stored() {
        auto opened = TraceStore::open(dir.file("s.tldb"), TraceStore::Mode::Create);
        store = std::move(opened.value());
        ImportOptions options;
        options.inputs = {dir.write("t.json", kTrace)};
        auto summary = importTraces(*store, options);
        EXPECT_TRUE(summary) << summary.message();
    }
    std::string text(std::uint32_t id) const { return store->label(LabelId(id)); }
    // Each task's events as "event@host +µs", in position order.
    std::map<std::string, std::vector<std::string>> eventsByTask() const {
        std::map<std::string, std::vector<std::string>> out;
        auto scanned = store->scanRequestEvents(RequestId(1), [&](const EventRow& e) {
            out[text(e.task)].push_back(text(e.event) + "@" + text(e.host) + " +" + std::to_string((e.localNs - 1700000000000000000) / 1000));
        });
        EXPECT_TRUE(scanned) << scanned.message();
        return out;
    }
};

} // namespace

TEST(DerivedEvents, ASpanRequestIsStoredOnceAndReadAsItsEventModel) {
    Stored s;
    for (const char* table : {"events", "causal_links", "event_attrs"})
        EXPECT_EQ(test::StoreAccess::rows(*s.store, std::string("SELECT COUNT(*) FROM ") + table), (std::vector<std::string>{"0"})) << table;
    const auto tasks = s.eventsByTask();
    ASSERT_EQ(tasks.size(), 2u);
    // The span event named like the span's end is the one numbered: the span's own end keeps its name.
    EXPECT_EQ(tasks.at("web:GET"), (std::vector<std::string>{"start@web +0", "call web:query@web +10", "return web:query@web +60",
                                                             "end#2@web +90", "end@web +100"}));
    // The client takes its server into its task: the trip out and back are network segments.
    EXPECT_EQ(tasks.at("web:query"), (std::vector<std::string>{"start@web +10", "retry@web +12", "retry#2@web +14",
                                                               "serve db:select@db +20", "served db:select@db +50", "end@web +60"}));
    EXPECT_EQ(test::StoreAccess::rows(*s.store, "SELECT event_count, task_count, host_count FROM requests"),
              (std::vector<std::string>{"11|2|2"}));

    // The waits: GET's call -> query's start, query's end -> GET's return.
    auto links = s.store->causalLinks(RequestId(1));
    ASSERT_TRUE(links) << links.message();
    ASSERT_EQ(links->size(), 2u);
    EXPECT_EQ(s.text(links->at(0).fromTask) + "." + std::to_string(links->at(0).fromOrd) + " -> " + s.text(links->at(0).toTask) + "." +
                  std::to_string(links->at(0).toOrd),
              "web:GET.2 -> web:query.1");
    EXPECT_EQ(s.text(links->at(1).fromTask) + "." + std::to_string(links->at(1).fromOrd) + " -> " + s.text(links->at(1).toTask) + "." +
                  std::to_string(links->at(1).toOrd),
              "web:query.6 -> web:GET.3");
    // The whole-store scan gives the same events as the request's own read.
    std::size_t scanned = 0;
    ASSERT_TRUE(s.store->scanEvents([&](const EventRow&) { return ++scanned, true; }));
    EXPECT_EQ(scanned, 11u);

    // The request takes each tag's first value (the root's region; span.kind from the client, the first span
    // that has one); a span whose value differs keeps it at its start event, the server's at its serve event.
    const auto attributes = eventAttributes(*s.store, RequestId(1));
    ASSERT_EQ(attributes.size(), 2u);
    EXPECT_EQ(attributes[0].event + " " + attributes[0].key + "=" + attributes[0].value, "start region=us");
    EXPECT_EQ(attributes[1].event + " " + attributes[1].key + "=" + attributes[1].value, "serve db:select span.kind=server");
}

// Span rows that are not what the import wrote (one deleted) cannot give the request's events: the read says
// so, naming the request, rather than deriving a wrong model.
TEST(DerivedEvents, AMissingSpanRowIsAClearError) {
    Stored s;
    test::StoreAccess::rows(*s.store, "DELETE FROM spans WHERE idx = 1");
    auto read = s.store->scanRequestEvents(RequestId(1), [](const EventRow&) {});
    ASSERT_FALSE(read);
    EXPECT_NE(read.message().find("request 1: span 1 is missing"), std::string::npos) << read.message();
    EXPECT_FALSE(s.store->causalLinks(RequestId(1)));
    EXPECT_FALSE(s.store->scanEvents([](const EventRow&) { return true; }));
}
