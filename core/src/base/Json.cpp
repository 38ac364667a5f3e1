#include "tracelight/base/Json.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "base/JsonRapid.h"

namespace tracelight {

namespace detail {

// One document's memory: values, keys and texts are bump-allocated in chunks and freed together.
class JsonArena {
public:
    JsonArena() = default;
    JsonArena(const JsonArena&) = delete;
    JsonArena& operator=(const JsonArena&) = delete;
    ~JsonArena() { freeAll(); }

    void* allocate(std::size_t bytes, std::size_t align) {
        if (bytes >= kLargeBlock) {  // its own chunk, so that the current chunk's space is not wasted
            char* p = new char[bytes];
            m_chunks.push_back({p, bytes});
            return p;
        }
        std::size_t pad = padding(align);
        if (!m_cur || pad + bytes > m_left) {
            newChunk(bytes + align);
            pad = padding(align);
        }
        char* p = m_cur + pad;
        m_cur = p + bytes;
        m_left -= pad + bytes;
        return p;
    }

    const char* copy(const char* text, std::size_t length) {
        if (length == 0) return nullptr;
        char* p = static_cast<char*>(allocate(length, 1));
        std::memcpy(p, text, length);
        return p;
    }

    // Forgets everything; keeps a small first chunk for the next document.
    void reset() {
        if (m_chunks.size() == 1 && m_chunks[0].size <= kFirstChunk) {
            m_cur = m_chunks[0].data;
            m_left = m_chunks[0].size;
            return;
        }
        freeAll();
    }

private:
    static constexpr std::size_t kFirstChunk = 4 << 10;
    static constexpr std::size_t kMaxChunk = 4 << 20;
    static constexpr std::size_t kLargeBlock = 1 << 20;

    struct Chunk {
        char* data;
        std::size_t size;
    };

    std::size_t padding(std::size_t align) const {
        return (align - (reinterpret_cast<std::uintptr_t>(m_cur) & (align - 1))) & (align - 1);
    }

    void newChunk(std::size_t atLeast) {
        // Chunks grow with the document (so a small one costs little and a large one few allocations),
        // and stay below kMaxChunk so that the unused end of the last one is a small part of the whole.
        const std::size_t size = std::max(atLeast, std::clamp(m_total, kFirstChunk, kMaxChunk));
        m_chunks.push_back({new char[size], size});
        m_cur = m_chunks.back().data;
        m_left = size;
        m_total += size;
    }

    void freeAll() {
        for (const Chunk& c : m_chunks) delete[] c.data;
        m_chunks.clear();
        m_cur = nullptr;
        m_left = 0;
        m_total = 0;
    }

    std::vector<Chunk> m_chunks;
    char* m_cur = nullptr;
    std::size_t m_left = 0;
    std::size_t m_total = 0;
};

// A value while its document is being built (the finished ones become JsonValue in the arena).
struct PendingValue {
    const void* data;
    std::uint32_t size;
    JsonValue::Type type;
    bool flag;
};

struct JsonStorage {
    JsonArena arena;
    const void* data = nullptr;  // the top value's payload
    // Scratch of the builder, kept to be reused by the next parse into the same value.
    std::vector<PendingValue> values;
    std::vector<std::string_view> keys;
    std::vector<std::uint32_t> counts;

    void reset() {
        arena.reset();
        data = nullptr;
        if (values.capacity() > (1u << 12)) std::vector<PendingValue>().swap(values);
        if (keys.capacity() > (1u << 12)) std::vector<std::string_view>().swap(keys);
        if (counts.capacity() > (1u << 12)) std::vector<std::uint32_t>().swap(counts);
        values.clear();
        keys.clear();
        counts.clear();
    }
};

// RapidJSON's input stream over a string_view (RapidJSON's own StringStream needs a terminating NUL).
struct ViewStream {
    typedef char Ch;
    explicit ViewStream(std::string_view text) : begin(text.data()), cur(text.data()), end(text.data() + text.size()) {}
    Ch Peek() const { return cur < end ? *cur : '\0'; }
    Ch Take() { return cur < end ? *cur++ : '\0'; }
    std::size_t Tell() const { return static_cast<std::size_t>(cur - begin); }
    Ch* PutBegin() { return nullptr; }
    void Put(Ch) {}
    void Flush() {}
    std::size_t PutEnd(Ch*) { return 0; }
    const char* begin;
    const char* cur;
    const char* end;
};

namespace {

// The offset of the opening quote of the string whose closing quote is at `close`.
std::size_t openingQuote(std::string_view text, std::size_t close) {
    for (std::size_t q = close; q-- > 0;) {
        if (text[q] != '"') continue;
        std::size_t slashes = 0;
        while (q > slashes && text[q - 1 - slashes] == '\\') ++slashes;
        if (slashes % 2 == 0) return q;
    }
    return 0;
}

int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

unsigned hex4(std::string_view text, std::size_t at) {
    unsigned cp = 0;
    for (std::size_t k = 0; k < 4 && at + k < text.size(); ++k) cp = cp * 16 + static_cast<unsigned>(std::max(0, hexValue(text[at + k])));
    return cp;
}

// The offset of the backslash of a lone low surrogate escape (\uDC00-\uDFFF) in the raw string [open, close].
std::size_t loneLowSurrogate(std::string_view text, std::size_t open, std::size_t close) {
    for (std::size_t i = open + 1; i < close;) {
        if (text[i] != '\\') {
            ++i;
            continue;
        }
        if (i + 1 < close && text[i + 1] == 'u') {
            const unsigned cp = hex4(text, i + 2);
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                i += 12;  // a pair (RapidJSON has checked that the low half follows)
                continue;
            }
            if (cp >= 0xDC00 && cp <= 0xDFFF) return i;
            i += 6;
        } else {
            i += 2;
        }
    }
    return open;
}

} // namespace

// The first pass over a large text: the number of elements or members of each array and object, in
// the order they open, so that the second pass can put each child straight into its place.
class JsonCounter : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, JsonCounter> {
public:
    JsonCounter(std::vector<std::uint32_t>& counts, const ViewStream& stream) : m_counts(counts), m_stream(stream) {}
    bool Default() { return true; }
    bool StartObject() { return enter(); }
    bool StartArray() { return enter(); }
    bool EndObject(rapidjson::SizeType count) { return leave(count); }
    bool EndArray(rapidjson::SizeType count) { return leave(count); }
    bool tooDeep() const { return m_tooDeep; }

private:
    bool enter() {
        if (m_open.size() >= static_cast<std::size_t>(kMaxJsonDepth)) return !(m_tooDeep = true);
        m_open.push_back(m_counts.size());
        m_counts.push_back(0);
        return true;
    }
    bool leave(rapidjson::SizeType count) {
        m_counts[m_open.back()] = count;
        m_open.pop_back();
        return true;
    }
    std::vector<std::uint32_t>& m_counts;
    std::vector<std::size_t> m_open;
    const ViewStream& m_stream;
    bool m_tooDeep = false;
};

// Finds where the index-th key of the ordinal-th container (in the order containers open) ends.
class JsonKeyLocator : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, JsonKeyLocator> {
public:
    JsonKeyLocator(std::size_t ordinal, std::size_t index, const ViewStream& stream)
        : m_ordinal(ordinal), m_index(index), m_stream(stream) {}
    bool Default() { return true; }
    bool StartObject() { return enter(); }
    bool StartArray() { return enter(); }
    bool EndObject(rapidjson::SizeType) { return --m_depth, true; }
    bool EndArray(rapidjson::SizeType) { return --m_depth, true; }
    bool Key(const char*, rapidjson::SizeType, bool) {
        if (m_depth != m_targetDepth || m_keys++ != m_index) return true;
        m_found = m_stream.Tell();
        return false;
    }
    std::size_t found() const { return m_found; }

private:
    bool enter() {
        ++m_depth;
        if (m_seen++ == m_ordinal) m_targetDepth = m_depth;
        return true;
    }
    std::size_t m_ordinal, m_index, m_seen = 0, m_keys = 0, m_found = 0;
    int m_depth = 0, m_targetDepth = -1;
    const ViewStream& m_stream;
};

// RapidJSON's SAX handler that builds a JsonValue tree in the arena, checking what RapidJSON does not:
// duplicate keys, lone low surrogates and the nesting depth.
//
// Small texts are built in one pass: children wait on a stack and are copied into the arena when their
// container closes. For large texts that copy would double the memory, so a first pass (JsonCounter)
// counts the children of every container and this pass puts each child straight into its place.
class JsonDomBuilder {
public:
    JsonDomBuilder(JsonStorage& storage, std::string_view text, const ViewStream& stream, bool sized)
        : m_arena(storage.arena), m_values(storage.values), m_keys(storage.keys), m_counts(storage.counts), m_text(text),
          m_stream(stream), m_sized(sized) {}

    bool Null() { return emit(JsonValue::Type::Null, nullptr, 0, false); }
    bool Bool(bool b) { return emit(JsonValue::Type::Bool, nullptr, 0, b); }
    // With kParseNumbersAsStringsFlag every number arrives as RawNumber; these are never called.
    bool Int(int i) { return number(std::to_string(i)); }
    bool Uint(unsigned i) { return number(std::to_string(i)); }
    bool Int64(std::int64_t i) { return number(std::to_string(i)); }
    bool Uint64(std::uint64_t i) { return number(std::to_string(i)); }
    bool Double(double d) {
        char buf[32];
        const auto r = std::to_chars(buf, buf + sizeof buf, d);
        return number(std::string(buf, r.ptr));
    }
    bool RawNumber(const char* text, rapidjson::SizeType length, bool) {
        return emit(JsonValue::Type::Number, m_arena.copy(text, length), length, false);
    }
    bool String(const char* text, rapidjson::SizeType length, bool) {
        if (!checkSurrogates(text, length)) return false;
        return emit(JsonValue::Type::String, m_arena.copy(text, length), length, false);
    }
    bool Key(const char* text, rapidjson::SizeType length, bool) {
        if (!checkSurrogates(text, length)) return false;
        const std::string_view key(m_arena.copy(text, length), length);
        if (!m_sized) {
            m_keys.push_back(key);
        } else {
            Open& o = m_open.back();
            new (&static_cast<JsonMember*>(o.block)[o.filled]) JsonMember{key, JsonValue()};
        }
        return true;
    }
    bool StartObject() { return enter(true); }
    bool StartArray() { return enter(false); }

    bool EndArray(rapidjson::SizeType count) {
        if (m_sized) return emit(JsonValue::Type::Array, leave(), count, false);
        auto* items = count ? static_cast<JsonValue*>(m_arena.allocate(count * sizeof(JsonValue), alignof(JsonValue))) : nullptr;
        const std::size_t first = m_values.size() - count;
        for (std::size_t i = 0; i < count; ++i) {
            const PendingValue& v = m_values[first + i];
            new (&items[i]) JsonValue(v.type, v.data, v.size, v.flag);
        }
        m_values.resize(first);
        leave();
        return emit(JsonValue::Type::Array, items, count, false);
    }

    bool EndObject(rapidjson::SizeType count) {
        if (m_sized) {
            auto* members = static_cast<JsonMember*>(m_open.back().block);
            if (!checkDuplicates(count, [&](std::size_t i) { return std::string_view(members[i].first); })) return false;
            return emit(JsonValue::Type::Object, leave(), count, false);
        }
        const std::size_t firstKey = m_keys.size() - count, firstValue = m_values.size() - count;
        if (!checkDuplicates(count, [&](std::size_t i) { return m_keys[firstKey + i]; })) return false;
        auto* members = count ? static_cast<JsonMember*>(m_arena.allocate(count * sizeof(JsonMember), alignof(JsonMember))) : nullptr;
        for (std::size_t i = 0; i < count; ++i) {
            const PendingValue& v = m_values[firstValue + i];
            new (&members[i]) JsonMember{m_keys[firstKey + i], JsonValue(v.type, v.data, v.size, v.flag)};
        }
        m_keys.resize(firstKey);
        m_values.resize(firstValue);
        leave();
        return emit(JsonValue::Type::Object, members, count, false);
    }

    bool failed() const { return !m_error.empty(); }
    const std::string& error() const { return m_error; }
    std::size_t errorOffset() const { return m_errorOffset; }
    // A duplicate key: its container's ordinal and the key's index in it (the offset is found afterwards).
    bool duplicateFound() const { return m_dupIndex != kNone; }
    std::size_t duplicateOrdinal() const { return m_dupOrdinal; }
    std::size_t duplicateIndex() const { return m_dupIndex; }

    // The finished document's top value.
    const PendingValue& top() const { return m_sized ? m_top : m_values.back(); }

    // Copies v's payload (and everything under it) into arena.
    static const void* clone(JsonArena& arena, const JsonValue& v) {
        switch (v.m_type) {
        case JsonValue::Type::Number:
        case JsonValue::Type::String: return arena.copy(static_cast<const char*>(v.payload()), v.m_size);
        case JsonValue::Type::Array: {
            if (v.m_size == 0) return nullptr;
            auto* items = static_cast<JsonValue*>(arena.allocate(v.m_size * sizeof(JsonValue), alignof(JsonValue)));
            const auto source = v.array();
            for (std::size_t i = 0; i < source.size(); ++i) {
                const JsonValue& c = source[i];
                new (&items[i]) JsonValue(c.m_type, clone(arena, c), c.m_size, c.m_bool);
            }
            return items;
        }
        case JsonValue::Type::Object: {
            if (v.m_size == 0) return nullptr;
            auto* members = static_cast<JsonMember*>(arena.allocate(v.m_size * sizeof(JsonMember), alignof(JsonMember)));
            const auto source = v.object();
            for (std::size_t i = 0; i < source.size(); ++i) {
                const JsonValue& c = source[i].second;
                const char* key = arena.copy(source[i].first.data(), source[i].first.size());
                new (&members[i]) JsonMember{std::string_view(key, source[i].first.size()),
                                             JsonValue(c.m_type, clone(arena, c), c.m_size, c.m_bool)};
            }
            return members;
        }
        default: return nullptr;
        }
    }

private:
    static constexpr std::size_t kNone = ~std::size_t{0};

    struct Open {
        void* block;         // sized: the children's place in the arena
        std::size_t filled;  // sized: children placed so far
        std::size_t ordinal;
        bool isObject;
    };

    bool emit(JsonValue::Type type, const void* data, std::size_t size, bool flag) {
        if (!m_sized) {
            m_values.push_back({data, static_cast<std::uint32_t>(size), type, flag});
            return true;
        }
        if (m_open.empty()) {
            m_top = {data, static_cast<std::uint32_t>(size), type, flag};
            return true;
        }
        Open& o = m_open.back();
        JsonValue& slot = o.isObject ? static_cast<JsonMember*>(o.block)[o.filled].second
                                     : *new (&static_cast<JsonValue*>(o.block)[o.filled]) JsonValue();
        slot.m_type = type;
        slot.m_data = data;
        slot.m_size = static_cast<std::uint32_t>(size);
        slot.m_bool = flag;
        ++o.filled;
        return true;
    }

    bool number(const std::string& text) { return RawNumber(text.data(), static_cast<rapidjson::SizeType>(text.size()), true); }

    bool enter(bool isObject) {
        if (m_open.size() >= static_cast<std::size_t>(kMaxJsonDepth))
            return fail("JSON nested too deeply (more than " + std::to_string(kMaxJsonDepth) + " levels)", m_stream.Tell() - 1);
        Open o{nullptr, 0, m_ordinal++, isObject};
        if (m_sized) {
            const std::size_t n = m_counts[o.ordinal];
            const std::size_t bytes = n * (isObject ? sizeof(JsonMember) : sizeof(JsonValue));
            o.block = n ? m_arena.allocate(bytes, alignof(JsonMember)) : nullptr;
        }
        m_open.push_back(o);
        return true;
    }

    void* leave() {
        void* block = m_open.back().block;
        m_open.pop_back();
        return block;
    }

    bool fail(std::string message, std::size_t offset) {
        m_error = std::move(message);
        m_errorOffset = offset;
        return false;
    }

    // RapidJSON checks that a high surrogate escape is followed by a low one, but turns a lone low
    // surrogate (\uDC00) into the invalid UTF-8 bytes ED B0..BF xx; the input itself is validated UTF-8,
    // so such bytes in a decoded string can only come from that escape.
    bool checkSurrogates(const char* text, std::size_t length) {
        for (const char* p = text; (p = static_cast<const char*>(std::memchr(p, '\xED', text + length - p)));) {
            ++p;
            if (p < text + length && static_cast<unsigned char>(*p) >= 0xA0) {
                const std::size_t close = m_stream.Tell() - 1;
                return fail("lone UTF-16 surrogate in \\u escape", loneLowSurrogate(m_text, openingQuote(m_text, close), close));
            }
        }
        return true;
    }

    // Refuses an object in which a key repeats: records the first key (in text order) that repeats an
    // earlier one. RapidJSON does not check this; RFC 8259 leaves such objects' meaning undefined.
    template <typename KeyAt>
    bool checkDuplicates(std::size_t count, KeyAt key) {
        std::size_t dup = kNone;
        if (count <= 16) {
            for (std::size_t j = 1; j < count && dup == kNone; ++j)
                for (std::size_t i = 0; i < j; ++i)
                    if (key(i) == key(j)) {
                        dup = j;
                        break;
                    }
        } else {
            m_order.resize(count);
            for (std::size_t i = 0; i < count; ++i) m_order[i] = static_cast<std::uint32_t>(i);
            std::sort(m_order.begin(), m_order.end(), [&](std::uint32_t a, std::uint32_t b) {
                const auto ka = key(a), kb = key(b);
                return ka != kb ? ka < kb : a < b;
            });
            for (std::size_t i = 1; i < count; ++i)  // every later occurrence of a key: the first of them in text order
                if (key(m_order[i]) == key(m_order[i - 1])) dup = std::min<std::size_t>(dup, m_order[i]);
            std::vector<std::uint32_t>().swap(m_order);
        }
        if (dup == kNone) return true;
        std::string quoted;
        appendJsonString(quoted, key(dup));
        m_dupOrdinal = m_open.back().ordinal;
        m_dupIndex = dup;
        return fail("duplicate key " + quoted + " in one object", 0);
    }

    JsonArena& m_arena;
    std::vector<PendingValue>& m_values;
    std::vector<std::string_view>& m_keys;
    std::vector<std::uint32_t>& m_counts;
    std::vector<std::uint32_t> m_order;
    std::vector<Open> m_open;
    std::string_view m_text;
    const ViewStream& m_stream;
    const bool m_sized;
    PendingValue m_top{};
    std::size_t m_ordinal = 0;
    std::size_t m_dupOrdinal = 0, m_dupIndex = kNone;
    std::string m_error;
    std::size_t m_errorOffset = 0;
};

} // namespace detail

using detail::JsonStorage;

// The DOM's cost per value, which keeps its memory proportional to the text (see Json.h).
static_assert(sizeof(JsonValue) == 16, "a JsonValue is 16 bytes");
static_assert(sizeof(JsonMember) == 32, "a member is its key view and its value");

JsonValue::JsonValue(const JsonValue& other) { copyFrom(other); }

JsonValue::JsonValue(JsonValue&& other) noexcept
    : m_data(other.m_data), m_size(other.m_size), m_type(other.m_type), m_bool(other.m_bool), m_owner(other.m_owner) {
    other.m_data = nullptr;
    other.m_owner = false;
    other.m_type = Type::Null;
    other.m_size = 0;
}

JsonValue& JsonValue::operator=(const JsonValue& other) {
    if (this != &other) {
        JsonValue copy(other);
        *this = std::move(copy);
    }
    return *this;
}

JsonValue& JsonValue::operator=(JsonValue&& other) noexcept {
    if (this != &other) {
        release();
        m_data = other.m_data;
        m_size = other.m_size;
        m_type = other.m_type;
        m_bool = other.m_bool;
        m_owner = other.m_owner;
        other.m_data = nullptr;
        other.m_owner = false;
        other.m_type = Type::Null;
        other.m_size = 0;
    }
    return *this;
}

JsonValue::~JsonValue() { release(); }

void JsonValue::release() {
    if (m_owner) delete static_cast<const JsonStorage*>(m_data);
    m_data = nullptr;
    m_owner = false;
    m_type = Type::Null;
    m_size = 0;
    m_bool = false;
}

void JsonValue::copyFrom(const JsonValue& other) {
    m_type = other.m_type;
    m_bool = other.m_bool;
    m_size = other.m_size;
    m_owner = false;
    m_data = nullptr;
    if (m_type == Type::Null || m_type == Type::Bool) return;
    auto* storage = new JsonStorage;
    storage->data = detail::JsonDomBuilder::clone(storage->arena, other);
    m_data = storage;
    m_owner = true;
}

const void* JsonValue::payload() const { return m_owner ? static_cast<const JsonStorage*>(m_data)->data : m_data; }

std::string_view JsonValue::text() const {
    if (m_type != Type::String && m_type != Type::Number) return {};
    return {static_cast<const char*>(payload()), m_size};
}

double JsonValue::number() const {
    if (m_type != Type::Number) return 0;
    const std::string_view t = text();
    double value = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), value);
    if (r.ec == std::errc::result_out_of_range) return std::strtod(std::string(t).c_str(), nullptr);  // ±HUGE_VAL or 0
    return value;
}

const JsonValue* JsonValue::find(std::string_view key) const {
    for (const auto& member : object())
        if (member.first == key) return &member.second;
    return nullptr;
}

bool JsonValue::parse(std::string_view text, JsonValue& out, std::string* error, std::size_t* errorOffset) {
    JsonStorage* storage = nullptr;
    if (out.m_owner) {
        storage = static_cast<JsonStorage*>(const_cast<void*>(out.m_data));
        storage->reset();
    } else {
        out.release();
        storage = new JsonStorage;
        out.m_data = storage;
        out.m_owner = true;
    }
    out.m_type = Type::Null;
    out.m_size = 0;
    out.m_bool = false;

    auto fail = [&](std::string message, std::size_t offset) {
        storage->reset();
        if (error) *error = std::move(message);
        if (errorOffset) *errorOffset = offset;
        return false;
    };
    if (text.size() > kMaxJsonValueBytes)
        return fail("a JSON text of " + std::to_string(text.size()) + " bytes is larger than the limit of " +
                        std::to_string(kMaxJsonValueBytes >> 20) + " MiB",
                    0);

    // Texts above this size are read twice (counting, then building) so that their DOM is built in place.
    constexpr std::size_t kCountFirstAbove = 64 << 10;
    const bool sized = text.size() > kCountFirstAbove;
    auto readError = [&](const rapidjson::Reader& reader) {
        const auto code = reader.GetParseErrorCode();
        const std::size_t at = reader.GetErrorOffset();
        if ((code == rapidjson::kParseErrorDocumentRootNotSingular || code == rapidjson::kParseErrorArrayMissCommaOrSquareBracket ||
             code == rapidjson::kParseErrorObjectMissCommaOrCurlyBracket) &&
            at >= 1 && at < text.size() &&
            detail::isLeadingZero(at >= 2 ? static_cast<unsigned char>(text[at - 2]) : -1, static_cast<unsigned char>(text[at - 1]),
                                  static_cast<unsigned char>(text[at])))
            return fail("leading zero in number", at - 1);
        // RapidJSON's iterative parser calls any bad first byte an empty document.
        if (code == rapidjson::kParseErrorDocumentEmpty && at < text.size()) return fail("invalid value", at);
        return fail(detail::jsonParseErrorMessage(code), at);
    };
    if (sized) {
        detail::ViewStream stream(text);
        detail::JsonCounter counter(storage->counts, stream);
        rapidjson::Reader reader;
        reader.Parse<detail::kJsonReadFlags>(stream, counter);
        if (counter.tooDeep())
            return fail("JSON nested too deeply (more than " + std::to_string(detail::kMaxJsonDepth) + " levels)", reader.GetErrorOffset() - 1);
        if (reader.HasParseError()) return readError(reader);
    }

    detail::ViewStream stream(text);
    detail::JsonDomBuilder builder(*storage, text, stream, sized);
    rapidjson::Reader reader;
    reader.Parse<detail::kJsonReadFlags>(stream, builder);
    if (reader.HasParseError()) {
        if (reader.GetParseErrorCode() == rapidjson::kParseErrorTermination && builder.duplicateFound()) {
            // Where the repeated key is: read again up to it (only on this error path).
            detail::ViewStream again(text);
            detail::JsonKeyLocator locator(builder.duplicateOrdinal(), builder.duplicateIndex(), again);
            rapidjson::Reader locate;
            locate.Parse<detail::kJsonReadFlags>(again, locator);
            return fail(builder.error(), locator.found() ? detail::openingQuote(text, locator.found() - 1) : 0);
        }
        if (reader.GetParseErrorCode() == rapidjson::kParseErrorTermination && builder.failed())
            return fail(builder.error(), builder.errorOffset());
        return readError(reader);
    }
    // RapidJSON stops at a NUL byte as if the text ended there.
    if (stream.Tell() != text.size()) return fail("unexpected text after the JSON value", stream.Tell());

    const detail::PendingValue& top = builder.top();
    out.m_type = top.type;
    out.m_size = top.size;
    out.m_bool = top.flag;
    storage->data = top.data;
    storage->values.clear();
    return true;
}

// ---------------------------------------------------------------------------------------------------
// Writing

namespace {

// RapidJSON's output stream appending to a std::string.
struct StringOut {
    typedef char Ch;
    std::string* out;
    void Put(char c) { out->push_back(c); }
    void Flush() {}
};

// The length of the well-formed UTF-8 sequence at s[i]; 0 when there is none, with `skip` set to the
// length of the maximal ill-formed subpart (the bytes that one U+FFFD replaces).
std::size_t utf8Sequence(std::string_view s, std::size_t i, std::size_t& skip) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) return 1;
    std::size_t need = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte (Unicode Table 3-7)
    if (c >= 0xC2 && c <= 0xDF) need = 1;
    else if (c == 0xE0) need = 2, lo = 0xA0;
    else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) need = 2;
    else if (c == 0xED) need = 2, hi = 0x9F;  // no UTF-16 surrogates
    else if (c == 0xF0) need = 3, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) need = 3;
    else if (c == 0xF4) need = 3, hi = 0x8F;  // nothing above U+10FFFF
    else {
        skip = 1;  // a continuation byte, C0, C1 or F5..FF
        return 0;
    }
    for (std::size_t k = 1; k <= need; ++k) {
        if (i + k >= s.size()) {
            skip = k;
            return 0;
        }
        const auto d = static_cast<unsigned char>(s[i + k]);
        if (d < lo || d > hi) {
            skip = k;
            return 0;
        }
        lo = 0x80;
        hi = 0xBF;
    }
    return need + 1;
}

// text itself when it is valid UTF-8; otherwise a copy in scratch where each maximal ill-formed
// subsequence (a Latin-1 byte, a truncated sequence, an encoded surrogate, ...) is replaced by U+FFFD,
// so that whatever bytes a trace held, the JSON we write is valid UTF-8.
std::string_view validUtf8(std::string_view text, std::string& scratch) {
    std::size_t i = 0, skip = 0;
    // ASCII, nearly all text, first: 8 bytes at a time while no byte has its top bit set.
    for (std::uint64_t word = 0; i + 8 <= text.size(); i += 8) {
        std::memcpy(&word, text.data() + i, 8);
        if (word & 0x8080808080808080u) break;
    }
    while (i < text.size() && static_cast<unsigned char>(text[i]) < 0x80) ++i;
    while (i < text.size()) {
        const std::size_t n = utf8Sequence(text, i, skip);
        if (n == 0) break;
        i += n;
    }
    if (i == text.size()) return text;
    scratch.assign(text.substr(0, i));
    while (i < text.size()) {
        if (const std::size_t n = utf8Sequence(text, i, skip)) {
            scratch.append(text.substr(i, n));
            i += n;
        } else {
            scratch += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
            i += skip;
        }
    }
    return scratch;
}

} // namespace

struct JsonWriter::Impl {
    explicit Impl(bool pretty) : isPretty(pretty), plain(stream), fancy(stream) { fancy.SetIndent(' ', 2); }

    template <typename F>
    void with(F&& f) {
        if (isPretty) f(fancy);
        else f(plain);
    }

    // Written to sink once past this at the end of an object or array (with a sink).
    static constexpr std::size_t kChunk = 64 * 1024;

    ~Impl() {
        if (sink) writeOut();  // what a caller did not flush (its failure goes unreported then)
    }
    void written() {
        if (sink && out.size() >= kChunk) writeOut();
    }
    // Once a write failed nothing more is written: the output would have a gap in it.
    void writeOut() {
        if (!failed && !out.empty() && std::fwrite(out.data(), 1, out.size(), sink) != out.size()) failed = true;
        out.clear();
    }

    std::string out;
    std::string scratch;
    std::FILE* sink = nullptr;
    bool failed = false;
    bool isPretty;
    StringOut stream{&out};
    rapidjson::Writer<StringOut> plain;
    rapidjson::PrettyWriter<StringOut> fancy;
};

JsonWriter::JsonWriter(bool pretty) : m_impl(std::make_unique<Impl>(pretty)) {}
JsonWriter::JsonWriter(std::FILE* out, bool pretty) : m_impl(std::make_unique<Impl>(pretty)) { m_impl->sink = out; }
JsonWriter::~JsonWriter() = default;

bool JsonWriter::flush() {
    if (!m_impl->sink) return true;
    m_impl->writeOut();
    if (std::fflush(m_impl->sink) != 0) m_impl->failed = true;
    return !m_impl->failed;
}
JsonWriter::JsonWriter(JsonWriter&&) noexcept = default;
JsonWriter& JsonWriter::operator=(JsonWriter&&) noexcept = default;

const std::string& JsonWriter::text() const { return m_impl->out; }

JsonWriter& JsonWriter::beginObject() {
    m_impl->with([](auto& w) { w.StartObject(); });
    return *this;
}

JsonWriter& JsonWriter::endObject() {
    m_impl->with([](auto& w) { w.EndObject(); });
    m_impl->written();
    return *this;
}

JsonWriter& JsonWriter::beginArray() {
    m_impl->with([](auto& w) { w.StartArray(); });
    return *this;
}

JsonWriter& JsonWriter::endArray() {
    m_impl->with([](auto& w) { w.EndArray(); });
    m_impl->written();
    return *this;
}

namespace {
// A string JSON writes as it is: no byte below 0x20, no quote, no backslash (RapidJSON escapes only those).
bool needsNoEscape(std::string_view text) {
    for (const char c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\') return false;
    return true;
}
} // namespace

JsonWriter& JsonWriter::key(std::string_view name) { return value(name); }  // RapidJSON's Key is its String

namespace {
// Printable ASCII (and DEL) without a quote or backslash, nearly every string written: valid UTF-8 that needs
// no escape, checked 8 bytes at a time (a byte below 0x20, 0x80 or above, or equal to '"' or '\\' in a word).
bool plainAscii(std::string_view text) {
    constexpr std::uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    const auto hasZeroByte = [](std::uint64_t w) { return (w - ones) & ~w & highs; };
    std::size_t i = 0;
    for (std::uint64_t w = 0; i + 8 <= text.size(); i += 8) {
        std::memcpy(&w, text.data() + i, 8);
        if ((w & highs) | ((w - 0x20 * ones) & ~w & highs) | hasZeroByte(w ^ ('"' * ones)) | hasZeroByte(w ^ ('\\' * ones))) return false;
    }
    for (; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return false;
    }
    return true;
}
} // namespace

JsonWriter& JsonWriter::value(std::string_view text) {
    const bool plain = plainAscii(text);
    const std::string_view valid = plain ? text : validUtf8(text, m_impl->scratch);
    if (!plain && !needsNoEscape(valid)) {
        m_impl->with([&](auto& w) { w.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size())); });
        return *this;
    }
    // The writer puts what comes before a string (a comma or colon, a pretty indent), then the string goes
    // on whole: RapidJSON would put it byte by byte, looking up each byte's escape.
    m_impl->with([](auto& w) { w.RawValue("", 0, rapidjson::kStringType); });
    std::string& out = m_impl->out;
    out += '"';
    out.append(valid);
    out += '"';
    return *this;
}

JsonWriter& JsonWriter::value(double number) {
    if (!std::isfinite(number)) return null();  // JSON has no NaN or infinity
    char buf[32];
    // std::to_chars writes the shortest text that reads back to the same double.
    const auto result = std::to_chars(buf, buf + sizeof buf, number);
    m_impl->with([&](auto& w) { w.RawValue(buf, static_cast<std::size_t>(result.ptr - buf), rapidjson::kNumberType); });
    return *this;
}

JsonWriter& JsonWriter::value(std::int64_t number) {
    m_impl->with([&](auto& w) { w.Int64(number); });
    return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t number) {
    m_impl->with([&](auto& w) { w.Uint64(number); });
    return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
    m_impl->with([&](auto& w) { w.Bool(flag); });
    return *this;
}

JsonWriter& JsonWriter::null() {
    m_impl->with([](auto& w) { w.Null(); });
    return *this;
}

void appendJsonString(std::string& out, std::string_view text) {
    std::string scratch;
    const std::string_view valid = validUtf8(text, scratch);
    StringOut stream{&out};
    rapidjson::Writer<StringOut> writer(stream);
    writer.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
}

} // namespace tracelight
