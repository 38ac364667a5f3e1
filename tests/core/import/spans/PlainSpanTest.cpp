// Jaeger spans read straight from their text (LeanJson) against the same spans read through a parsed
// document: the same spans and the same errors, for hand-picked spans and for every one-byte change of them.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "TestUtil.h"
#include "import/spans/LeanJson.h"
#include "import/spans/RawSpanCodec.h"
#include "import/spans/SpanParsers.h"
#include "tracelight/base/Json.h"

namespace tracelight {
namespace {

using namespace std::literals;

const std::vector<std::string> kSpans = {
    R"({"traceID": "t1", "spanID": "a", "operationName": "root", "references": [], "startTime": 1700000000000000, "duration": 5000, "processID": "p1", "tags": [{"key": "span.kind", "type": "string", "value": "server"}], "logs": []})",
    R"({"traceID":"t1","spanID":"b","operationName":"child","references":[{"refType":"CHILD_OF","traceID":"t1","spanID":"a"}],"startTime":1700000000000100,"duration":10,"processID":"p2","tags":[{"key":"http.url","value":"https://shop.example.com/api/v1/cart/items?id=42&long=yes"},{"key":"n","value":-1.5e3},{"key":"b","value":true},{"key":"z","value":null},{"key":"o","value":{"x":[1,2]}},{"value":"no key"}],"logs":[{"timestamp":1700000000000105,"fields":[{"key":"event","value":"retry"},{"key":"message","value":"again"}]},{"timestamp":null,"fields":[]},{"fields":[{"key":"event","value":"untimed"}]},{"timestamp":1700000000000106}],"flags":1,"warnings":null})",
    R"( {"spanID": "c", "operationName": "later", "references": [{"refType": "FOLLOWS_FROM", "spanID": "a"}, {"refType": "CHILD_OF", "spanID": "b"}, {"refType": "FOLLOWS_FROM", "spanID": "x"}], "startTime": 1700000000000200, "duration": 0, "processID": "nope"} )",
    R"({"traceID": "t1", "spanID": "d", "operationName": "sent", "references": [{"refType": "FOLLOWS_FROM", "spanID": "a"}, {"refType": "FOLLOWS_FROM", "spanID": "c"}], "parentSpanID": "zz", "startTime": 1700000000000300, "duration": 7, "processID": "p1"})",
    R"({"traceID": "t1", "spanID": "e", "operationName": "by field", "parentSpanID": "a", "startTime": 1700000000000400, "duration": 1, "processID": "p2", "process": {"serviceName": "ignored"}})",
    R"({"traceID": "t1", "spanID": "f", "operationName": "caf\u00e9 \"q\"", "startTime": 1700000000000500, "duration": 2, "processID": "p1"})",
    "{\"traceID\": \"t1\", \"spanID\": \"g\", \"operationName\": \"caf\xc3\xa9\", \"startTime\": 1700000000000600, \"duration\": 3, \"processID\": \"p1\"}",
    R"({"traceID": "t1", "spanID": "h", "operationName": "far", "startTime": 999999999999999999, "duration": 3, "processID": "p1", "logs": [{"timestamp": 999999999999999998}]})",
    R"({"traceID": "t1", "spanID": "i", "operationName": "strings", "startTime": "1700000000000700", "duration": "4", "processID": "p1"})",
    R"({"traceID": "t1", "spanID": 12, "operationName": 3.25, "startTime": 1700000000000800, "duration": 5, "processID": "p1", "references": {"refType": "CHILD_OF"}, "tags": "none", "logs": {}})",
};

std::string jaegerFile(const std::vector<std::string>& spans) {
    std::string data = R"({"data": [{"traceID": "t1", "spans": [)";
    for (std::size_t i = 0; i < spans.size(); ++i) data += (i ? ", " : "") + spans[i];
    data += R"(], "processes": {"p1": {"serviceName": "web", "tags": [{"key": "hostname", "value": "h1"}]}, "p2": {"serviceName": "db", "tags": []}}}]})";
    return data;
}

// Every span read (with its trace id) and the status, as one text.
std::string readAll(const std::string& path, PlainSpans plain) {
    std::string out;
    const Status status = parseJaegerJson(
        path,
        [&](RawSpan&& s) {
            out += s.traceId + " " + encodeRawSpan(s) + "\n";
            return Status::ok();
        },
        {}, nullptr, plain);
    return out + (status ? "ok" : "error: " + status.message());
}

TEST(PlainSpans, SameSpansAsThroughADocument) {
    test::ScratchDir dir;
    const std::string path = dir.write("t.json", jaegerFile(kSpans));
    const std::string plain = readAll(path, PlainSpans::WhereTheyAre);
    EXPECT_EQ(plain, readAll(path, PlainSpans::Never));
    // The spans are all there (the check can fail): ten spans, the far one's times beyond 64-bit nanoseconds.
    EXPECT_EQ(std::count(plain.begin(), plain.end(), '\n'), 10) << plain;
    EXPECT_NE(plain.find("out of range"), std::string::npos) << plain;
    EXPECT_NE(plain.find("again"), std::string::npos) << plain;  // a log's name: its last event or message field
}

TEST(PlainSpans, EveryOneByteChangeReadsAsThroughADocument) {
    test::ScratchDir dir;
    // Changes in the richest span (each byte of it changed to each of a few bytes, or removed).
    const std::string base = jaegerFile({kSpans[0], kSpans[1]});
    const std::size_t from = base.find(kSpans[1]), to = from + kSpans[1].size();
    const std::string_view replacements = "\"\\{}[],:0-e x\x01\xc3\0"sv;
    int compared = 0, errors = 0;
    for (std::size_t at = from; at < to; ++at) {
        for (std::size_t r = 0; r <= replacements.size(); ++r) {
            std::string changed = base;
            if (r == replacements.size()) changed.erase(at, 1);
            else if (base[at] == replacements[r]) continue;
            else changed[at] = replacements[r];
            // A new file each time: rewriting one file makes the file system write it out at every close.
            const std::string path = dir.write("m" + std::to_string(compared) + ".json", changed);
            const std::string plain = readAll(path, PlainSpans::WhereTheyAre), parsed = readAll(path, PlainSpans::Never);
            std::filesystem::remove(path);
            ASSERT_EQ(plain, parsed) << "byte " << at << " -> " << (r < replacements.size() ? int(static_cast<unsigned char>(replacements[r])) : -1);
            ++compared;
            errors += plain.find("error: ") != std::string::npos;
        }
    }
    EXPECT_GT(compared, 6000);
    EXPECT_GT(errors, 1500);  // many changes break the JSON: their errors are worded alike
}

// What LeanJson reads whole, JsonValue::parse reads too (it may give up on more: JsonValue reads those).
TEST(PlainSpans, LeanJsonAcceptsOnlyValidJson) {
    const std::string base = R"({"a": [1, -0.5e+3, true, false, null, {"b": "c"}], "d": {}, "e": []})";
    const std::string_view replacements = "\"\\{}[],:01-.eE+ xnatf\x01\x7f\xc3\0"sv;
    LeanJson lean;
    JsonValue value;
    int accepted = 0;
    auto check = [&](const std::string& text) {
        lean.reset(text);
        if (!lean.skip() || !lean.atEnd()) return;
        ++accepted;
        EXPECT_TRUE(JsonValue::parse(text, value, nullptr, nullptr)) << text;
    };
    for (std::size_t at = 0; at < base.size(); ++at) {
        for (char c : replacements) {
            std::string changed = base;
            changed[at] = c;
            check(changed);
            changed = base;
            changed.insert(at, 1, c);
            check(changed);
        }
        check(std::string(base).erase(at, 1));
    }
    EXPECT_GT(accepted, 100);
    for (const char* bad : {R"({"a": 1, "a": 2})", "[01]", "[1.]", "[.5]", "[-]", "[1e]", "{\"a\" 1}", "[1,]", "[,1]", "{,}", "tru", "nul", "[\"a\\n\"]"}) {
        lean.reset(bad);
        EXPECT_FALSE(lean.skip() && lean.atEnd()) << bad;
    }
}

} // namespace
} // namespace tracelight

namespace tracelight {
namespace {

using namespace std::literals;

// Zipkin elements: spans, and a list of spans (one trace), with what zipkinSpan reads and passes over.
const std::vector<std::string> kZipkinElements = {
    R"({"traceId": "00000000000000000000000000abcdef", "id": "a", "name": "get /cart", "timestamp": 1700000000000000, "duration": 5000, "kind": "SERVER", "localEndpoint": {"serviceName": "web", "ipv4": "10.0.0.1", "port": 80}, "tags": {"http.url": "https://shop.example.com/api/v1/cart/items?id=42&long=yes", "n": -1.5e3, "o": {"x": [1, 2]}, "z": null}})",
    R"({"traceId":"abcdef","id":"b","parentId":"a","name":"query","timestamp":1700000000000100,"duration":10,"shared":true,"kind":null,"localEndpoint":{"serviceName":"db","ipv6":"::1"},"remoteEndpoint":{"ipv4":"10.0.0.2"},"annotations":[{"timestamp":1700000000000105,"value":"retry"},{"timestamp":null,"value":"untimed"},{"value":"no time"},{"timestamp":999999999999999999,"value":"far"}],"debug":false})",
    R"([{"traceId": "abcdef", "id": "c", "parentId": "b", "name": "inner", "timestamp": 1700000000000200, "duration": 0, "remoteEndpoint": {"serviceName": "cache"}, "shared": "yes"}, {"traceId": "abcdef", "id": 12, "name": 3.25, "timestamp": 1700000000000300, "duration": 1, "localEndpoint": [], "tags": [], "annotations": {}}])",
    R"({"traceId": "abcdef", "id": "e", "name": "caf\u00e9", "timestamp": "1700000000000400", "duration": 2})",
    R"({"traceId": "abcdef", "id": "f", "timestamp": 1700000000000500})",
    "[]",
};

std::string zipkinFile(const std::vector<std::string>& elements) {
    std::string data = "[";
    for (std::size_t i = 0; i < elements.size(); ++i) data += (i ? ",\n" : "") + elements[i];
    return data + "]";
}

std::string readAllZipkin(const std::string& path, PlainSpans plain) {
    std::string out;
    const Status status = parseZipkinJson(
        path,
        [&](RawSpan&& s) {
            out += s.traceId + " " + encodeRawSpan(s) + "\n";
            return Status::ok();
        },
        {}, nullptr, plain);
    return out + (status ? "ok" : "error: " + status.message());
}

TEST(PlainSpans, ZipkinSameSpansAsThroughADocument) {
    test::ScratchDir dir;
    const std::string path = dir.write("z.json", zipkinFile(kZipkinElements));
    const std::string plain = readAllZipkin(path, PlainSpans::WhereTheyAre);
    EXPECT_EQ(plain, readAllZipkin(path, PlainSpans::Never));
    EXPECT_EQ(std::count(plain.begin(), plain.end(), '\n'), 6) << plain;
    EXPECT_NE(plain.find("retry"), std::string::npos) << plain;
    EXPECT_NE(plain.find("web@10.0.0.1"), std::string::npos) << plain;
    EXPECT_NE(plain.find("out of range"), std::string::npos) << plain;
}

TEST(PlainSpans, ZipkinEveryOneByteChangeReadsAsThroughADocument) {
    test::ScratchDir dir;
    const std::string base = zipkinFile({kZipkinElements[0], kZipkinElements[1], kZipkinElements[2]});
    const std::string_view replacements = "\"\\{}[],:0-e x\x01\xc3\0"sv;
    int compared = 0, errors = 0;
    for (std::size_t at = 0; at < base.size(); at += (at < 20 || at % 3 == 0) ? 1 : 2) {
        for (std::size_t r = 0; r <= replacements.size(); ++r) {
            std::string changed = base;
            if (r == replacements.size()) changed.erase(at, 1);
            else if (base[at] == replacements[r]) continue;
            else changed[at] = replacements[r];
            const std::string path = dir.write("m" + std::to_string(compared) + ".json", changed);
            const std::string plain = readAllZipkin(path, PlainSpans::WhereTheyAre), parsed = readAllZipkin(path, PlainSpans::Never);
            std::filesystem::remove(path);
            ASSERT_EQ(plain, parsed) << "byte " << at << " -> " << (r < replacements.size() ? int(static_cast<unsigned char>(replacements[r])) : -1);
            ++compared;
            errors += plain.find("error: ") != std::string::npos;
        }
    }
    EXPECT_GT(compared, 8000);
    EXPECT_GT(errors, 1500);
}

} // namespace
} // namespace tracelight

namespace tracelight {
namespace {

using namespace std::literals;

// OTLP resourceSpans elements with what parseOtlpResourceSpans reads and passes over; the second has its
// resource after its spans, and the older collectors' key.
const std::vector<std::string> kOtlpElements = {
    R"({"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "web"}}, {"key": "host.name", "value": {"stringValue": "h1"}}, {"key": "n", "value": {"intValue": "5"}}, {"key": "l", "value": {"arrayValue": {"values": []}}}, {"key": 7, "value": {"boolValue": true}}, {"value": {}}, 3]}, "scopeSpans": [{"scope": {"name": "lib"}, "spans": [{"traceId": "5B8EFFF798038103D269B633813FC60C", "spanId": "EEE19B7EC3C1B174", "name": "get /cart", "kind": 2, "startTimeUnixNano": "1544712660000000000", "endTimeUnixNano": "1544712661000000000", "attributes": [{"key": "http.url", "value": {"stringValue": "https://shop.example.com/api/v1/cart/items?id=42"}}, {"key": "d", "value": {"doubleValue": 1.5}}], "status": {"code": 2, "message": "boom"}, "events": [{"timeUnixNano": "1544712660500000000", "name": "retry"}, {"timeUnixNano": null, "name": "untimed"}, {"name": "no time"}, 4], "links": [{"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "AAAA19B7EC3C1B17"}, {"traceId": "other", "spanId": "bbbb"}, {}]}, {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "c1", "parentSpanId": "EEE19B7EC3C1B174", "name": "query", "startTimeUnixNano": 1544712660100000000, "status": "none", "links": {}, "events": {}}]}, "not a scope"], "schemaUrl": ""})",
    R"({"instrumentationLibrarySpans": [{"spans": [{"traceId": "t2", "spanId": "s2", "name": "old", "startTimeUnixNano": "1", "endTimeUnixNano": "2", "kind": "SPAN_KIND_CLIENT", "status": {"code": "STATUS_CODE_OK"}}]}], "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "legacy"}}]}})",
};

std::string readAllOtlp(const std::string& path, PlainSpans plain) {
    std::string out;
    const Status status = parseOtlpJson(
        path,
        [&](RawSpan&& s) {
            out += s.traceId + " " + encodeRawSpan(s) + "\n";
            return Status::ok();
        },
        {}, nullptr, plain);
    return out + (status ? "ok" : "error: " + status.message());
}

// One document, streamed by its resourceSpans elements; or the collector's lines, one request each.
std::string otlpDocument(const std::vector<std::string>& elements) {
    std::string data = "{\n\"resourceSpans\": [";
    for (std::size_t i = 0; i < elements.size(); ++i) data += (i ? ",\n" : "\n") + elements[i];
    return data + "\n]}\n";
}
std::string otlpLines(const std::vector<std::string>& elements) {
    std::string data;
    for (const std::string& e : elements) data += R"({"resourceSpans": [)" + e + "]}\n";
    return data;
}

TEST(PlainSpans, OtlpSameSpansAsThroughADocument) {
    test::ScratchDir dir;
    for (const std::string& text : {otlpDocument(kOtlpElements), otlpLines(kOtlpElements)}) {
        const std::string path = dir.write("o.json", text);
        const std::string plain = readAllOtlp(path, PlainSpans::WhereTheyAre);
        EXPECT_EQ(plain, readAllOtlp(path, PlainSpans::Never));
        EXPECT_EQ(std::count(plain.begin(), plain.end(), '\n'), 3) << plain;
        EXPECT_NE(plain.find("5b8efff798038103d269b633813fc60c"), std::string::npos) << plain;
        EXPECT_NE(plain.find("boom"), std::string::npos) << plain;
        EXPECT_NE(plain.find("legacy"), std::string::npos) << plain;
        EXPECT_NE(plain.find("retry"), std::string::npos) << plain;
    }
}

TEST(PlainSpans, OtlpEveryOneByteChangeReadsAsThroughADocument) {
    test::ScratchDir dir;
    const std::string_view replacements = "\"\\{}[],:0-e x\x01\xc3\0"sv;
    int compared = 0, errors = 0;
    for (const std::string& base : {otlpDocument(kOtlpElements), otlpLines(kOtlpElements)}) {
        for (std::size_t at = 0; at < base.size(); at += (at % 4 == 0) ? 1 : 3) {
            for (std::size_t r = 0; r <= replacements.size(); ++r) {
                std::string changed = base;
                if (r == replacements.size()) changed.erase(at, 1);
                else if (base[at] == replacements[r]) continue;
                else changed[at] = replacements[r];
                const std::string path = dir.write("m" + std::to_string(compared) + ".json", changed);
                const std::string plain = readAllOtlp(path, PlainSpans::WhereTheyAre), parsed = readAllOtlp(path, PlainSpans::Never);
                std::filesystem::remove(path);
                ASSERT_EQ(plain, parsed) << "byte " << at << " -> " << (r < replacements.size() ? int(static_cast<unsigned char>(replacements[r])) : -1);
                ++compared;
                errors += plain.find("error: ") != std::string::npos;
            }
        }
    }
    EXPECT_GT(compared, 10000);
    EXPECT_GT(errors, 2000);
}

} // namespace
} // namespace tracelight
