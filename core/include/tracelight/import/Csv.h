#pragma once
// RFC 4180 CSV records over a LineReader: quoted fields, "" escapes, newlines inside quotes.
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "tracelight/import/LineReader.h"

namespace tracelight {

class CsvReader {
public:
    explicit CsvReader(LineReader& lines) : m_lines(lines) {}

    enum class Next { Record, End, Error };

    // Fields are valid until the next call. On Error, error() says what is wrong. A line, or a quoted field
    // over several lines, longer than the line reader's limit is an Error, named at its line, before it is
    // held whole.
    Next next(std::vector<std::string_view>& fields);
    std::uint64_t recordLine() const { return m_recordLine; }  // line where the last record started
    const std::string& error() const { return m_error; }

private:
    Next tooLong();

    LineReader& m_lines;
    std::string m_joined;               // a record that spans several lines
    std::deque<std::string> m_unquoted;  // fields that needed unescaping (deque: stable addresses)
    std::uint64_t m_recordLine = 0;
    std::string m_error;
};

// Splits one complete record; returns false (with a message) on a malformed quote.
bool splitCsvRecord(std::string_view record, std::vector<std::string_view>& fields,
                    std::deque<std::string>& storage, std::string* error);

} // namespace tracelight
