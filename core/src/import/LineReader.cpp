#include "tracelight/import/LineReader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tracelight {

namespace {
constexpr std::size_t kChunk = 1 << 22;  // the most read at once; a small file gets a buffer of its own size
constexpr std::size_t kMinimum = 256;
}

LineReader::~LineReader() {
    if (m_file) std::fclose(m_file);
}

bool LineReader::open(const std::string& path, std::string* error) {
    m_file = std::fopen(path.c_str(), "rb");
    if (!m_file) {
        if (error) *error = path + ": cannot open: " + std::strerror(errno);
        return false;
    }
    if (std::fseek(m_file, 0, SEEK_END) == 0) {
        const long size = std::ftell(m_file);
        m_fileSize = size > 0 ? static_cast<std::uint64_t>(size) : 0;
        std::fseek(m_file, 0, SEEK_SET);
    }
    // Sized to the file (+1 so that one read meets the end) and never zero-filled: opening a small
    // input costs what it holds, not a 4 MiB memset (the fuzzers open thousands per second).
    m_capacity = m_fileSize > 0 ? std::min<std::uint64_t>(kChunk, std::max<std::uint64_t>(kMinimum, m_fileSize + 1)) : kMinimum;
    m_buffer = std::make_unique_for_overwrite<char[]>(m_capacity);
    return true;
}

bool LineReader::refill() {
    if (m_eof) return false;
    if (m_begin > 0) {  // keep the unfinished line at the front
        std::memmove(m_buffer.get(), m_buffer.get() + m_begin, m_end - m_begin);
        m_end -= m_begin;
        m_begin = 0;
    }
    if (m_end == m_capacity) {  // a line longer than the buffer (or a file that grew, or one of unknown size)
        const std::size_t grown = std::max(m_capacity * 2, std::min(kChunk, m_capacity * 16));
        auto bigger = std::make_unique_for_overwrite<char[]>(grown);
        std::memcpy(bigger.get(), m_buffer.get(), m_end);
        m_buffer = std::move(bigger);
        m_capacity = grown;
    }
    const std::size_t got = std::fread(m_buffer.get() + m_end, 1, m_capacity - m_end, m_file);
    if (got == 0) {
        m_eof = true;
        return false;
    }
    m_end += got;
    return true;
}

bool LineReader::nextLine(std::string_view& line) {
    if (!m_file) return false;
    std::size_t searchFrom = m_begin;
    for (;;) {
        const char* start = m_buffer.get() + searchFrom;
        const void* newline = std::memchr(start, '\n', m_end - searchFrom);
        if (newline) {
            const std::size_t pos = static_cast<const char*>(newline) - m_buffer.get();
            std::size_t len = pos - m_begin;
            line = std::string_view(m_buffer.get() + m_begin, len);
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            m_lineStart = m_consumed;
            m_consumed += len + 1;
            m_begin = pos + 1;
            ++m_lineNumber;
            return true;
        }
        const std::size_t scanned = m_end - m_begin;
        if (!refill()) {
            if (m_end == m_begin) return false;
            line = std::string_view(m_buffer.get() + m_begin, m_end - m_begin);  // last line without newline
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            m_lineStart = m_consumed;
            m_consumed += m_end - m_begin;
            m_begin = m_end;
            ++m_lineNumber;
            return true;
        }
        searchFrom = m_begin + scanned;
    }
}

} // namespace tracelight
