#include "tracelight/base/JsonStream.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tracelight {

namespace {
constexpr std::size_t kChunk = 1 << 20;
constexpr int kMaxDepth = 512;
} // namespace

JsonArrayStream::~JsonArrayStream() {
    if (m_file) std::fclose(m_file);
}

bool JsonArrayStream::fail(const std::string& message) {
    if (m_error.empty()) m_error = "byte " + std::to_string(m_offset) + ": " + message;
    m_done = true;
    return false;
}

int JsonArrayStream::peek() {
    if (m_pos == m_end) {
        m_end = m_file ? std::fread(m_buffer.data(), 1, m_buffer.size(), m_file) : 0;
        m_pos = 0;
        if (m_end == 0) return -1;
    }
    return static_cast<unsigned char>(m_buffer[m_pos]);
}

int JsonArrayStream::get() {
    const int c = peek();
    if (c >= 0) {
        ++m_pos;
        ++m_offset;
    }
    return c;
}

bool JsonArrayStream::skipSpace() {
    for (int c = peek(); c == ' ' || c == '\t' || c == '\n' || c == '\r'; c = peek()) get();
    return peek() >= 0;
}

bool JsonArrayStream::readString(std::string* out) {
    if (get() != '"') return fail("expected a string");
    if (out) out->push_back('"');
    for (;;) {
        const int c = get();
        if (c < 0) return fail("unterminated string");
        if (out) out->push_back(static_cast<char>(c));
        if (c == '"') return true;
        if (c == '\\') {
            const int e = get();
            if (e < 0) return fail("unterminated string");
            if (out) out->push_back(static_cast<char>(e));
        }
    }
}

bool JsonArrayStream::skipValue(std::string* capture) {
    // Structure only (brackets and strings); the element's own parser checks everything else.
    if (!skipSpace()) return fail("unexpected end of file");
    int c = peek();
    if (c == '"') return readString(capture);
    if (c == '{' || c == '[') {
        int depth = 0;
        for (;;) {
            c = peek();
            if (c < 0) return fail("unexpected end of file inside a value");
            if (c == '"') {
                if (!readString(capture)) return false;
                continue;
            }
            get();
            if (capture) capture->push_back(static_cast<char>(c));
            if (c == '{' || c == '[') {
                if (++depth > kMaxDepth) return fail("JSON nested too deeply");
            } else if (c == '}' || c == ']') {
                if (--depth == 0) return true;
            }
        }
    }
    // A scalar: up to the next delimiter.
    std::size_t length = 0;
    for (c = peek(); c >= 0 && c != ',' && c != ']' && c != '}' && c != ' ' && c != '\n' && c != '\r' && c != '\t'; c = peek()) {
        get();
        if (capture) capture->push_back(static_cast<char>(c));
        ++length;
    }
    return length > 0 ? true : fail("invalid value");
}

bool JsonArrayStream::open(const std::string& path, std::string_view key, std::string* error) {
    m_path = path;
    m_file = std::fopen(path.c_str(), "rb");
    if (!m_file) {
        if (error) *error = path + ": cannot open: " + std::strerror(errno);
        return false;
    }
    if (std::fseek(m_file, 0, SEEK_END) == 0) {
        m_size = static_cast<std::uint64_t>(std::max(0L, std::ftell(m_file)));
        std::fseek(m_file, 0, SEEK_SET);
    }
    // Sized to the file (+1 so that one read meets the end): a small document costs what it holds,
    // not a zero-filled megabyte per open. Unknown size (a pipe): 64 KiB reads.
    m_buffer.resize(m_size > 0 ? std::min<std::uint64_t>(kChunk, std::max<std::uint64_t>(256, m_size + 1)) : (1 << 16));
    auto openFail = [&](const std::string& message) {
        fail(message);
        if (error) *error = m_error;
        return false;
    };
    if (peek() == 0xEF) {  // UTF-8 byte-order mark
        get();
        get();
        get();
    }
    if (!skipSpace()) return openFail("empty file");
    if (key.empty()) {
        if (peek() != '[') return openFail("expected a JSON array");
        get();
        return true;
    }
    if (peek() != '{') return openFail("expected a JSON object");
    get();
    for (;;) {
        if (!skipSpace()) return openFail("unexpected end of file");
        if (peek() == '}') return openFail("no \"" + std::string(key) + "\" key");
        std::string name;
        if (!readString(&name)) {
            if (error) *error = m_error;
            return false;
        }
        if (!skipSpace() || get() != ':') return openFail("expected ':'");
        if (!skipSpace()) return openFail("unexpected end of file");
        if (name.size() == key.size() + 2 && name.compare(1, key.size(), key) == 0) {
            if (peek() == '[') {
                get();
                return true;
            }
            if (peek() == '{') {
                m_singleObject = true;
                return true;
            }
            return openFail("\"" + std::string(key) + "\" is neither an array nor an object");
        }
        if (!skipValue(nullptr)) {
            if (error) *error = m_error;
            return false;
        }
        if (!skipSpace()) return openFail("unexpected end of file");
        if (peek() == ',') get();
    }
}

bool JsonArrayStream::next(std::string& element, std::uint64_t& offset) {
    element.clear();
    if (m_done) return false;
    if (m_singleObject) {
        m_done = true;
        skipSpace();
        offset = m_offset;
        return skipValue(&element);
    }
    if (!skipSpace()) return fail("unexpected end of file inside the array");
    if (peek() == ']') {
        get();
        m_done = true;
        return false;
    }
    if (!m_first) {
        if (get() != ',') return fail("expected ',' between array elements");
        if (!skipSpace()) return fail("unexpected end of file inside the array");
    }
    m_first = false;
    offset = m_offset;
    return skipValue(&element);
}

} // namespace tracelight
