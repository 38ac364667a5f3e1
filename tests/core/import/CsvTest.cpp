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
