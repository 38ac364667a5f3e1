#pragma once
// JSON in both directions on one library, RapidJSON (private to core; nothing here includes it).
//
// Reader: strict RFC 8259. Refused, with the byte offset of the problem: leading zeros, lone or invalid
// UTF-16 surrogates in \u escapes, invalid UTF-8, control characters in strings, trailing text after the
// value, duplicate keys in one object, nesting deeper than 256, and a text larger than kMaxJsonValueBytes.
// The DOM is compact (16 bytes a value, strings and number literals copied once into one arena per
// document), so its memory is proportional to the text it was parsed from.
//
// Writer: always valid UTF-8 JSON. Invalid UTF-8 in a string or key is replaced by U+FFFD (one per maximal
// ill-formed subsequence, as Unicode recommends), control characters are escaped, non-finite doubles are
// written as null, and doubles are written in the shortest form that reads back to the same value.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

namespace tracelight {

// The largest JSON text read as one value: a JSON Lines line, one element of a streamed array, a document
// parsed whole. Larger input is refused with an error instead of costing memory without bound.
inline constexpr std::size_t kMaxJsonValueBytes = std::size_t{64} << 20;  // 64 MiB

// A contiguous read-only range (the elements of an array, the members of an object).
template <typename T>
class JsonRange {
public:
    JsonRange() = default;
    JsonRange(const T* first, std::size_t count) : m_first(first), m_count(count) {}
    const T* begin() const { return m_first; }
    const T* end() const { return m_first + m_count; }
    std::size_t size() const { return m_count; }
    bool empty() const { return m_count == 0; }
    const T& operator[](std::size_t i) const { return m_first[i]; }
    const T& front() const { return m_first[0]; }
    const T& back() const { return m_first[m_count - 1]; }

private:
    const T* m_first = nullptr;
    std::size_t m_count = 0;
};

struct JsonMember;
namespace detail {
class JsonDomBuilder;
}

class JsonValue {
public:
    enum class Type : std::uint8_t { Null, Bool, Number, String, Array, Object };

    JsonValue() = default;
    JsonValue(const JsonValue& other);  // a deep copy, which owns its own storage
    JsonValue(JsonValue&& other) noexcept;
    JsonValue& operator=(const JsonValue& other);
    JsonValue& operator=(JsonValue&& other) noexcept;
    ~JsonValue();

    Type type() const { return m_type; }
    bool isNull() const { return m_type == Type::Null; }
    bool isNumber() const { return m_type == Type::Number; }
    bool isString() const { return m_type == Type::String; }
    bool isObject() const { return m_type == Type::Object; }
    bool isArray() const { return m_type == Type::Array; }
    bool isBool() const { return m_type == Type::Bool; }

    double number() const;  // a number's value (from its literal); 0 for other types
    bool boolean() const { return m_bool; }
    // A string's text, or the literal text of a number exactly as written (so 64-bit nanosecond
    // timestamps are read without going through a double); empty for other types.
    std::string_view text() const;
    std::string string() const { return std::string(text()); }  // the same, as a copy
    JsonRange<JsonValue> array() const;
    JsonRange<JsonMember> object() const;
    const JsonValue* find(std::string_view key) const;  // the member with that key, or nullptr

    // Parses a whole document; on failure returns false with a message and the byte offset of the problem.
    // `out` keeps its storage for the next parse (parsing line after line into one value reuses memory).
    // The values inside a document (elements, members) live as long as the document they came from.
    static bool parse(std::string_view text, JsonValue& out, std::string* error, std::size_t* errorOffset);

private:
    friend class detail::JsonDomBuilder;
    JsonValue(Type type, const void* data, std::uint32_t size, bool flag)
        : m_data(data), m_size(size), m_type(type), m_bool(flag) {}
    const void* payload() const;
    void release();
    void copyFrom(const JsonValue& other);

    // A document's top value owns its storage (m_owner): m_data then points to that storage, which
    // holds the real payload pointer. Values inside a document point straight into the storage.
    const void* m_data = nullptr;  // chars of a string or number, JsonValue[] of an array, JsonMember[] of an object
    std::uint32_t m_size = 0;      // length of the text, number of elements or members
    Type m_type = Type::Null;
    bool m_bool = false;
    bool m_owner = false;
};

// An object's key: a view into its document that also converts to std::string where one is needed.
struct JsonKey : std::string_view {
    JsonKey() = default;
    JsonKey(std::string_view text) : std::string_view(text) {}
    operator std::string() const { return std::string(data(), size()); }
};

struct JsonMember {
    JsonKey first;           // the key
    JsonValue second;        // the value
};

inline JsonRange<JsonMember> JsonValue::object() const {
    if (m_type != Type::Object) return {};
    return {static_cast<const JsonMember*>(payload()), m_size};
}

inline JsonRange<JsonValue> JsonValue::array() const {
    if (m_type != Type::Array) return {};
    return {static_cast<const JsonValue*>(payload()), m_size};
}

// Appends JSON text; the caller is responsible for structure (key before value, commas are automatic).
class JsonWriter {
public:
    explicit JsonWriter(bool pretty = false);
    // Writes to `out` as it goes, holding only the text since the last whole object or array past 64 KB:
    // a million-segment critical path is 230 MB of JSON that need not be held. text() is then what is not
    // written yet; flush() (the destructor too) writes it and says whether every write succeeded.
    explicit JsonWriter(std::FILE* out, bool pretty = false);
    bool flush();
    ~JsonWriter();
    JsonWriter(JsonWriter&&) noexcept;
    JsonWriter& operator=(JsonWriter&&) noexcept;

    JsonWriter& beginObject();
    JsonWriter& endObject();
    JsonWriter& beginArray();
    JsonWriter& endArray();
    JsonWriter& key(std::string_view name);
    JsonWriter& value(std::string_view text);
    JsonWriter& value(const char* text) { return value(std::string_view(text)); }
    JsonWriter& value(double number);
    JsonWriter& value(std::int64_t number);
    JsonWriter& value(std::uint64_t number);
    JsonWriter& value(int number) { return value(static_cast<std::int64_t>(number)); }
    JsonWriter& value(bool flag);
    JsonWriter& null();

    const std::string& text() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Appends text as one JSON string (quoted, escaped, invalid UTF-8 replaced by U+FFFD).
void appendJsonString(std::string& out, std::string_view text);

} // namespace tracelight
