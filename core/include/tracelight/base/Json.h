#pragma once
// A small JSON reader (DOM, for one record at a time) and writer (for the CLI's stable output).
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tracelight {

class JsonValue {
public:
    enum class Type { Null, Bool, Number, String, Array, Object };

    Type type() const { return m_type; }
    bool isNull() const { return m_type == Type::Null; }
    bool isNumber() const { return m_type == Type::Number; }
    bool isString() const { return m_type == Type::String; }
    bool isObject() const { return m_type == Type::Object; }
    bool isArray() const { return m_type == Type::Array; }
    bool isBool() const { return m_type == Type::Bool; }

    double number() const { return m_number; }
    bool boolean() const { return m_bool; }
    const std::string& string() const { return m_string; }  // also the literal text of a number
    const std::vector<JsonValue>& array() const { return m_array; }
    const std::vector<std::pair<std::string, JsonValue>>& object() const { return m_object; }
    const JsonValue* find(std::string_view key) const;  // first member with that key, or nullptr

    // Parses a whole document; on failure returns false with a message and the byte offset of the problem.
    static bool parse(std::string_view text, JsonValue& out, std::string* error, std::size_t* errorOffset);

private:
    friend class JsonParser;
    Type m_type = Type::Null;
    bool m_bool = false;
    double m_number = 0;
    std::string m_string;
    std::vector<JsonValue> m_array;
    std::vector<std::pair<std::string, JsonValue>> m_object;
};

// Appends JSON text; the caller is responsible for structure (key before value, commas are automatic).
class JsonWriter {
public:
    explicit JsonWriter(bool pretty = false) : m_pretty(pretty) {}

    JsonWriter& beginObject();
    JsonWriter& endObject();
    JsonWriter& beginArray();
    JsonWriter& endArray();
    JsonWriter& key(std::string_view name);
    JsonWriter& value(std::string_view text);
    JsonWriter& value(const char* text) { return value(std::string_view(text)); }
    JsonWriter& value(double number);
    JsonWriter& value(std::int64_t number);
    JsonWriter& value(std::uint64_t number) { return value(static_cast<std::int64_t>(number)); }
    JsonWriter& value(int number) { return value(static_cast<std::int64_t>(number)); }
    JsonWriter& value(bool flag);
    JsonWriter& null();

    const std::string& text() const { return m_out; }

private:
    void beforeValue();
    void newline();

    std::string m_out;
    std::vector<bool> m_hasItems;  // one entry per open container
    bool m_afterKey = false;
    bool m_pretty;
};

void appendJsonString(std::string& out, std::string_view text);

} // namespace tracelight
