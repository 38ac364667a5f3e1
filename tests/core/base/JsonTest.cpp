#include <gtest/gtest.h>

#include "tracelight/base/Json.h"
#include "tracelight/base/JsonStream.h"
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

TEST(JsonArrayStream, SizesItsBufferToASmallFile) {
    // A small document (a fuzzer's input, a single trace) must not cost a zero-filled megabyte per open.
    test::ScratchDir dir;
    const auto path = dir.write("small.json", "\xEF\xBB\xBF{\"data\": [{\"a\": 1}, [2, \"]\"], 3]}");
    JsonArrayStream stream;
    std::string error;
    ASSERT_TRUE(stream.open(path, "data", &error)) << error;
    EXPECT_LE(stream.bufferSize(), 4096u);
    std::string element;
    std::uint64_t offset = 0;
    ASSERT_TRUE(stream.next(element, offset));
    EXPECT_EQ(element, "{\"a\": 1}");
    ASSERT_TRUE(stream.next(element, offset));
    EXPECT_EQ(element, "[2, \"]\"]");
    ASSERT_TRUE(stream.next(element, offset));
    EXPECT_EQ(element, "3");
    EXPECT_FALSE(stream.next(element, offset));
    EXPECT_TRUE(stream.error().empty()) << stream.error();
}
