#include "tracelight/base/JsonStream.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/JsonRapid.h"

namespace tracelight {

namespace {

constexpr std::size_t kChunk = 1 << 20;

// Reads one value without building anything; refuses nesting deeper than JsonValue::parse accepts.
struct DepthHandler : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, DepthHandler> {
    int depth = 0;
    bool tooDeep = false;
    bool Default() { return true; }
    bool StartObject() { return enter(); }
    bool StartArray() { return enter(); }
    bool EndObject(rapidjson::SizeType) { return --depth, true; }
    bool EndArray(rapidjson::SizeType) { return --depth, true; }
    bool enter() {
        tooDeep = ++depth > detail::kMaxJsonDepth;
        return !tooDeep;
    }
};

// Reads one string (a member name).
struct NameHandler : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, NameHandler> {
    std::string* name = nullptr;
    bool Default() { return false; }
    bool String(const char* text, rapidjson::SizeType length, bool) {
        name->assign(text, length);
        return true;
    }
};

// Where in 64 bytes the quotes, backslashes, opening and closing brackets are (bit k: byte k).
struct BlockMasks {
    std::uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};
constexpr std::size_t kBlock = 64;

// '[' and '{' differ only in bit 5, as do ']' and '}': one comparison each with that bit cleared.
BlockMasks masksOf(const char* p) {
    BlockMasks m;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), fold = _mm_set1_epi8(static_cast<char>(0xDF)),
                  open = _mm_set1_epi8('['), close = _mm_set1_epi8(']');
    for (int k = 0; k < 4; ++k) {
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
        const __m128i folded = _mm_and_si128(bytes, fold);
        const int shift = 16 * k;
        const auto bits = [shift](__m128i equal) { return std::uint64_t(std::uint32_t(_mm_movemask_epi8(equal))) << shift; };
        m.quote |= bits(_mm_cmpeq_epi8(bytes, quote));
        m.backslash |= bits(_mm_cmpeq_epi8(bytes, backslash));
        m.open |= bits(_mm_cmpeq_epi8(folded, open));
        m.close |= bits(_mm_cmpeq_epi8(folded, close));
    }
#else
    for (std::size_t k = 0; k < kBlock; ++k) {
        const auto c = static_cast<unsigned char>(p[k]);
        const std::uint64_t bit = std::uint64_t(1) << k;
        if (c == '"') m.quote |= bit;
        if (c == '\\') m.backslash |= bit;
        if ((c & 0xDF) == '[') m.open |= bit;
        if ((c & 0xDF) == ']') m.close |= bit;
    }
#endif
    return m;
}

// Bit k: the parity of the set bits 0..k (with quotes: byte k is inside a string, its opening quote
// included, its closing quote not).
std::uint64_t prefixXor(std::uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

std::string mib(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

std::string tooLargeMessage() {
    return "a JSON value larger than the limit of " + mib(kMaxJsonValueBytes) + " (" + std::to_string(kMaxJsonValueBytes) + " bytes)";
}

} // namespace

// RapidJSON's input stream over the file buffer. RapidJSON copies every string it reads (a member name, a
// string in a value passed over), so the strings are followed here: one longer than the limit ends the
// input (a NUL, which RapidJSON reports as an error) before it is held; tooLong then says so.
struct JsonArrayStream::Input {
    typedef char Ch;
    JsonArrayStream& s;
    bool inString = false, escaped = false, tooLong = false;
    std::uint64_t stringStart = 0;  // the offset of the opening quote of the string being read
    Ch Peek() const {
        const int c = tooLong ? -1 : s.peek();
        return c < 0 ? '\0' : static_cast<char>(c);
    }
    Ch Take() {
        const int c = tooLong ? -1 : s.get();
        if (c < 0) return '\0';
        if (inString) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') inString = false;
            tooLong = inString && s.m_offset - stringStart > kMaxJsonValueBytes;
        } else if (c == '"') {
            inString = true;
            stringStart = s.m_offset - 1;
        }
        return static_cast<char>(c);
    }
    std::size_t Tell() const { return static_cast<std::size_t>(s.m_offset); }
    Ch* PutBegin() { return nullptr; }
    void Put(Ch) {}
    void Flush() {}
    std::size_t PutEnd(Ch*) { return 0; }
};

JsonArrayStream::~JsonArrayStream() {
    if (m_file) std::fclose(m_file);
}

bool JsonArrayStream::fail(const std::string& message) { return failAt(m_offset, message); }

bool JsonArrayStream::failAt(std::uint64_t offset, const std::string& message) {
    if (m_error.empty()) m_error = "byte " + std::to_string(offset) + ": " + message;
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
        m_before[0] = m_before[1];
        m_before[1] = c;
    }
    return c;
}

bool JsonArrayStream::skipSpace() {
    for (int c = peek(); c == ' ' || c == '\t' || c == '\n' || c == '\r'; c = peek()) get();
    return peek() >= 0;
}

bool JsonArrayStream::skipValue() {
    Input input{*this};
    DepthHandler handler;
    rapidjson::Reader reader;
    reader.Parse<detail::kJsonReadFlags | rapidjson::kParseStopWhenDoneFlag>(input, handler);
    if (!reader.HasParseError()) return true;
    if (input.tooLong) return failAt(input.stringStart, tooLargeMessage());
    const auto code = reader.GetParseErrorCode();
    const std::uint64_t at = reader.GetErrorOffset();
    if (handler.tooDeep) return failAt(at > 0 ? at - 1 : at, "JSON nested too deeply (more than " + std::to_string(detail::kMaxJsonDepth) + " levels)");
    if ((code == rapidjson::kParseErrorArrayMissCommaOrSquareBracket || code == rapidjson::kParseErrorObjectMissCommaOrCurlyBracket) &&
        at == m_offset && detail::isLeadingZero(m_before[0], m_before[1], peek()))
        return failAt(at - 1, "leading zero in number");
    if (peek() < 0 && at >= m_offset) return failAt(at, "unexpected end of file inside a value");
    if (code == rapidjson::kParseErrorStringMissQuotationMark && peek() == 0) return failAt(at, "NUL byte in string");
    // RapidJSON's iterative parser calls any bad first byte an empty document.
    return failAt(at, detail::jsonParseErrorMessage(code == rapidjson::kParseErrorDocumentEmpty ? rapidjson::kParseErrorValueInvalid : code));
}

bool JsonArrayStream::readKey(std::string& name, std::set<std::string>& seen) {
    if (peek() != '"') return fail("expected a string key in object");
    const std::uint64_t start = m_offset;
    NameHandler handler;
    handler.name = &name;
    Input input{*this};
    rapidjson::Reader reader;
    reader.Parse<detail::kJsonReadFlags | rapidjson::kParseStopWhenDoneFlag>(input, handler);
    if (reader.HasParseError()) {
        if (input.tooLong) return failAt(start, tooLargeMessage());
        if (peek() < 0) return fail("unexpected end of file inside a key");
        return failAt(reader.GetErrorOffset(), detail::jsonParseErrorMessage(reader.GetParseErrorCode()));
    }
    if (!seen.insert(name).second) {
        std::string quoted;
        appendJsonString(quoted, name);
        return failAt(start, "duplicate key " + quoted + " in one object");
    }
    return true;
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
    auto failed = [&] {
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
    m_inObject = true;
    for (bool firstMember = true;; firstMember = false) {
        if (!skipSpace()) return openFail("unexpected end of file");
        if (peek() == '}') return openFail("no \"" + std::string(key) + "\" key");
        if (!firstMember) {
            if (peek() != ',') return openFail("expected ',' or '}' in object");
            get();
            if (!skipSpace()) return openFail("unexpected end of file");
        }
        std::string name;
        if (!readKey(name, m_topKeys)) return failed();
        if (!skipSpace() || get() != ':') return openFail("expected ':' after object key");
        if (!skipSpace()) return openFail("unexpected end of file");
        if (name == key) {
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
        if (!skipValue()) return failed();
    }
}

bool JsonArrayStream::finishDocument() {
    m_done = true;
    if (m_inObject) {
        for (;;) {
            if (!skipSpace()) return fail("unexpected end of file inside the top-level object");
            const int c = get();
            if (c == '}') break;
            if (c != ',') {
                if (detail::isLeadingZero(m_before[0], c, peek())) return failAt(m_offset - 1, "leading zero in number");
                return failAt(m_offset - 1, "expected ',' or '}' in object");
            }
            std::string name;
            if (!skipSpace()) return fail("unexpected end of file inside the top-level object");
            if (!readKey(name, m_topKeys)) return false;
            if (!skipSpace() || get() != ':') return failAt(m_offset - 1, "expected ':' after object key");
            if (!skipSpace()) return fail("unexpected end of file inside the top-level object");
            if (!skipValue()) return false;
        }
    }
    if (skipSpace()) return fail("unexpected text after the JSON document");
    return false;  // a clean end: error() stays empty
}

// Where one JSON value ends, by its structure only (JsonValue::parse validates it next, so its text is
// read twice in memory but taken from the file once): brackets outside strings are counted, a string ends
// at an unescaped quote, anything else at the next delimiter.
bool JsonArrayStream::scanValue(bool keep) {
    m_element.clear();
    std::uint64_t length = 0;
    const std::uint64_t start = m_offset;
    const int first = peek();
    const bool scalar = first != '{' && first != '[' && first != '"';
    int depth = 0;
    bool inString = false, escaped = false;
    for (bool done = false; !done;) {
        if (peek() < 0) {
            if (scalar && length > 0) break;  // a number at the end of the file: the caller misses the ']'
            return fail("unexpected end of file inside a value");
        }
        const char* data = m_buffer.data();
        std::size_t i = m_pos;
        if (scalar) {
            for (; i < m_end && !done; ++i) {
                switch (data[i]) {
                case ',': case ']': case '}': case '"': case '[': case '{': case ' ': case '\t': case '\n': case '\r':
                    done = true;
                    --i;
                    break;
                default: break;
                }
            }
        } else {
            // Inside an object or array, 64 bytes at a time where they hold no backslash: the strings from
            // the quotes, then the brackets outside them. Elsewhere (a backslash, the value's first byte, a
            // buffer's last bytes) byte by byte.
            std::size_t byteByByteUntil = 0;
            while (i < m_end && !done) {
                if (i >= byteByByteUntil && depth > 0 && !escaped && m_end - i >= kBlock) {
                    const BlockMasks m = masksOf(data + i);
                    if (m.backslash == 0) {
                        const std::uint64_t inside = prefixXor(m.quote) ^ (inString ? ~std::uint64_t(0) : 0);
                        const std::uint64_t opens = m.open & ~inside, closes = m.close & ~inside;
                        // A few brackets per block: one by one (a popcount is a library call without -mpopcnt).
                        for (std::uint64_t brackets = opens | closes; brackets && !done; brackets &= brackets - 1) {
                            const int at = std::countr_zero(brackets);
                            if ((opens >> at) & 1) {
                                ++depth;
                            } else if (--depth == 0) {
                                i += static_cast<std::size_t>(at) + 1;
                                done = true;
                            }
                        }
                        if (done) break;
                        inString = (inside >> 63) & 1;
                        i += kBlock;
                        continue;
                    }
                    byteByByteUntil = i + kBlock;
                }
                const char c = data[i++];
                if (inString) {
                    if (escaped) escaped = false;
                    else if (c == '\\') escaped = true;
                    else if (c == '"') done = depth == 0, inString = false;
                } else if (c == '"') {
                    inString = true;
                } else if (c == '{' || c == '[') {
                    ++depth;
                } else if (c == '}' || c == ']') {
                    done = --depth == 0;
                }
            }
        }
        const std::size_t taken = i - m_pos;
        if (keep && m_element.size() + taken > kMaxJsonValueBytes) return failAt(start, tooLargeMessage());
        if (keep) m_element.append(data + m_pos, taken);
        // The last two bytes taken, for the leading-zero check after the value.
        if (taken >= 2) m_before[0] = static_cast<unsigned char>(data[i - 2]);
        else if (taken == 1) m_before[0] = m_before[1];
        if (taken >= 1) m_before[1] = static_cast<unsigned char>(data[i - 1]);
        length += taken;
        m_pos = i;
        m_offset += taken;
    }
    if (length == 0) return fail("invalid value");
    if (length == 1) m_before[0] = -1;
    return true;
}

bool JsonArrayStream::parseElement(JsonValue& element, std::uint64_t offset) {
    if (!scanValue(true)) return false;
    std::string error;
    std::size_t bad = 0;
    if (!JsonValue::parse(m_element, element, &error, &bad)) return failAt(offset + bad, error);
    return true;
}

bool JsonArrayStream::nextElementStart(std::uint64_t& offset) {
    m_element.clear();
    if (m_done) return false;
    if (m_singleObject) {
        if (!m_first) return finishDocument();  // the object was the one element
        m_first = false;
        offset = m_offset;
        return true;
    }
    bool closed = false;
    if (!nextItem(m_first, ']', "the array", closed)) return false;
    if (closed) return finishDocument();
    m_first = false;
    offset = m_offset;
    return true;
}

bool JsonArrayStream::nextItem(bool first, char close, const char* inside, bool& closed) {
    closed = false;
    if (!skipSpace()) return fail(std::string("unexpected end of file inside ") + inside);
    if (peek() == close) {
        get();
        closed = true;
        return true;
    }
    if (!first) {
        if (peek() != ',') {
            if (detail::isLeadingZero(m_before[0], m_before[1], peek())) return failAt(m_offset - 1, "leading zero in number");
            return fail(close == ']' ? "expected ',' or ']' between array elements" : "expected ',' or '}' in object");
        }
        get();
        if (!skipSpace()) return fail(std::string("unexpected end of file inside ") + inside);
    }
    return true;
}

bool JsonArrayStream::next(JsonValue& element, std::uint64_t& offset) {
    return nextElementStart(offset) && parseElement(element, offset);
}

bool JsonArrayStream::nextText(std::uint64_t& offset) { return nextElementStart(offset) && scanValue(true); }

bool JsonArrayStream::nextObject(const std::function<Member(std::string_view)>& choose,
                                 const std::function<bool(std::string_view, const JsonValue&, std::uint64_t)>& take) {
    std::uint64_t offset = 0;
    return nextElementStart(offset) && readMembers(choose, take);
}

bool JsonArrayStream::readMembers(const std::function<Member(std::string_view)>& choose,
                                  const std::function<bool(std::string_view, const JsonValue&, std::uint64_t)>& take) {
    if (peek() != '{') return fail("expected a JSON object");
    get();
    std::set<std::string> keys;
    JsonValue value;  // its storage is reused from one value to the next
    auto handOver = [&](const std::string& key, std::uint64_t at) {
        if (!parseElement(value, at)) return false;
        if (take(key, value, at)) return true;
        m_done = true;  // the caller's error
        return false;
    };
    for (bool firstMember = true;; firstMember = false) {
        bool closed = false;
        if (!nextItem(firstMember, '}', "an object", closed)) return false;
        if (closed) return true;
        std::string key;
        if (!readKey(key, keys)) return false;
        if (!skipSpace() || get() != ':') return failAt(m_offset - 1, "expected ':' after object key");
        if (!skipSpace()) return fail("unexpected end of file inside an object");
        const Member what = choose(key);
        if (what == Member::Skip) {
            if (!skipValue()) return false;
        } else if (what == Member::SkipUnchecked) {
            if (!scanValue(false)) return false;
        } else if (what == Member::Parse) {
            if (!handOver(key, m_offset)) return false;
        } else {
            if (peek() != '[') return fail("\"" + key + "\" is not an array");
            get();
            for (bool firstElement = true;; firstElement = false) {
                bool closed = false;
                if (!nextItem(firstElement, ']', "an array", closed)) return false;
                if (closed) break;
                if (what == Member::StreamText) {
                    static const JsonValue unparsed;
                    const std::uint64_t at = m_offset;
                    if (!scanValue(true)) return false;
                    if (take(key, unparsed, at)) continue;
                    m_done = true;  // the caller's error
                    return false;
                }
                if (!handOver(key, m_offset)) return false;
            }
        }
    }
}

} // namespace tracelight
