#include "tracelight/import/LineReader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tracelight {

namespace {
constexpr std::size_t kChunk = 1 << 22;
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
    m_buffer.resize(kChunk);
    return true;
}

bool LineReader::refill() {
    if (m_eof) return false;
    if (m_begin > 0) {  // keep the unfinished line at the front
        std::memmove(m_buffer.data(), m_buffer.data() + m_begin, m_end - m_begin);
        m_end -= m_begin;
        m_begin = 0;
    }
    if (m_end == m_buffer.size()) {  // a line longer than the buffer (never much longer than the limit)
        const std::size_t grown = m_buffer.size() * 2;
        m_buffer.resize(m_maxLine ? std::max(m_buffer.size(), std::min(grown, m_maxLine + 2)) : grown);
    }
    const std::size_t got = std::fread(m_buffer.data() + m_end, 1, m_buffer.size() - m_end, m_file);
    if (got == 0) {
        m_eof = true;
        return false;
    }
    m_end += got;
    return true;
}

bool LineReader::nextLine(std::string_view& line) {
    if (!m_file || m_tooLong) return false;
    auto tooLong = [&] {
        m_tooLong = true;
        m_lineStart = m_consumed;
        ++m_lineNumber;
        return false;
    };
    std::size_t searchFrom = m_begin;
    for (;;) {
        const char* start = m_buffer.data() + searchFrom;
        const void* newline = std::memchr(start, '\n', m_end - searchFrom);
        if (newline) {
            const std::size_t pos = static_cast<const char*>(newline) - m_buffer.data();
            std::size_t len = pos - m_begin;
            if (m_maxLine && len > m_maxLine + 1) return tooLong();  // + 1: a "\r" before the "\n"
            line = std::string_view(m_buffer.data() + m_begin, len);
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            m_lineStart = m_consumed;
            m_consumed += len + 1;
            m_begin = pos + 1;
            ++m_lineNumber;
            return true;
        }
        const std::size_t scanned = m_end - m_begin;
        if (m_maxLine && scanned > m_maxLine + 1) return tooLong();
        if (!refill()) {
            if (m_end == m_begin) return false;
            line = std::string_view(m_buffer.data() + m_begin, m_end - m_begin);  // last line without newline
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
