#pragma once
// Streams the elements of one large JSON array out of a file without holding the file in memory:
// the top-level array itself, or the array under a key of the top-level object. Each element is handed
// over parsed (JsonValue::parse, strict), its bounds found by a structural scan first so that its text is
// parsed once; memory is bounded by the largest element, and an element larger than kMaxJsonValueBytes is
// refused. The values of the other keys are read by RapidJSON without being held; the rest of the
// document after the array is checked too (no duplicate top-level keys, nothing after the document).
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tracelight/base/Json.h"

namespace tracelight {

class JsonArrayStream {
public:
    JsonArrayStream() = default;
    ~JsonArrayStream();
    JsonArrayStream(const JsonArrayStream&) = delete;
    JsonArrayStream& operator=(const JsonArrayStream&) = delete;

    // key empty: the document must be an array. Otherwise it must be an object holding key: [...].
    // When key holds an object instead of an array, that object is the single element.
    bool open(const std::string& path, std::string_view key, std::string* error);

    // The next element, parsed, and its byte offset; false at the end of the array or on error.
    bool next(JsonValue& element, std::uint64_t& offset);
    std::string_view elementText() const { return m_element; }  // the text of the element last handed over
    const std::string& error() const { return m_error; }  // "byte N: what"; empty at a clean end
    std::uint64_t bytesRead() const { return m_offset; }
    std::uint64_t fileSize() const { return m_size; }
    std::size_t bufferSize() const { return m_buffer.size(); }  // at most the file's size (+1), up to 1 MiB

private:
    struct Input;  // RapidJSON's view of the file
    friend struct Input;

    int peek();
    int get();
    bool skipSpace();
    bool skipValue();                       // one whole JSON value, validated by RapidJSON without holding it
    bool scanValue();                       // one whole JSON value's text into m_element, by its structure only
    bool parseElement(JsonValue& element, std::uint64_t offset);
    bool readKey(std::string& name);       // a member name of the top-level object
    bool finishDocument();                 // after the array: the rest of the top-level object, then the end
    bool fail(const std::string& message);
    bool failAt(std::uint64_t offset, const std::string& message);

    std::FILE* m_file = nullptr;
    std::vector<char> m_buffer;
    std::size_t m_pos = 0, m_end = 0;
    std::uint64_t m_offset = 0, m_size = 0;
    int m_before[2] = {-1, -1};  // the last two bytes read, to recognise a leading zero
    std::string m_error, m_path;
    std::string m_element;  // the current element's text, reused from one element to the next
    std::set<std::string> m_topKeys;  // members of the top-level object seen so far
    bool m_inObject = false, m_singleObject = false, m_done = false, m_first = true;
};

} // namespace tracelight
