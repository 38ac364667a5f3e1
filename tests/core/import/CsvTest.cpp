#include <gtest/gtest.h>

#include "TestUtil.h"
#include "tracelight/import/Csv.h"
#include "tracelight/import/LineReader.h"

using namespace tracelight;

namespace {
std::vector<std::string> split(std::string_view record) {
    std::vector<std::string_view> fields;
    std::deque<std::string> storage;
    std::string error;
    EXPECT_TRUE(splitCsvRecord(record, fields, storage, &error)) << error;
    return {fields.begin(), fields.end()};
}
} // namespace

TEST(Csv, SplitsPlainAndQuotedFields) {
    EXPECT_EQ(split("a,b,c"), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(split("a,,c,"), (std::vector<std::string>{"a", "", "c", ""}));
    EXPECT_EQ(split("\"x,y\",\"say \"\"hi\"\"\",z"), (std::vector<std::string>{"x,y", "say \"hi\"", "z"}));
    EXPECT_EQ(split(""), (std::vector<std::string>{""}));
}

TEST(Csv, RejectsMalformedQuotes) {
    std::vector<std::string_view> fields;
    std::deque<std::string> storage;
    std::string error;
    EXPECT_FALSE(splitCsvRecord("\"open,b", fields, storage, &error));
    EXPECT_NE(error.find("unterminated"), std::string::npos);
    EXPECT_FALSE(splitCsvRecord("\"a\"b,c", fields, storage, &error));
    EXPECT_FALSE(splitCsvRecord("a\"b,c", fields, storage, &error));
}

TEST(Csv, ReaderJoinsRecordsSpanningLinesAndCountsLines) {
    test::ScratchDir dir;
    const auto path = dir.write("x.csv", "h1,h2\r\n\"multi\nline\",2\nlast,3");
    LineReader lines;
    ASSERT_TRUE(lines.open(path, nullptr));
    CsvReader csv(lines);
    std::vector<std::string_view> fields;
    ASSERT_EQ(csv.next(fields), CsvReader::Next::Record);
    EXPECT_EQ(fields[1], "h2");  // \r stripped
    ASSERT_EQ(csv.next(fields), CsvReader::Next::Record);
    EXPECT_EQ(csv.recordLine(), 2u);
    EXPECT_EQ(fields[0], "multi\nline");
    ASSERT_EQ(csv.next(fields), CsvReader::Next::Record);
    EXPECT_EQ(csv.recordLine(), 4u);
    EXPECT_EQ(fields[0], "last");
    EXPECT_EQ(csv.next(fields), CsvReader::Next::End);
}

TEST(Csv, ReaderReportsQuoteOpenAtEndOfFile) {
    test::ScratchDir dir;
    const auto path = dir.write("x.csv", "a,b\n\"never closed,1\n2,3\n");
    LineReader lines;
    ASSERT_TRUE(lines.open(path, nullptr));
    CsvReader csv(lines);
    std::vector<std::string_view> fields;
    ASSERT_EQ(csv.next(fields), CsvReader::Next::Record);
    EXPECT_EQ(csv.next(fields), CsvReader::Next::Error);
    EXPECT_EQ(csv.recordLine(), 2u);
}

TEST(LineReader, HandlesLinesLongerThanItsBuffer) {
    test::ScratchDir dir;
    const std::string longLine(9 << 20, 'x');  // larger than the 4 MiB chunk
    const auto path = dir.write("long.txt", "short\n" + longLine + "\nend\n");
    LineReader lines;
    ASSERT_TRUE(lines.open(path, nullptr));
    std::string_view line;
    ASSERT_TRUE(lines.nextLine(line));
    EXPECT_EQ(line, "short");
    ASSERT_TRUE(lines.nextLine(line));
    EXPECT_EQ(line.size(), longLine.size());
    ASSERT_TRUE(lines.nextLine(line));
    EXPECT_EQ(line, "end");
    EXPECT_EQ(lines.lineNumber(), 3u);
    EXPECT_FALSE(lines.nextLine(line));
}

namespace {
std::vector<std::string> allLines(const std::string& path, std::uint64_t* consumed = nullptr) {
    LineReader lines;
    EXPECT_TRUE(lines.open(path, nullptr));
    std::vector<std::string> out;
    std::string_view line;
    while (lines.nextLine(line)) out.emplace_back(line);
    if (consumed) *consumed = lines.bytesConsumed();
    return out;
}
} // namespace

// Issue 10: a file with old Mac line ends (a lone CR) was one long line.
TEST(LineReader, LoneCarriageReturnEndsALine) {
    test::ScratchDir dir;
    const std::string text = "a\rb\r\nc\n\rd\r\re";
    std::uint64_t consumed = 0;
    EXPECT_EQ(allLines(dir.write("cr.txt", text), &consumed), (std::vector<std::string>{"a", "b", "c", "", "d", "", "e"}));
    EXPECT_EQ(consumed, text.size());
    EXPECT_EQ(allLines(dir.write("cr-end.txt", "x\r")), (std::vector<std::string>{"x"}));
}

// A CRLF split by the reader's 4 MiB chunk is still one line end, not a line end and an empty line.
TEST(LineReader, CrLfAcrossTheBufferEdgeIsOneLineEnd) {
    test::ScratchDir dir;
    const std::size_t chunk = 1 << 22;
    const std::string first(chunk - 1, 'x');  // its CR is the chunk's last byte
    const auto lines = allLines(dir.write("edge.txt", first + "\r\nnext\r\n"));
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0].size(), first.size());
    EXPECT_EQ(lines[1], "next");
    // A lone CR as the chunk's last byte, and as the file's last byte.
    EXPECT_EQ(allLines(dir.write("edge-cr.txt", first + "\rnext\r")).size(), 2u);
    EXPECT_EQ(allLines(dir.write("edge-end.txt", first + "\r")).size(), 1u);
}

// Many CR-only lines: each is found without searching the rest of the buffer for a '\n'.
TEST(LineReader, ManyCarriageReturnLines) {
    test::ScratchDir dir;
    std::string text;
    for (int i = 0; i < 300000; ++i) text += std::to_string(i) + "\r";
    const auto lines = allLines(dir.write("many.txt", text));
    ASSERT_EQ(lines.size(), 300000u);
    EXPECT_EQ(lines.back(), "299999");
}

// A UTF-8 byte-order mark is not part of the first line (every line-based format sees the same).
TEST(LineReader, SkipsByteOrderMark) {
    test::ScratchDir dir;
    std::uint64_t consumed = 0;
    EXPECT_EQ(allLines(dir.write("bom.txt", "\xEF\xBB\xBFh1,h2\nx\n"), &consumed), (std::vector<std::string>{"h1,h2", "x"}));
    EXPECT_EQ(consumed, 11u);  // the whole file, mark included
    EXPECT_EQ(allLines(dir.write("bom-only.txt", "\xEF\xBB\xBF")), std::vector<std::string>{});
    EXPECT_EQ(allLines(dir.write("short.txt", "\xEF\xBB")), (std::vector<std::string>{"\xEF\xBB"}));
}

// A quoted field over many lines is joined in time linear in its length.
TEST(Csv, LongMultiLineFieldIsLinear) {
    test::ScratchDir dir;
    std::string field;
    for (int i = 0; i < 100000; ++i) field += "line " + std::to_string(i) + "\n";
    field.pop_back();
    const auto path = dir.write("long.csv", "a,b\n\"" + field + "\",2\n");
    LineReader lines;
    ASSERT_TRUE(lines.open(path, nullptr));
    CsvReader csv(lines);
    std::vector<std::string_view> fields;
    ASSERT_EQ(csv.next(fields), CsvReader::Next::Record);
    ASSERT_EQ(csv.next(fields), CsvReader::Next::Record);
    ASSERT_EQ(fields.size(), 2u);
    EXPECT_EQ(fields[0], field);
    EXPECT_EQ(fields[1], "2");
}

// Any mix of \n, \r\n and lone \r splits as the obvious reference does (the reader remembers where
// the next \n and \r are between lines; this checks that memory against a plain scan).
TEST(LineReader, AnyMixOfLineEndsMatchesAReferenceSplit) {
    test::ScratchDir dir;
    std::uint32_t state = 12345;
    auto next = [&] { return state = state * 1664525u + 1013904223u; };
    for (int round = 0; round < 200; ++round) {
        std::string text;
        const int length = static_cast<int>(next() % 400);
        for (int i = 0; i < length; ++i) text += "ab\r\n"[next() >> 30];
        std::vector<std::string> expected;
        std::string current;
        for (std::size_t i = 0; i < text.size(); ++i) {
            if (text[i] == '\n' || text[i] == '\r') {
                expected.push_back(current);
                current.clear();
                if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
            } else {
                current += text[i];
            }
        }
        if (!current.empty()) expected.push_back(current);
        std::uint64_t consumed = 0;
        ASSERT_EQ(allLines(dir.write("mix.txt", text), &consumed), expected) << "round " << round;
        EXPECT_EQ(consumed, text.size());
    }
}

TEST(LineReader, SizesItsBufferToASmallFile) {
    // A small input (a fuzzer's, or a one-line log) must not cost a multi-megabyte buffer per open.
    test::ScratchDir dir;
    const auto path = dir.write("small.csv", "a,b\n1,2\r\n3,4");
    LineReader lines;
    ASSERT_TRUE(lines.open(path, nullptr));
    EXPECT_LE(lines.bufferSize(), 4096u);
    std::string_view line;
    ASSERT_TRUE(lines.nextLine(line));
    EXPECT_EQ(line, "a,b");
    ASSERT_TRUE(lines.nextLine(line));
    EXPECT_EQ(line, "1,2");
    ASSERT_TRUE(lines.nextLine(line));
    EXPECT_EQ(line, "3,4");
    EXPECT_EQ(lines.lineStartOffset(), 9u);
    EXPECT_FALSE(lines.nextLine(line));
    EXPECT_EQ(lines.bytesConsumed(), 12u);
}

TEST(LineReader, ReadsAnEmptyFile) {
    test::ScratchDir dir;
    const auto path = dir.write("empty.csv", "");
    LineReader lines;
    ASSERT_TRUE(lines.open(path, nullptr));
    std::string_view line;
    EXPECT_FALSE(lines.nextLine(line));
    EXPECT_EQ(lines.lineNumber(), 0u);
}
