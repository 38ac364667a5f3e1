#pragma once
// Streams a text file line by line through a fixed buffer: memory does not grow with file size.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "tracelight/base/Json.h"

namespace tracelight {

class LineReader {
public:
    LineReader() = default;
    ~LineReader();
    LineReader(const LineReader&) = delete;
    LineReader& operator=(const LineReader&) = delete;

    // Returns false with an error message when the file cannot be opened.
    bool open(const std::string& path, std::string* error);

    // The next line without its "\n", "\r\n" or lone "\r" (old Mac line ends); false at end of file. A UTF-8
    // byte-order mark at the start of the file is skipped. The view is valid until the next call.
    bool nextLine(std::string_view& line);

    // A line longer than this is not read (memory stays bounded): nextLine returns false and lineTooLong()
    // is true; lineNumber() and lineStartOffset() then name that line. By default the one limit of every
    // format, a JSON value's (a line, a CSV field or record, a JSON value: 64 MiB); 0 = no limit.
    void setMaxLineBytes(std::size_t bytes) { m_maxLine = bytes; }
    std::size_t maxLineBytes() const { return m_maxLine; }
    bool lineTooLong() const { return m_tooLong; }

    std::uint64_t lineNumber() const { return m_lineNumber; }      // 1-based number of the last line returned
    std::uint64_t lineStartOffset() const { return m_lineStart; }  // byte offset of that line in the file
    std::uint64_t bytesConsumed() const { return m_consumed; }
    std::uint64_t fileSize() const { return m_fileSize; }
    // Bytes held for reading: at most the file's size (plus one), up to a 4 MiB chunk; more only for a longer line.
    std::size_t bufferSize() const { return m_capacity; }

private:
    bool refill();
    std::size_t find(std::size_t from, char c) const;  // index of c in [from, m_end), else m_end

    std::FILE* m_file = nullptr;
    std::unique_ptr<char[]> m_buffer;  // not zero-filled: only bytes read from the file are ever looked at
    std::size_t m_capacity = 0;
    std::size_t m_begin = 0;
    std::size_t m_end = 0;
    bool m_eof = false;
    bool m_started = false;
    // The first '\n' and '\r' at or after m_begin (m_end: none), kept between lines so that a file of
    // lone CRs is not searched to the buffer's end for a '\n' on every line. kUnknown after a refill.
    static constexpr std::size_t kUnknown = static_cast<std::size_t>(-1);
    std::size_t m_lf = kUnknown;
    std::size_t m_cr = kUnknown;
    std::size_t m_clean = 0;  // [m_begin, m_clean) holds neither (known from before a refill)
    std::uint64_t m_lineNumber = 0;
    std::uint64_t m_lineStart = 0;
    std::uint64_t m_consumed = 0;
    std::uint64_t m_fileSize = 0;
    std::size_t m_maxLine = kMaxJsonValueBytes;
    bool m_tooLong = false;
};

} // namespace tracelight
