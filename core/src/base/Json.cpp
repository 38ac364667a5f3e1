#include "tracelight/base/Json.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace tracelight {

const JsonValue* JsonValue::find(std::string_view key) const {
    for (const auto& [name, value] : m_object)
        if (name == key) return &value;
    return nullptr;
}

class JsonParser {
public:
    explicit JsonParser(std::string_view text) : m_text(text) {}

    bool parseDocument(JsonValue& out) {
        skipSpace();
        if (!parseValue(out, 0)) return false;
        skipSpace();
        if (m_pos != m_text.size()) return fail("unexpected text after the JSON value");
        return true;
    }

    std::string error;
    std::size_t errorOffset = 0;

private:
    static constexpr int kMaxDepth = 256;  // deeper input is refused instead of overflowing the stack

    bool fail(const std::string& message) {
        if (error.empty()) {
            error = message;
            errorOffset = m_pos;
        }
        return false;
    }

    void skipSpace() {
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
            ++m_pos;
        }
    }

    bool literal(std::string_view word) {
        if (m_text.substr(m_pos, word.size()) != word) return fail("invalid literal");
        m_pos += word.size();
        return true;
    }

    bool parseValue(JsonValue& out, int depth) {
        if (depth > kMaxDepth) return fail("JSON nested too deeply");
        if (m_pos >= m_text.size()) return fail("unexpected end of JSON");
        const char c = m_text[m_pos];
        switch (c) {
        case '{': return parseObject(out, depth);
        case '[': return parseArray(out, depth);
        case '"': out.m_type = JsonValue::Type::String; return parseString(out.m_string);
        case 't': out.m_type = JsonValue::Type::Bool; out.m_bool = true; return literal("true");
        case 'f': out.m_type = JsonValue::Type::Bool; out.m_bool = false; return literal("false");
        case 'n': out.m_type = JsonValue::Type::Null; return literal("null");
        default: return parseNumber(out);
        }
    }

    bool parseNumber(JsonValue& out) {
        const std::size_t start = m_pos;
        if (m_pos < m_text.size() && m_text[m_pos] == '-') ++m_pos;
        auto digits = [&] {
            const std::size_t from = m_pos;
            while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9') ++m_pos;
            return m_pos > from;
        };
        if (!digits()) return fail("invalid value");
        if (m_pos < m_text.size() && m_text[m_pos] == '.') {
            ++m_pos;
            if (!digits()) return fail("invalid number");
        }
        if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
            ++m_pos;
            if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-')) ++m_pos;
            if (!digits()) return fail("invalid number");
        }
        out.m_type = JsonValue::Type::Number;
        out.m_string.assign(m_text.substr(start, m_pos - start));
        const auto result = std::from_chars(m_text.data() + start, m_text.data() + m_pos, out.m_number);
        if (result.ec == std::errc::result_out_of_range) out.m_number = m_text[start] == '-' ? -HUGE_VAL : HUGE_VAL;
        return true;
    }

    static void appendUtf8(std::string& out, std::uint32_t cp) {
        if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
            out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
            out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
    }

    bool hex4(std::uint32_t& cp) {
        if (m_pos + 4 > m_text.size()) return fail("truncated \\u escape");
        cp = 0;
        for (int i = 0; i < 4; ++i) {
            const char h = m_text[m_pos++];
            cp <<= 4;
            if (h >= '0' && h <= '9') cp |= h - '0';
            else if (h >= 'a' && h <= 'f') cp |= h - 'a' + 10;
            else if (h >= 'A' && h <= 'F') cp |= h - 'A' + 10;
            else return fail("invalid \\u escape");
        }
        return true;
    }

    bool parseString(std::string& out) {
        ++m_pos;  // opening quote
        out.clear();
        for (;;) {
            if (m_pos >= m_text.size()) return fail("unterminated string");
            const char c = m_text[m_pos++];
            if (c == '"') return true;
            if (static_cast<unsigned char>(c) < 0x20) return fail("control character in string");
            if (c != '\\') {
                out.push_back(c);
                continue;
            }
            if (m_pos >= m_text.size()) return fail("unterminated string");
            const char e = m_text[m_pos++];
            switch (e) {
            case '"': out.push_back('"'); break;
            case '\\': out.push_back('\\'); break;
            case '/': out.push_back('/'); break;
            case 'b': out.push_back('\b'); break;
            case 'f': out.push_back('\f'); break;
            case 'n': out.push_back('\n'); break;
            case 'r': out.push_back('\r'); break;
            case 't': out.push_back('\t'); break;
            case 'u': {
                std::uint32_t cp;
                if (!hex4(cp)) return false;
                if (cp >= 0xD800 && cp < 0xDC00 && m_text.substr(m_pos, 2) == "\\u") {
                    m_pos += 2;
                    std::uint32_t low;
                    if (!hex4(low)) return false;
                    if (low >= 0xDC00 && low < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    else return fail("invalid surrogate pair");
                }
                appendUtf8(out, cp);
                break;
            }
            default: return fail("invalid escape in string");
            }
        }
    }

    bool parseArray(JsonValue& out, int depth) {
        out.m_type = JsonValue::Type::Array;
        ++m_pos;
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == ']') {
            ++m_pos;
            return true;
        }
        for (;;) {
            skipSpace();
            out.m_array.emplace_back();
            if (!parseValue(out.m_array.back(), depth + 1)) return false;
            skipSpace();
            if (m_pos >= m_text.size()) return fail("unterminated array");
            if (m_text[m_pos] == ',') { ++m_pos; continue; }
            if (m_text[m_pos] == ']') { ++m_pos; return true; }
            return fail("expected ',' or ']' in array");
        }
    }

    bool parseObject(JsonValue& out, int depth) {
        out.m_type = JsonValue::Type::Object;
        ++m_pos;
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == '}') {
            ++m_pos;
            return true;
        }
        for (;;) {
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != '"') return fail("expected a string key in object");
            out.m_object.emplace_back();
            if (!parseString(out.m_object.back().first)) return false;
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != ':') return fail("expected ':' after object key");
            ++m_pos;
            skipSpace();
            if (!parseValue(out.m_object.back().second, depth + 1)) return false;
            skipSpace();
            if (m_pos >= m_text.size()) return fail("unterminated object");
            if (m_text[m_pos] == ',') { ++m_pos; continue; }
            if (m_text[m_pos] == '}') { ++m_pos; return true; }
            return fail("expected ',' or '}' in object");
        }
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
};

bool JsonValue::parse(std::string_view text, JsonValue& out, std::string* error, std::size_t* errorOffset) {
    out = JsonValue();
    JsonParser parser(text);
    if (parser.parseDocument(out)) return true;
    if (error) *error = parser.error;
    if (errorOffset) *errorOffset = parser.errorOffset;
    return false;
}

void appendJsonString(std::string& out, std::string_view text) {
    out.push_back('"');
    for (const char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
                out += buf;
            } else {
                out.push_back(c);
            }
        }
    }
    out.push_back('"');
}

void JsonWriter::newline() {
    if (!m_pretty) return;
    m_out.push_back('\n');
    m_out.append(m_hasItems.size() * 2, ' ');
}

void JsonWriter::beforeValue() {
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (!m_hasItems.empty()) {
        if (m_hasItems.back()) m_out.push_back(',');
        m_hasItems.back() = true;
        newline();
    }
}

JsonWriter& JsonWriter::beginObject() {
    beforeValue();
    m_out.push_back('{');
    m_hasItems.push_back(false);
    return *this;
}

JsonWriter& JsonWriter::endObject() {
    const bool had = m_hasItems.back();
    m_hasItems.pop_back();
    if (had) newline();
    m_out.push_back('}');
    return *this;
}

JsonWriter& JsonWriter::beginArray() {
    beforeValue();
    m_out.push_back('[');
    m_hasItems.push_back(false);
    return *this;
}

JsonWriter& JsonWriter::endArray() {
    const bool had = m_hasItems.back();
    m_hasItems.pop_back();
    if (had) newline();
    m_out.push_back(']');
    return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
    beforeValue();
    appendJsonString(m_out, name);
    m_out += m_pretty ? ": " : ":";
    m_afterKey = true;
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
    beforeValue();
    appendJsonString(m_out, text);
    return *this;
}

JsonWriter& JsonWriter::value(double number) {
    beforeValue();
    if (!std::isfinite(number)) {
        m_out += "null";
        return *this;
    }
    char buf[32];
    const auto result = std::to_chars(buf, buf + sizeof buf, number);
    m_out.append(buf, result.ptr);
    return *this;
}

JsonWriter& JsonWriter::value(std::int64_t number) {
    beforeValue();
    m_out += std::to_string(number);
    return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
    beforeValue();
    m_out += flag ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::null() {
    beforeValue();
    m_out += "null";
    return *this;
}

} // namespace tracelight
