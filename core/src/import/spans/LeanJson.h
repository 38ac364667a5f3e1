#pragma once
// A strict reader of one JSON text in memory, in place, for the plain case only: strings of printable ASCII
// without escapes, objects without repeated keys, nesting a few levels deep. Anything else makes it give up
// (ok() false), and the caller reads the text with JsonValue::parse instead, which accepts or refuses it
// and words the error. So whatever this reader accepts JsonValue::parse accepts too, with the same values,
// and a span file is read without building a document per span.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tracelight {

class LeanJson {
public:
    enum class Kind { Null, Bool, Number, String, Array, Object, Bad };

    // The next text to read (a reader is reused, keeping its memory).
    void reset(std::string_view text) {
        m_at = text.data();
        m_end = text.data() + text.size();
        m_ok = true;
        m_first.clear();
        m_keys.clear();
        m_keyStarts.clear();
    }

    bool ok() const { return m_ok; }
    // Where the reader is in its text (after peek(): at the next value).
    const char* position() const { return m_at; }
    bool giveUp() { return m_ok = false; }

    // The kind of the next value (after white space), without reading it.
    Kind peek() {
        skipSpace();
        if (m_at == m_end) return Kind::Bad;
        switch (*m_at) {
        case '{': return Kind::Object;
        case '[': return Kind::Array;
        case '"': return Kind::String;
        case 't': case 'f': return Kind::Bool;
        case 'n': return Kind::Null;
        default: return *m_at == '-' || (*m_at >= '0' && *m_at <= '9') ? Kind::Number : Kind::Bad;
        }
    }

    // A string's text as it stands in the input.
    bool string(std::string_view& out) {
        skipSpace();
        if (m_at == m_end || *m_at != '"') return giveUp();
        const char* start = ++m_at;
#if defined(__SSE2__)
        // 16 bytes at a time to the first that is not printable ASCII or is a quote or backslash.
        const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20),
                      del = _mm_set1_epi8(0x7F);
        while (m_end - m_at >= 16) {
            const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(m_at));
            // Signed, bytes of 0x80 and above are below 0x20 too.
            const __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash)),
                                              _mm_or_si128(_mm_cmplt_epi8(bytes, space), _mm_cmpeq_epi8(bytes, del)));
            const int mask = _mm_movemask_epi8(stop);
            if (mask == 0) {
                m_at += 16;
                continue;
            }
            m_at += __builtin_ctz(static_cast<unsigned>(mask));
            break;
        }
#endif
        while (m_at != m_end) {
            const auto c = static_cast<unsigned char>(*m_at);
            if (c == '"') {
                out = std::string_view(start, static_cast<std::size_t>(m_at - start));
                ++m_at;
                return true;
            }
            if (c < 0x20 || c >= 0x7F || c == '\\') return giveUp();  // escapes, control bytes, UTF-8: JsonValue's to read
            ++m_at;
        }
        return giveUp();
    }

    // A number's literal, checked against JSON's grammar.
    bool number(std::string_view& literal) {
        skipSpace();
        const char* start = m_at;
        if (m_at != m_end && *m_at == '-') ++m_at;
        if (m_at == m_end) return giveUp();
        if (*m_at == '0') {
            ++m_at;
        } else if (*m_at >= '1' && *m_at <= '9') {
            while (m_at != m_end && isDigit(*m_at)) ++m_at;
        } else {
            return giveUp();
        }
        if (m_at != m_end && *m_at == '.') {
            ++m_at;
            if (!digits()) return giveUp();
        }
        if (m_at != m_end && (*m_at == 'e' || *m_at == 'E')) {
            ++m_at;
            if (m_at != m_end && (*m_at == '+' || *m_at == '-')) ++m_at;
            if (!digits()) return giveUp();
        }
        if (m_at != m_end && (isDigit(*m_at) || *m_at == '.')) return giveUp();  // "01", "1.2.3": JsonValue words these
        literal = std::string_view(start, static_cast<std::size_t>(m_at - start));
        return true;
    }

    // A number that is a plain integer of at most 18 digits, not negative (it fits 64 bits as it is).
    bool smallInteger(std::int64_t& out) {
        std::string_view literal;
        if (!number(literal)) return false;
        if (literal.empty() || literal.size() > 18 || literal[0] == '-') return giveUp();
        std::int64_t v = 0;
        for (char c : literal) {
            if (!isDigit(c)) return giveUp();
            v = v * 10 + (c - '0');
        }
        out = v;
        return true;
    }

    // A JSON scalar as text: a string as it is, a number by its literal, true / false; empty for null. An
    // array or object is read (and checked) and gives empty text.
    bool scalar(std::string_view& out) {
        switch (peek()) {
        case Kind::String: return string(out);
        case Kind::Number: return number(out);
        case Kind::Bool: {
            bool b = false;
            if (!boolean(b)) return false;
            out = b ? "true" : "false";
            return true;
        }
        case Kind::Null:
        case Kind::Array:
        case Kind::Object:
            out = {};
            return skip();
        case Kind::Bad: return giveUp();
        }
        return giveUp();
    }

    bool boolean(bool& out) {
        skipSpace();
        if (word("true")) out = true;
        else if (word("false")) out = false;
        else return giveUp();
        return true;
    }
    bool null() {
        skipSpace();
        return word("null") || giveUp();
    }

    // An object's members: beginObject, then member() until it gives false (at the closing brace, or
    // having given up: see ok()). A key that repeats one of its object's makes the reader give up.
    bool beginObject() {
        if (!open('{')) return false;
        m_keyStarts.push_back(m_keys.size());
        m_first.push_back(1);
        return true;
    }
    bool member(std::string_view& key) {
        if (!m_ok) return false;
        if (!separator('}')) {
            m_keys.resize(m_keyStarts.back());
            m_keyStarts.pop_back();
            return false;
        }
        if (!m_ok || !string(key)) return false;
        for (std::size_t i = m_keyStarts.back(); i < m_keys.size(); ++i)  // most keys differ in length or first byte
            if (m_keys[i].size() == key.size() && (key.empty() || m_keys[i][0] == key[0]) && m_keys[i] == key) return giveUp();
        if (m_keys.size() - m_keyStarts.back() >= kMostKeys) return giveUp();
        m_keys.push_back(key);
        skipSpace();
        if (m_at == m_end || *m_at != ':') return giveUp();
        ++m_at;
        return true;
    }

    // An array's elements: beginArray, then element() until it gives false (at the closing bracket, or
    // having given up).
    bool beginArray() {
        if (!open('[')) return false;
        m_first.push_back(1);
        return true;
    }
    bool element() { return m_ok && separator(']'); }

    // Any value, checked, passed over.
    bool skip() {
        if (m_first.size() > kDeepest) return giveUp();
        std::string_view text;
        switch (peek()) {
        case Kind::Null: return null();
        case Kind::Bool: {
            bool b = false;
            return boolean(b);
        }
        case Kind::Number: return number(text);
        case Kind::String: return string(text);
        case Kind::Array:
            if (!beginArray()) return false;
            while (element())
                if (!skip()) return false;
            return m_ok;
        case Kind::Object:
            if (!beginObject()) return false;
            while (member(text))
                if (!skip()) return false;
            return m_ok;
        case Kind::Bad: return giveUp();
        }
        return giveUp();
    }

    // Only white space is left after the value read.
    bool atEnd() {
        skipSpace();
        return m_ok && m_at == m_end;
    }

private:
    static constexpr std::size_t kMostKeys = 64, kDeepest = 32;
    static bool isDigit(char c) { return c >= '0' && c <= '9'; }
    void skipSpace() {
        while (m_at != m_end && (*m_at == ' ' || *m_at == '\n' || *m_at == '\r' || *m_at == '\t')) ++m_at;
    }
    bool digits() {
        const char* start = m_at;
        while (m_at != m_end && isDigit(*m_at)) ++m_at;
        return m_at != start;
    }
    bool word(std::string_view w) {
        if (static_cast<std::size_t>(m_end - m_at) < w.size() || std::string_view(m_at, w.size()) != w) return false;
        m_at += w.size();
        return m_at == m_end || !(std::isalnum(static_cast<unsigned char>(*m_at)) || *m_at == '_');
    }
    bool open(char c) {
        skipSpace();
        if (m_at == m_end || *m_at != c) return giveUp();
        ++m_at;
        return true;
    }
    // Before an element or member: a comma after the first, or the closing byte (false, the container done).
    bool separator(char close) {
        skipSpace();
        if (m_at == m_end) return giveUp();
        if (*m_at == close) {
            ++m_at;
            m_first.pop_back();
            return false;
        }
        if (!m_first.back()) {
            if (*m_at != ',') return giveUp();
            ++m_at;
        }
        m_first.back() = 0;
        return true;
    }

    const char* m_at = nullptr;
    const char* m_end = nullptr;
    bool m_ok = true;
    std::vector<char> m_first;               // by open container: no element read yet
    std::vector<std::string_view> m_keys;    // the open objects' keys so far
    std::vector<std::size_t> m_keyStarts;    // where each open object's keys begin in m_keys
};

} // namespace tracelight
