#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <random>

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "TestUtil.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/base/Json.h"
#include "tracelight/base/JsonStream.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"
#include "TestUtil.h"

using namespace tracelight;

TEST(Json, ParsesNestedDocument) {
    JsonValue v;
    std::string error;
    ASSERT_TRUE(JsonValue::parse(R"( {"a": [1, 2.5e3, -0.5], "b": {"c": "x\"\u00e9\n"}, "t": true, "n": null} )", v, &error,
                                 nullptr))
        << error;
    ASSERT_TRUE(v.isObject());
    EXPECT_EQ(v.find("a")->array().size(), 3u);
    EXPECT_DOUBLE_EQ(v.find("a")->array()[1].number(), 2500);
    EXPECT_EQ(v.find("a")->array()[1].string(), "2.5e3");  // the literal is kept
    EXPECT_EQ(v.find("b")->find("c")->string(), "x\"\xC3\xA9\n");
    EXPECT_TRUE(v.find("t")->boolean());
    EXPECT_TRUE(v.find("n")->isNull());
    EXPECT_EQ(v.find("missing"), nullptr);
}

TEST(Json, ReportsErrorOffsets) {
    JsonValue v;
    std::string error;
    std::size_t offset = 0;
    EXPECT_FALSE(JsonValue::parse(R"({"a": 1,})", v, &error, &offset));
    EXPECT_EQ(offset, 8u);
    EXPECT_FALSE(JsonValue::parse(R"({"a": tru})", v, &error, &offset));
    EXPECT_FALSE(JsonValue::parse(R"({"a": "unterminated)", v, &error, &offset));
    EXPECT_FALSE(JsonValue::parse(R"([1] [2])", v, &error, &offset));
    EXPECT_FALSE(JsonValue::parse("", v, &error, &offset));
}

TEST(Json, RefusesDeepNestingInsteadOfOverflowing) {
    JsonValue v;
    std::string error;
    EXPECT_FALSE(JsonValue::parse(std::string(100000, '['), v, &error, nullptr));
    EXPECT_NE(error.find("deep"), std::string::npos);
}

TEST(Json, WriterRoundTrips) {
    JsonWriter w;
    w.beginObject().key("name").value("a\"b").key("n").value(std::int64_t{42}).key("x").value(1.5).key("list").beginArray();
    w.value(true).null().endArray().endObject();
    EXPECT_EQ(w.text(), R"({"name":"a\"b","n":42,"x":1.5,"list":[true,null]})");
    JsonValue v;
    ASSERT_TRUE(JsonValue::parse(w.text(), v, nullptr, nullptr));
    EXPECT_EQ(v.find("name")->string(), "a\"b");
}

// ---------------------------------------------------------------------------------------------------
// Issue 10: a validating writer and a strict reader.

namespace {

// Whether text is well-formed UTF-8 (Unicode Table 3-7), checked independently of the code under test.
bool isValidUtf8(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        std::size_t n = 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c < 0x80) n = 0;
        else if (c >= 0xC2 && c <= 0xDF) n = 1;
        else if (c == 0xE0) n = 2, lo = 0xA0;
        else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) n = 2;
        else if (c == 0xED) n = 2, hi = 0x9F;
        else if (c == 0xF0) n = 3, lo = 0x90;
        else if (c >= 0xF1 && c <= 0xF3) n = 3;
        else if (c == 0xF4) n = 3, hi = 0x8F;
        else return false;
        for (std::size_t k = 1; k <= n; ++k) {
            if (i + k >= text.size()) return false;
            const auto d = static_cast<unsigned char>(text[i + k]);
            if (d < lo || d > hi) return false;
            lo = 0x80, hi = 0xBF;
        }
        i += n + 1;
    }
    return true;
}

// Parses text, expecting a refusal at the given byte offset with a message containing `what`.
void expectRefused(const std::string& text, std::size_t offset, const std::string& what) {
    JsonValue v;
    std::string error;
    std::size_t at = 12345;
    EXPECT_FALSE(JsonValue::parse(text, v, &error, &at)) << "accepted: " << text;
    EXPECT_EQ(at, offset) << text << ": " << error;
    EXPECT_NE(error.find(what), std::string::npos) << text << ": " << error;
}

// The same, also inside a text large enough (> 64 KiB) to be read in two passes (count, then build).
void expectRefusedBothWays(const std::string& text, std::size_t offset, const std::string& what) {
    expectRefused(text, offset, what);
    const std::string prefix = "[\"" + std::string(70000, 'x') + "\", ";
    expectRefused(prefix + text + "]", prefix.size() + offset, what);
}

const std::string kReplacement = "\xEF\xBF\xBD";  // U+FFFD

} // namespace

TEST(Json, WriterReplacesInvalidUtf8AndTheOutputReadsBackStrictly) {
    JsonWriter w;
    // Latin-1 "café", "Zürich", a truncated "€", an encoded surrogate, a lone continuation byte, a NUL.
    w.beginObject().key("caf\xE9").value("Z\xFCrich").key("cut").value(std::string_view("\xE2\x82x\xED\xA0\x80\x80!\x01\0", 10));
    w.key("ok").value("\xC3\xA9\xF0\x9F\x98\x80").endObject();
    ASSERT_TRUE(isValidUtf8(w.text())) << w.text();
    EXPECT_EQ(w.text(), "{\"caf" + kReplacement + "\":\"Z" + kReplacement + "rich\",\"cut\":\"" + kReplacement + "x" + kReplacement +
                            kReplacement + kReplacement + kReplacement + "!\\u0001\\u0000\",\"ok\":\"\xC3\xA9\xF0\x9F\x98\x80\"}");
    JsonValue v;
    std::string error;
    ASSERT_TRUE(JsonValue::parse(w.text(), v, &error, nullptr)) << error;
    EXPECT_EQ(v.find("caf" + kReplacement)->string(), "Z" + kReplacement + "rich");
    EXPECT_EQ(v.find("ok")->string(), "\xC3\xA9\xF0\x9F\x98\x80");  // valid UTF-8 passes unchanged

    std::string out;
    appendJsonString(out, "na\xEFve");
    EXPECT_EQ(out, "\"na" + kReplacement + "ve\"");

    // A Latin-1 byte at every place of a longer ASCII text (the ASCII is passed over 8 bytes at a time).
    const std::string ascii = "a plain ASCII text of forty bytes or so.";
    for (std::size_t at = 0; at <= ascii.size(); ++at) {
        std::string latin1 = ascii;
        latin1.insert(at, "\xE9");
        out.clear();
        appendJsonString(out, latin1);
        EXPECT_EQ(out, "\"" + ascii.substr(0, at) + kReplacement + ascii.substr(at) + "\"") << at;
    }
}

TEST(Json, WriterNumbersRoundTripAndNonFiniteIsNull) {
    const double doubles[] = {0.1, -2.5e-310, 1e300, std::numeric_limits<double>::max(), 123456.789, -0.0, 5e-324};
    JsonWriter w;
    w.beginArray();
    for (double d : doubles) w.value(d);
    w.value(std::numeric_limits<std::int64_t>::min()).value(std::numeric_limits<std::int64_t>::max());
    w.value(std::numeric_limits<std::uint64_t>::max());
    w.value(std::numeric_limits<double>::quiet_NaN()).value(std::numeric_limits<double>::infinity());
    w.endArray();
    JsonValue v;
    std::string error;
    ASSERT_TRUE(JsonValue::parse(w.text(), v, &error, nullptr)) << error << ": " << w.text();
    const auto& items = v.array();
    ASSERT_EQ(items.size(), std::size(doubles) + 5);
    for (std::size_t i = 0; i < std::size(doubles); ++i) EXPECT_EQ(items[i].number(), doubles[i]) << items[i].string();
    EXPECT_EQ(items[std::size(doubles)].string(), "-9223372036854775808");
    EXPECT_EQ(items[std::size(doubles) + 1].string(), "9223372036854775807");
    EXPECT_EQ(items[std::size(doubles) + 2].string(), "18446744073709551615");
    EXPECT_TRUE(items[std::size(doubles) + 3].isNull());
    EXPECT_TRUE(items[std::size(doubles) + 4].isNull());
}

// A writer with a sink writes the same text as one that holds it, in parts as it goes (not all at the end),
// and says when a write failed.
TEST(Json, WriterToAFileWritesTheSameTextAsItGoes) {
    auto fill = [](JsonWriter& w, std::FILE* watched, long* writtenMidway) {
        w.beginObject().key("segments").beginArray();
        for (int i = 0; i < 20000; ++i) {
            w.beginObject().key("task").value("t\xE9sk " + std::to_string(i)).key("start_us").value(i * 1.5).endObject();
            if (i == 15000 && watched) *writtenMidway = std::ftell(watched);
        }
        w.endArray().key("\xF0\x9F\x98\x80").value(true).endObject();
    };
    for (bool pretty : {false, true}) {
        JsonWriter held(pretty);
        fill(held, nullptr, nullptr);
        test::ScratchDir dir;
        const std::string path = dir.file("out.json");
        std::FILE* file = std::fopen(path.c_str(), "wb");
        ASSERT_TRUE(file);
        long midway = 0;
        {
            JsonWriter streamed(file, pretty);
            fill(streamed, file, &midway);
            EXPECT_LT(streamed.text().size(), 2 * 64 * 1024u) << "it holds only what is not written yet";
            EXPECT_TRUE(streamed.flush());
            EXPECT_TRUE(streamed.text().empty());
        }
        std::fclose(file);
        EXPECT_GT(midway, 0) << "written as it went";
        std::ifstream in(path, std::ios::binary);
        const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        EXPECT_GT(written.size(), 500000u);
        EXPECT_EQ(written, held.text()) << "pretty " << pretty;
    }
    // A device that takes no bytes: the flush says the output is incomplete.
    if (std::FILE* full = std::fopen("/dev/full", "wb")) {
        {
            JsonWriter w(full);
            fill(w, nullptr, nullptr);
            EXPECT_FALSE(w.flush());
            EXPECT_FALSE(w.flush()) << "still failed";
        }
        std::fclose(full);
    }
}

TEST(Json, PrettyWriterLayout) {
    JsonWriter w(true);
    w.beginObject().key("a").value(1).key("list").beginArray().value("x").beginObject().endObject().endArray();
    w.key("empty").beginArray().endArray().endObject();
    EXPECT_EQ(w.text(), "{\n  \"a\": 1,\n  \"list\": [\n    \"x\",\n    {}\n  ],\n  \"empty\": []\n}");
}

TEST(Json, ReaderRefusesWhatRfc8259ForbidsWithTheOffset) {
    // Leading zeros.
    expectRefused("01", 0, "leading zero");
    expectRefusedBothWays("[1, -012]", 5, "leading zero");
    expectRefusedBothWays(R"({"a": 00})", 6, "leading zero");
    // Lone or broken surrogates.
    expectRefusedBothWays(R"(["\ud800"])", 2, "surrogate");
    expectRefusedBothWays(R"({"k": "ab\udc00"})", 9, "surrogate");
    expectRefusedBothWays(R"({"k\uDFFF": 1})", 3, "surrogate");
    expectRefused(R"("\ud800\u0041")", 1, "surrogate");
    // Invalid UTF-8 (Latin-1, overlong, an encoded surrogate, truncated).
    expectRefusedBothWays("[\"caf\xE9\"]", 5, "UTF-8");
    expectRefused("\"\xC0\xAF\"", 1, "UTF-8");
    expectRefused("\"a\xED\xA0\x80\"", 2, "UTF-8");
    expectRefused("\"\xE2\x82\"", 1, "UTF-8");
    // Duplicate keys, small and large objects, at any depth: the offset is the repeated key's.
    expectRefusedBothWays(R"({"a": 1, "a": 2})", 9, "duplicate key \"a\"");
    expectRefusedBothWays(R"([{"x": {"b": 1, "c": 2, "b": 3}}])", 24, "duplicate key \"b\"");
    std::string big = "{";
    for (int i = 0; i < 100; ++i) big += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
    const std::size_t repeated = big.size();
    big += "\"k57\": 0}";
    expectRefusedBothWays(big, repeated, "duplicate key \"k57\"");
    // Trailing garbage, including after a NUL byte.
    expectRefused(R"({"a": 1} x)", 9, "after the JSON value");
    expectRefused(std::string("[1]\0[2]", 7), 3, "after the JSON value");
    // And the rest RapidJSON refuses by default.
    expectRefused("[1,]", 3, "invalid value");
    expectRefused("NaN", 0, "invalid value");
    expectRefused("[1] // comment", 4, "after the JSON value");
    expectRefused("\"tab\there\"", 4, "control character");
    expectRefused("1.", 2, "after '.'");
}

TEST(Json, ReaderAcceptsWhatRfc8259Allows) {
    JsonValue v;
    std::string error;
    ASSERT_TRUE(JsonValue::parse(R"( {"pair": "\ud83d\ude00", "zero": 0, "neg": -0.5e-3, "exp": 1E+2, "k": {"a": 1}, "K": {"a": 2}} )",
                                 v, &error, nullptr))
        << error;
    EXPECT_EQ(v.find("pair")->string(), "\xF0\x9F\x98\x80");
    EXPECT_EQ(v.find("exp")->number(), 100);
    EXPECT_EQ(v.find("neg")->number(), -0.0005);
    EXPECT_EQ(v.find("K")->find("a")->number(), 2);  // keys are case-sensitive: no duplicate
}

TEST(Json, LargeTextsReadInTwoPassesGiveTheSameTree) {
    std::string text = R"({"pad": ")" + std::string(70000, 'p') + R"(", "a": [1, {"b": [true, null, "s\u00e9"]}, [], {}], "n": -1.5e3, )";
    for (int i = 0; i < 5000; ++i) text += "\"k" + std::to_string(i) + "\": [" + std::to_string(i) + "], ";
    text += R"("last": {"x": {"y": "z"}}})";
    JsonValue v;
    std::string error;
    ASSERT_TRUE(JsonValue::parse(text, v, &error, nullptr)) << error;
    ASSERT_EQ(v.object().size(), 5004u);
    EXPECT_EQ(v.find("pad")->string().size(), 70000u);
    const auto& a = v.find("a")->array();
    ASSERT_EQ(a.size(), 4u);
    EXPECT_EQ(a[0].string(), "1");
    EXPECT_EQ(a[1].find("b")->array()[2].string(), "s\xC3\xA9");
    EXPECT_TRUE(a[1].find("b")->array()[0].boolean());
    EXPECT_TRUE(a[1].find("b")->array()[1].isNull());
    EXPECT_TRUE(a[2].isArray() && a[2].array().empty());
    EXPECT_TRUE(a[3].isObject() && a[3].object().empty());
    EXPECT_EQ(v.find("n")->number(), -1500);
    EXPECT_EQ(v.find("k4321")->array()[0].number(), 4321);
    EXPECT_EQ(v.find("last")->find("x")->find("y")->string(), "z");
    EXPECT_EQ(v.object()[2].first, "n");
    // Deep nesting is refused in both ways too.
    EXPECT_FALSE(JsonValue::parse(std::string(100000, '['), v, &error, nullptr));
    EXPECT_NE(error.find("deep"), std::string::npos);
}

TEST(Json, BigIntegerLiteralTextIsKept) {
    JsonValue v;
    std::string error;
    ASSERT_TRUE(JsonValue::parse(R"({"ts": 1700000000123456789, "huge": 123456789012345678901234567890, "f": 1.50})", v, &error, nullptr))
        << error;
    EXPECT_EQ(v.find("ts")->string(), "1700000000123456789");  // a double would give 1700000000123456768
    EXPECT_EQ(v.find("huge")->string(), "123456789012345678901234567890");
    EXPECT_EQ(v.find("f")->string(), "1.50");
    EXPECT_DOUBLE_EQ(v.find("huge")->number(), 1.2345678901234568e29);
}

TEST(Json, ValuesCopyDeeplyAndReuseStorage) {
    JsonValue doc;
    ASSERT_TRUE(JsonValue::parse(R"({"a": [1, "two", {"three": [3]}]})", doc, nullptr, nullptr));
    JsonValue copy = *doc.find("a");  // outlives the document it came from
    ASSERT_TRUE(JsonValue::parse("[]", doc, nullptr, nullptr));
    ASSERT_EQ(copy.array().size(), 3u);
    EXPECT_EQ(copy.array()[1].string(), "two");
    EXPECT_EQ(copy.array()[2].find("three")->array()[0].number(), 3);
    JsonValue moved = std::move(copy);
    EXPECT_EQ(moved.array()[0].string(), "1");
    EXPECT_TRUE(doc.isArray());
    EXPECT_TRUE(doc.array().empty());
}

TEST(Json, OversizedTextIsRefused) {
    std::string text(kMaxJsonValueBytes + 1, ' ');
    text[0] = '"';
    text.back() = '"';
    JsonValue v;
    std::string error;
    std::size_t at = 99;
    EXPECT_FALSE(JsonValue::parse(text, v, &error, &at));
    EXPECT_NE(error.find("64 MiB"), std::string::npos) << error;
    EXPECT_EQ(at, 0u);
}

// ---------------------------------------------------------------------------------------------------
// The element stream.

namespace {

struct Streamed {
    std::vector<std::string> elements;
    std::vector<std::uint64_t> offsets;
    std::string openError, error;
};

Streamed streamFile(const std::string& path, std::string_view key) {
    Streamed s;
    JsonArrayStream stream;
    if (!stream.open(path, key, &s.openError)) return s;
    JsonValue element;
    std::uint64_t offset = 0;
    while (stream.next(element, offset)) {
        s.elements.emplace_back(stream.elementText());
        s.offsets.push_back(offset);
    }
    s.error = stream.error();
    return s;
}

} // namespace

TEST(JsonStream, HandsOutManyElementsOneAtATime) {
    test::ScratchDir dir;
    std::string text = "\xEF\xBB\xBF [\n";
    std::vector<std::uint64_t> offsets;
    const int n = 100000;
    for (int i = 0; i < n; ++i) {
        if (i) text += i % 7 ? "," : " ,\n ";
        offsets.push_back(text.size());
        if (i % 3 == 0) text += "{\"i\": " + std::to_string(i) + ", \"s\": \"a]}\\\"\", \"l\": [[], {}]}";
        else if (i % 3 == 1) text += std::to_string(i) + ".5e1";
        else text += "\"x\\u00e9" + std::to_string(i) + "\"";
    }
    text += "\n]\n";
    const auto s = streamFile(dir.write("many.json", text), "");
    EXPECT_EQ(s.openError, "");
    EXPECT_EQ(s.error, "");
    ASSERT_EQ(s.elements.size(), std::size_t(n));
    for (int i : {0, 1, 2, 7, 99999}) {
        EXPECT_EQ(s.offsets[i], offsets[i]) << i;
        JsonValue v;
        std::string error;
        ASSERT_TRUE(JsonValue::parse(s.elements[i], v, &error, nullptr)) << error << ": " << s.elements[i];
        if (i % 3 == 0) {
            EXPECT_EQ(v.find("i")->number(), i);
            EXPECT_EQ(v.find("s")->string(), "a]}\"");
        } else if (i % 3 == 1) {
            EXPECT_EQ(v.string(), std::to_string(i) + ".5e1");
        } else {
            EXPECT_EQ(v.string(), "x\xC3\xA9" + std::to_string(i));
        }
    }
    EXPECT_EQ(s.elements[99999], "{\"i\": 99999, \"s\": \"a]}\\\"\", \"l\": [[], {}]}");
}

TEST(JsonStream, ArrayUnderAKeyOrOneObject) {
    test::ScratchDir dir;
    auto keyed = streamFile(dir.write("k.json", R"({"meta": {"data": [9]}, "data": [1, {"a": 2}], "total": 2, "errors": null})"), "data");
    EXPECT_EQ(keyed.error, "");
    EXPECT_EQ(keyed.elements, (std::vector<std::string>{"1", "{\"a\": 2}"}));
    auto single = streamFile(dir.write("one.json", R"({"data": {"spans": []}, "x": 1})"), "data");
    EXPECT_EQ(single.error, "");
    EXPECT_EQ(single.elements, (std::vector<std::string>{"{\"spans\": []}"}));
    auto missing = streamFile(dir.write("none.json", R"({"other": [1]})"), "data");
    EXPECT_NE(missing.openError.find("no \"data\" key"), std::string::npos) << missing.openError;
}

TEST(JsonStream, IsStrictAboutTheWholeDocument) {
    test::ScratchDir dir;
    struct Case {
        const char* text;
        const char* key;
        const char* error;
    } cases[] = {
        {"[1, 2] x", "", "byte 7: unexpected text after the JSON document"},
        {"[1, 02]", "", "byte 4: leading zero"},
        {"[01]", "", "byte 1: leading zero"},
        {"[{\"a\": 01}]", "", "byte 7: leading zero"},
        {"[1 2]", "", "byte 3: expected ',' or ']'"},
        {"[1,]", "", "byte 3: invalid value"},
        {"[\"caf\xE9\"]", "", "byte 5: invalid UTF-8"},
        {"[1, \"\\ud800\"]", "", "byte 5: lone or invalid UTF-16 surrogate"},
        {R"({"a": 1 "data": [1]})", "data", "byte 8: expected ',' or '}'"},
        {R"({"data": [1], "data": [2]})", "data", "byte 14: duplicate key \"data\""},
        {R"({"data": [1], "x": tru})", "data", "byte 22: invalid value"},
        {R"({"data": [1], "x": 1)", "data", "end of file"},
        {"[1, [2, ", "", "end of file"},
    };
    for (const auto& c : cases) {
        const auto s = streamFile(dir.write("bad.json", c.text), c.key);
        const std::string error = s.openError + s.error;
        EXPECT_NE(error.find(c.error), std::string::npos) << c.text << " -> " << error;
    }
}

TEST(JsonStream, RefusesAnOversizedElementNamingItsOffset) {
    test::ScratchDir dir;
    const std::string path = dir.file("big.json");
    {
        std::ofstream out(path, std::ios::binary);
        out << "[1, \"";
        const std::string block(1 << 20, 'x');
        for (std::size_t i = 0; i <= (kMaxJsonValueBytes >> 20); ++i) out << block;
        out << "\", 3]";
    }
    const auto s = streamFile(path, "");
    ASSERT_EQ(s.elements.size(), 1u);  // the first element only
    EXPECT_NE(s.error.find("byte 4: a JSON value larger than the limit of 64 MiB"), std::string::npos) << s.error;
}

// A value passed over (a key before or after the array, a member skipped) is not held, but RapidJSON copies
// each string it reads: a string longer than the limit is refused where it starts, not copied whole (a 1.1 GB
// operation name in a bare Jaeger trace object took 1.1 GiB and more before the bare object was looked at).
TEST(JsonStream, RefusesAnOversizedStringInASkippedValue) {
    test::ScratchDir dir;
    const std::string block(1 << 20, 'x');
    auto write = [&](const std::string& name, const std::string& head, const std::string& tail) {
        const std::string path = dir.file(name);
        std::ofstream out(path, std::ios::binary);
        out << head;
        for (std::size_t i = 0; i <= (kMaxJsonValueBytes >> 20); ++i) out << block;
        out << tail;
        return path;
    };
    const auto before = streamFile(write("before.json", R"({"spans": [{"name": ")", R"("}], "data": [1]})"), "data");
    EXPECT_NE(before.openError.find("byte 20: a JSON value larger than the limit of 64 MiB"), std::string::npos) << before.openError;
    const auto after = streamFile(write("after.json", R"({"data": [1], "x": ")", R"("})"), "data");
    EXPECT_EQ(after.elements.size(), 1u);
    EXPECT_NE(after.error.find("byte 19: a JSON value larger than the limit of 64 MiB"), std::string::npos) << after.error;

    const auto key = streamFile(write("key.json", R"({")", R"(": 1, "data": [1]})"), "data");
    EXPECT_NE(key.openError.find("byte 1: a JSON value larger than the limit of 64 MiB"), std::string::npos) << key.openError;

    JsonArrayStream stream;
    std::string error;
    ASSERT_TRUE(stream.open(write("member.json", R"([{"skipped": ")", R"(", "kept": 1}])"), "", &error)) << error;
    const bool read = stream.nextObject([](std::string_view) { return JsonArrayStream::Member::Skip; },
                                        [](std::string_view, const JsonValue&, std::uint64_t) { return true; });
    EXPECT_FALSE(read);
    EXPECT_NE(stream.error().find("byte 13: a JSON value larger than the limit of 64 MiB"), std::string::npos) << stream.error();
}

// ---------------------------------------------------------------------------------------------------
// End to end: a Latin-1 event log keeps the core's JSON results valid (model --json, critical-path --json).

TEST(Json, Latin1EventLogGivesValidJsonResults) {
    test::ScratchDir dir;
    std::string csv = "request,host,task,event,ts_us,city\n";
    for (int r = 0; r < 30; ++r) {
        const std::string req = "r\xE9q" + std::to_string(r);
        const int t = r * 1000, d = 10 + r % 7;
        csv += req + ",client,caf\xE9,d\xE9" "but," + std::to_string(t) + ",Z\xFCrich\n";
        csv += req + ",server,caf\xE9,re\xE7u," + std::to_string(t + d) + ",\n";
        csv += req + ",server,caf\xE9,fin," + std::to_string(t + 2 * d + 5) + ",\n";
        csv += req + ",client,caf\xE9,r\xE9ponse," + std::to_string(t + 3 * d + 5) + ",\n";
    }
    auto store = TraceStore::open(dir.file("latin1.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    ImportOptions import;
    import.inputs = {dir.write("latin1.csv", csv)};
    auto imported = importTraces(*store.value(), import);
    ASSERT_TRUE(imported) << imported.message();
    AnalysisOptions options;
    auto analysed = analyzeStore(*store.value(), options);
    ASSERT_TRUE(analysed) << analysed.message();

    auto model = cachedModelJson(*store.value(), options);
    ASSERT_TRUE(model) << model.message();
    EXPECT_TRUE(isValidUtf8(model.value()));
    JsonValue v;
    std::string error;
    ASSERT_TRUE(JsonValue::parse(model.value(), v, &error, nullptr)) << error;
    ASSERT_TRUE(v.find("relations") && !v.find("relations")->array().empty());
    EXPECT_EQ(v.find("relations")->array()[0].find("a")->find("task")->string(), "caf" + kReplacement);

    // critical-path --json, as the CLI writes it, from the core's per-request result.
    auto a = loadRequestAnalysis(*store.value(), "r\xE9q3");
    ASSERT_TRUE(a) << a.message();
    JsonWriter w;
    w.beginObject().key("request").value(a->request).key("path").beginArray();
    for (auto i : a->criticalPath) {
        const auto& s = a->segments[i];
        w.beginObject().key("task").value(s.task).key("start").value(s.startEvent).key("end").value(s.endEvent).endObject();
    }
    w.endArray().endObject();
    EXPECT_TRUE(isValidUtf8(w.text())) << w.text();
    ASSERT_TRUE(JsonValue::parse(w.text(), v, &error, nullptr)) << error;
    EXPECT_EQ(v.find("request")->string(), "r" + kReplacement + "q3");
    EXPECT_EQ(v.find("path")->array()[0].find("start")->string(), "d" + kReplacement + "but");
}

// A JSON Lines line longer than the limit is refused before it is held in memory whole.
TEST(Json, OversizedJsonLinesLineIsRefusedNamingItsPlace) {
    test::ScratchDir dir;
    const std::string path = dir.file("long.jsonl");
    const std::string first = R"({"request":"r","host":"h","task":"t","event":"e","ts_us":1})";
    {
        std::ofstream out(path, std::ios::binary);
        out << first << "\n" << R"({"request":"r","host":"h","task":"t","event":"f","ts_us":2,"attrs":{"big":")";
        const std::string block(1 << 20, 'x');
        for (std::size_t i = 0; i <= (kMaxJsonValueBytes >> 20); ++i) out << block;
        out << "\"}}\n";
    }
    auto store = TraceStore::open(dir.file("l.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    ImportOptions import;
    import.inputs = {path};
    import.format = InputFormat::EventsJsonl;
    auto imported = importTraces(*store.value(), import);
    ASSERT_FALSE(imported);
    EXPECT_NE(imported.message().find("long.jsonl:2: line at byte " + std::to_string(first.size() + 1) + " is longer than the limit of 64 MiB"),
              std::string::npos)
        << imported.message();
}

TEST(JsonArrayStream, SizesItsBufferToASmallFile) {
    // A small document (a fuzzer's input, a single trace) must not cost a zero-filled megabyte per open.
    test::ScratchDir dir;
    const auto path = dir.write("small.json", "\xEF\xBB\xBF{\"data\": [{\"a\": 1}, [2, \"]\"], 3]}");
    JsonArrayStream stream;
    std::string error;
    ASSERT_TRUE(stream.open(path, "data", &error)) << error;
    EXPECT_LE(stream.bufferSize(), 4096u);
    JsonValue element;
    std::uint64_t offset = 0;
    ASSERT_TRUE(stream.next(element, offset));
    EXPECT_EQ(stream.elementText(), "{\"a\": 1}");
    EXPECT_EQ(element.find("a")->number(), 1);
    ASSERT_TRUE(stream.next(element, offset));
    EXPECT_EQ(stream.elementText(), "[2, \"]\"]");
    ASSERT_TRUE(stream.next(element, offset));
    EXPECT_EQ(stream.elementText(), "3");
    EXPECT_FALSE(stream.next(element, offset));
    EXPECT_TRUE(stream.error().empty()) << stream.error();
}

namespace {
// A random JSON value whose strings hold what a structural scan must see through: brackets, quotes and
// backslashes escaped in runs, non-ASCII bytes; of every length, so that each falls across 64-byte blocks
// and buffer refills at every place.
std::string randomJsonValue(std::mt19937& random, int depth) {
    const auto pick = [&](int n) { return static_cast<int>(random() % static_cast<unsigned>(n)); };
    const auto randomString = [&] {
        static const char* const pieces[] = {"a", " ", "[", "]", "{", "}", "\\\"", "\\\\", "\\\\\\\"", "\\n", "\xC3\xA9", ",", ":"};
        std::string s = "\"";
        for (int n = pick(4) == 0 ? pick(200) : pick(12); n > 0; --n) s += pieces[pick(13)];
        return s + "\"";
    };
    switch (depth >= 4 ? pick(3) : pick(5)) {
    case 0: return randomString();
    case 1: return std::to_string(pick(1000000)) + (pick(2) ? ".5" : "");
    case 2: return pick(2) ? "true" : "null";
    case 3: {
        std::string a = "[";
        for (int n = pick(6), i = 0; i < n; ++i) a += (i ? (pick(2) ? "," : " ,\n") : "") + randomJsonValue(random, depth + 1);
        return a + "]";
    }
    default: {
        std::string o = "{";
        for (int n = pick(6), i = 0; i < n; ++i)
            o += (i ? ", " : "") + std::string("\"k") + std::to_string(i) + "\": " + randomJsonValue(random, depth + 1);
        return o + "}";
    }
    }
}
} // namespace

TEST(JsonStream, ElementsOfEveryShapeEndWhereTheyEnd) {
    // Several megabytes of random objects and arrays: each element handed over is exactly the text
    // written, at its offset, whether streamed as elements, streamed under a key, or passed over unchecked.
    std::mt19937 random(41);
    std::vector<std::string> elements;
    std::string text = "{\"data\": [{\"spans\": [", items;
    for (std::size_t bytes = 0; bytes < (std::size_t(5) << 20);) {
        std::string e = random() % 2 ? "{\"i\": " + std::to_string(elements.size()) + ", \"v\": " + randomJsonValue(random, 1) + "}"
                                     : "[" + randomJsonValue(random, 1) + "]";
        bytes += e.size();
        elements.push_back(std::move(e));
    }
    std::vector<std::uint64_t> offsets;
    for (std::size_t i = 0; i < elements.size(); ++i) {
        if (i) items += ",\n";
        offsets.push_back(text.size() + items.size());
        items += elements[i];
    }
    text += items + "], \"after\": 7}]}";
    test::ScratchDir dir;
    const std::string path = dir.write("shapes.json", text);

    std::vector<std::string> streamed;
    std::vector<std::uint64_t> at;
    JsonArrayStream stream;
    std::string error;
    ASSERT_TRUE(stream.open(path, "data", &error)) << error;
    ASSERT_TRUE(stream.nextObject([](std::string_view key) { return key == "spans" ? JsonArrayStream::Member::StreamText : JsonArrayStream::Member::Parse; },
                                  [&](std::string_view key, const JsonValue& value, std::uint64_t offset) {
                                      if (key == "spans") {
                                          streamed.emplace_back(stream.elementText());
                                          at.push_back(offset);
                                      } else {
                                          EXPECT_EQ(value.number(), 7);
                                      }
                                      return true;
                                  }))
        << stream.error();
    ASSERT_EQ(streamed.size(), elements.size());
    for (std::size_t i = 0; i < elements.size(); ++i) {
        ASSERT_EQ(streamed[i], elements[i]) << i;
        ASSERT_EQ(at[i], offsets[i]) << i;
    }

    bool sawAfter = false;
    JsonArrayStream skipping;
    ASSERT_TRUE(skipping.open(path, "data", &error)) << error;
    ASSERT_TRUE(skipping.nextObject([](std::string_view key) { return key == "spans" ? JsonArrayStream::Member::SkipUnchecked : JsonArrayStream::Member::Parse; },
                                    [&](std::string_view, const JsonValue& value, std::uint64_t) { return sawAfter = value.number() == 7; }))
        << skipping.error();
    EXPECT_TRUE(sawAfter);

    const auto whole = streamFile(dir.write("array.json", "[" + items + "]"), "");
    EXPECT_EQ(whole.error, "");
    EXPECT_EQ(whole.elements, elements);
}

TEST(Json, WriterStringsAsRapidJsonWritesThem) {
    // Every ASCII byte, and valid UTF-8, as keys and values in objects, arrays and at the root, plain and
    // pretty: the same text as RapidJSON's own writer gives (strings without escapes are put whole).
    std::vector<std::string> texts = {"", "plain", "caf\xC3\xA9 \xF0\x9F\x98\x80", "a/b", "\x7F"};
    for (int c = 0; c < 0x80; ++c) {
        const std::string byte(1, static_cast<char>(c));
        texts.push_back("x" + byte + "yz");
        for (const std::size_t at : {0, 3, 7, 8, 13, 15, 16, 20})  // in each place of the words read 8 at a time
            texts.push_back(std::string("twenty bytes of text").insert(at, byte));
    }
    for (const std::size_t at : {0, 5, 9, 17})
        texts.push_back(std::string("twenty bytes of text").insert(at, "\xC3\xA9"));
    for (const bool pretty : {false, true}) {
        JsonWriter ours(pretty);
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> plainTheirs(buffer);
        rapidjson::PrettyWriter<rapidjson::StringBuffer> prettyTheirs(buffer);
        prettyTheirs.SetIndent(' ', 2);  // as JsonWriter's
        const auto both = [&](auto&& f) {
            if (pretty) f(prettyTheirs);
            else f(plainTheirs);
        };
        ours.beginArray();
        both([](auto& w) { w.StartArray(); });
        for (const std::string& t : texts) {
            const auto size = static_cast<rapidjson::SizeType>(t.size());
            ours.value(t).beginObject().key(t).value(t).key("n").value(std::int64_t(1)).key(t + "2").beginArray().value(t).value(t).endArray().endObject();
            both([&](auto& w) {
                w.String(t.data(), size);
                w.StartObject();
                w.Key(t.data(), size);
                w.String(t.data(), size);
                w.Key("n");
                w.Int64(1);
                const std::string k2 = t + "2";
                w.Key(k2.data(), static_cast<rapidjson::SizeType>(k2.size()));
                w.StartArray();
                w.String(t.data(), size);
                w.String(t.data(), size);
                w.EndArray();
                w.EndObject();
            });
        }
        ours.endArray();
        both([](auto& w) { w.EndArray(); });
        const std::string theirs(buffer.GetString(), buffer.GetSize());
        const auto differ = std::mismatch(ours.text().begin(), ours.text().end(), theirs.begin(), theirs.end());
        EXPECT_TRUE(ours.text() == theirs) << (pretty ? "pretty" : "plain") << ", from byte " << (differ.first - ours.text().begin()) << ": "
                                           << std::string(differ.first, ours.text().end()).substr(0, 80);
    }
    JsonWriter root;
    root.value("alone");
    EXPECT_EQ(root.text(), "\"alone\"");
}
