// Work the caller did not wait for, imported and analysed end to end: one case per shape of asynchronous
// work. Each reads the path as `critical-path --json` gives it (each entry's span, the async list).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "TestUtil.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/Slack.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

namespace {

struct Span {
    std::string id, parent, refType = "CHILD_OF", service = "shop", kind;
    int startUs, durationUs;
};

struct Answer {
    TimeNs latencyNs = 0, blindNs = 0;
    std::map<std::string, TimeNs> critical;  // by span id
    std::map<std::string, TimeNs> async;     // by span id
    std::map<std::string, TimeNs> slack;     // by task ("service:op-ID"): the least of its segments'
    std::string error;
};

Answer analyseFile(const std::string& json, InputFormat format, const std::string& request = "t");

Answer analyse(const std::vector<Span>& spans) {
    std::string json = R"({"data":[{"traceID":"t","processes":{)";
    std::map<std::string, std::string> process;  // service -> process id
    for (const Span& s : spans) process.emplace(s.service, "p" + std::to_string(process.size()));
    bool first = true;
    for (const auto& [service, id] : process) {
        json += std::string(first ? "" : ",") + "\"" + id + "\":{\"serviceName\":\"" + service + "\"}";
        first = false;
    }
    json += R"(},"spans":[)";
    first = true;
    for (const Span& s : spans) {
        json += std::string(first ? "" : ",") + R"({"traceID":"t","spanID":")" + s.id + R"(","operationName":"op-)" + s.id +
                R"(","startTime":)" + std::to_string(1'700'000'000'000'000LL + s.startUs) + R"(,"duration":)" +
                std::to_string(s.durationUs) + R"(,"processID":")" + process[s.service] + R"(","references":[)";
        if (!s.parent.empty()) json += R"({"refType":")" + s.refType + R"(","traceID":"t","spanID":")" + s.parent + "\"}";
        json += R"(],"tags":[)";
        if (!s.kind.empty()) json += R"({"key":"span.kind","type":"string","value":")" + s.kind + "\"}";
        json += "]}";
        first = false;
    }
    json += "]}]}";
    return analyseFile(json, InputFormat::JaegerJson);
}

Answer analyseFile(const std::string& json, InputFormat format, const std::string& request) {
    Answer out;
    test::ScratchDir dir;
    auto opened = TraceStore::open(dir.file("async.tldb"), TraceStore::Mode::Create);
    if (!opened) return {0, 0, {}, {}, {}, opened.message()};
    TraceStore& store = *opened.value();
    ImportOptions options;
    options.inputs = {dir.write("trace.json", json)};
    options.format = format;
    if (auto imported = importTraces(store, options); !imported) return {0, 0, {}, {}, {}, imported.message()};
    if (auto analysed = analyzeStore(store, AnalysisOptions{}); !analysed) return {0, 0, {}, {}, {}, analysed.message()};
    auto a = loadRequestAnalysis(store, request);
    if (!a) return {0, 0, {}, {}, {}, a.message()};
    out.latencyNs = a->latencyNs;
    out.blindNs = a->blindNs;
    forEachPathEntry(a->criticalPath.size(), a->clips, [&](std::size_t k, const PathClip* clip) {
        const TimeNs ns = clip ? clip->endNs - clip->startNs : a->segments[a->criticalPath[k]].durationNs;
        out.critical[a->spanIds.at(static_cast<std::size_t>(a->entrySpan.at(k)))] += ns;
    });
    for (const SpanPart& p : a->async) out.async[a->spanIds.at(static_cast<std::size_t>(p.span))] += p.endNs - p.startNs;
    for (const RequestSegment& s : a->segments) {
        auto [it, fresh] = out.slack.emplace(std::string(s.task), s.slackNs);
        if (!fresh) it->second = std::min(it->second, s.slackNs);
    }
    return out;
}

constexpr TimeNs us(TimeNs v) { return v * 1000; }
using Times = std::map<std::string, TimeNs>;

} // namespace

TEST(AsyncWork, AChildThatStartsAfterItsParentEndedIsAsynchronousWithItsChildren) {
    const Answer a = analyse({{"a", "", "CHILD_OF", "shop", "", 0, 30}, {"b", "a", "CHILD_OF", "shop", "", 35, 10},
                              {"c", "b", "CHILD_OF", "shop", "", 37, 5}});
    ASSERT_TRUE(a.error.empty()) << a.error;
    EXPECT_EQ(a.latencyNs, us(30));
    EXPECT_EQ(a.critical, (Times{{"a", us(30)}}));
    EXPECT_EQ(a.async, (Times{{"b", us(10)}, {"c", us(5)}}));
}

TEST(AsyncWork, TheWorkOfAChildPastItsParentsEndIsAsynchronous) {
    const Answer a = analyse({{"a", "", "CHILD_OF", "shop", "", 0, 30}, {"b", "a", "CHILD_OF", "shop", "", 10, 35}});
    ASSERT_TRUE(a.error.empty()) << a.error;
    EXPECT_EQ(a.latencyNs, us(30));
    EXPECT_EQ(a.critical, (Times{{"a", us(10)}, {"b", us(20)}}));
    EXPECT_EQ(a.async, (Times{{"b", us(15)}}));
}

TEST(AsyncWork, OfOverlappingChildrenTheOneThatReturnedLastIsWaitedFor) {
    const Answer a = analyse({{"a", "", "CHILD_OF", "shop", "", 0, 100}, {"b", "a", "CHILD_OF", "shop", "", 10, 50},
                              {"c", "a", "CHILD_OF", "shop", "", 50, 40}});
    ASSERT_TRUE(a.error.empty()) << a.error;
    EXPECT_EQ(a.latencyNs, us(100));
    EXPECT_EQ(a.critical, (Times{{"a", us(60)}, {"c", us(40)}}));
    EXPECT_TRUE(a.async.empty());
}

TEST(AsyncWork, AFollowsFromChildIsNotWaitedForEvenWithinItsParent) {
    const Answer a = analyse({{"a", "", "CHILD_OF", "shop", "", 0, 30}, {"b", "a", "FOLLOWS_FROM", "shop", "", 10, 10}});
    ASSERT_TRUE(a.error.empty()) << a.error;
    EXPECT_EQ(a.latencyNs, us(30));
    EXPECT_EQ(a.critical, (Times{{"a", us(30)}}));
    EXPECT_EQ(a.async, (Times{{"b", us(10)}}));
}

TEST(AsyncWork, AConsumerOnAnotherHostIsNotWaitedForByItsProducer) {
    // Not a round trip either: the consumer is not joined into the producer's task.
    const Answer a = analyse({{"send", "", "CHILD_OF", "shop", "producer", 0, 10},
                              {"handle", "send", "CHILD_OF", "worker", "consumer", 5, 45}});
    ASSERT_TRUE(a.error.empty()) << a.error;
    EXPECT_EQ(a.latencyNs, us(10));
    EXPECT_EQ(a.critical, (Times{{"send", us(10)}}));
    EXPECT_EQ(a.async, (Times{{"handle", us(45)}}));
}

// An OTLP span with no parent but a link to a span of its own trace was started by that span, not waited
// for by it (as a FOLLOWS_FROM reference); a link beside a parent leaves the parent as it is.
TEST(AsyncWork, AnOtlpSpanLinkedToItsStarterIsNotWaitedFor) {
    auto span = [](const char* id, const char* parent, const char* link, int startUs, int endUs) {
        std::string s = R"({"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":")" + std::string(id) + R"(","name":"op-)" + id + "\"";
        if (*parent) s += R"(,"parentSpanId":")" + std::string(parent) + "\"";
        if (*link) s += R"(,"links":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":")" + std::string(link) + R"("}])";
        return s + R"(,"startTimeUnixNano":")" + std::to_string(1'700'000'000'000'000'000LL + startUs * 1000LL) +
               R"(","endTimeUnixNano":")" + std::to_string(1'700'000'000'000'000'000LL + endUs * 1000LL) + "\"}";
    };
    const std::string json = R"({"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"shop"}}]},)"
                             R"("scopeSpans":[{"spans":[)" + span("a1", "", "", 0, 30) + "," + span("b2", "", "a1", 10, 50) + "," +
                             span("c3", "a1", "b2", 12, 20) + "]}]}]}";
    const Answer a = analyseFile(json, InputFormat::OtlpJson, "0af7651916cd43dd8448eb211c80319c");
    ASSERT_TRUE(a.error.empty()) << a.error;
    EXPECT_EQ(a.latencyNs, us(30));
    EXPECT_EQ(a.critical, (Times{{"a1", us(22)}, {"c3", us(8)}}));
    EXPECT_EQ(a.async, (Times{{"b2", us(40)}}));
}

// A server that starts inside its client and ends after it, on another host, is no evidence of clock skew:
// the client did not wait for its last part (CRISP's case 7).
TEST(AsyncWork, AServerEndingAfterItsClientOnAnotherHostIsCutAtItsEnd) {
    const Answer a = analyse({{"call", "", "CHILD_OF", "shop", "client", 0, 100}, {"serve", "call", "CHILD_OF", "cart", "server", 10, 100},
                              {"query", "serve", "CHILD_OF", "db", "", 40, 10}});
    ASSERT_TRUE(a.error.empty()) << a.error;
    EXPECT_EQ(a.latencyNs, us(100));
    EXPECT_EQ(a.critical, (Times{{"call", us(10)}, {"serve", us(80)}, {"query", us(10)}}));
    EXPECT_EQ(a.async, (Times{{"serve", us(10)}}));
}

TEST(AsyncWork, AServerOnAnotherHostIsWaitedForByItsClient) {
    const Answer a = analyse({{"call", "", "CHILD_OF", "shop", "client", 0, 30}, {"serve", "call", "CHILD_OF", "cart", "server", 5, 20}});
    ASSERT_TRUE(a.error.empty()) << a.error;
    EXPECT_EQ(a.latencyNs, us(30));
    EXPECT_EQ(a.critical, (Times{{"call", us(10)}, {"serve", us(20)}}));
    EXPECT_TRUE(a.async.empty());
}

// Slack for span data ends with the roots: a second root that ends earlier could grow until the request's
// end; work nobody waited for has no limit (kUnboundedSlack, null in `slack --json`).
TEST(AsyncWork, SlackEndsWithTheRootsAndWorkNobodyWaitedForHasNone) {
    const Answer a = analyse({{"r1", "", "CHILD_OF", "shop", "", 0, 100}, {"r2", "", "CHILD_OF", "shop", "", 10, 40},
                              {"late", "r1", "CHILD_OF", "shop", "", 120, 10}});
    ASSERT_TRUE(a.error.empty()) << a.error;
    EXPECT_EQ(a.latencyNs, us(100));
    EXPECT_EQ(a.slack.at("shop:op-r1"), 0);
    EXPECT_EQ(a.slack.at("shop:op-r2"), us(50));
    EXPECT_EQ(a.slack.at("shop:op-late"), kUnboundedSlack);
}

// A parent that waits for two children waits until the later one returns: the earlier could have taken as
// long as the later before the parent's end moved (its slack), the later none.
TEST(AsyncWork, AChildThatReturnedBeforeItsSiblingHasTheDifferenceAsSlack) {
    const Answer a = analyse({{"a", "", "CHILD_OF", "shop", "", 0, 100}, {"b", "a", "CHILD_OF", "cart", "", 10, 50},
                              {"c", "a", "CHILD_OF", "ads", "", 20, 20}});
    ASSERT_TRUE(a.error.empty()) << a.error;
    EXPECT_EQ(a.latencyNs, us(100));
    EXPECT_EQ(a.critical, (Times{{"a", us(50)}, {"b", us(50)}}));
    EXPECT_EQ(a.slack.at("cart:op-b"), 0);
    EXPECT_EQ(a.slack.at("ads:op-c"), us(20));
}

