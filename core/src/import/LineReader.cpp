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
        m_clean = m_clean > m_begin ? m_clean - m_begin : 0;
        m_begin = 0;
    }
    m_lf = m_cr = kUnknown;
    if (m_end == m_capacity) {  // a line longer than the buffer (or a file that grew, or one of unknown size)
        std::size_t grown = std::max(m_capacity * 2, std::min(kChunk, m_capacity * 16));
        if (m_maxLine) grown = std::max(m_capacity, std::min(grown, m_maxLine + 2));  // never much past the limit
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

std::size_t LineReader::find(std::size_t from, char c) const {
    if (from >= m_end) return m_end;
    const void* hit = std::memchr(m_buffer.get() + from, c, m_end - from);
    return hit ? static_cast<std::size_t>(static_cast<const char*>(hit) - m_buffer.get()) : m_end;
}

bool LineReader::nextLine(std::string_view& line) {
    if (!m_file || m_tooLong) return false;
    auto tooLong = [&] {
        m_tooLong = true;
        m_lineStart = m_consumed;
        ++m_lineNumber;
        return false;
    };
    if (!m_started) {
        m_started = true;
        while (m_end - m_begin < 3 && refill()) {}
        if (m_end - m_begin >= 3 && std::memcmp(m_buffer.get() + m_begin, "\xEF\xBB\xBF", 3) == 0) {  // UTF-8 BOM
            m_begin += 3;
            m_consumed += 3;
        }
    }
    for (;;) {
        const std::size_t from = std::max(m_begin, m_clean);
        if (m_lf == kUnknown || m_lf < m_begin) m_lf = find(from, '\n');
        if (m_cr == kUnknown || m_cr < m_begin) m_cr = find(from, '\r');
        const std::size_t pos = std::min(m_lf, m_cr);
        // A CR as the last byte read may be the first half of a CRLF: read on before deciding.
        const bool crPending = pos == m_cr && pos + 1 == m_end && !m_eof;
        if (pos < m_end && !crPending) {
            if (m_maxLine && pos - m_begin > m_maxLine) return tooLong();
            const std::size_t terminator = pos == m_cr && pos + 1 < m_end && m_buffer[pos + 1] == '\n' ? 2 : 1;
            line = std::string_view(m_buffer.get() + m_begin, pos - m_begin);
            m_lineStart = m_consumed;
            m_consumed += pos - m_begin + terminator;
            m_begin = pos + terminator;
            ++m_lineNumber;
            return true;
        }
        if (m_maxLine && m_end - m_begin > m_maxLine + 1) return tooLong();  // + 1: a CR that may end it
        m_clean = crPending ? pos : m_end;  // nothing to find before here after the refill
        if (!refill()) {
            if (crPending) continue;  // end of file: the CR was a line end on its own
            if (m_end == m_begin) return false;
            if (m_maxLine && m_end - m_begin > m_maxLine) return tooLong();
            line = std::string_view(m_buffer.get() + m_begin, m_end - m_begin);  // last line without a line end
            m_lineStart = m_consumed;
            m_consumed += m_end - m_begin;
            m_begin = m_end;
            ++m_lineNumber;
            return true;
        }
    }
}

} // namespace tracelight
