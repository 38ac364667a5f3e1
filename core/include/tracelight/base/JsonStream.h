#pragma once
// Streams the elements of one large JSON array out of a file without holding the file in memory:
// the top-level array itself, or the array under a key of the top-level object. Each element's text
// is handed over whole, to be parsed on its own; memory is bounded by the largest element, and an
// element larger than kMaxJsonValueBytes is refused. RapidJSON reads every value (elements, keys and the
// values of the other keys), strictly as JsonValue::parse does; the rest of the document after the array
// is checked too (no duplicate top-level keys, nothing after the document).
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

    // The next element's JSON text and its byte offset; false at the end of the array or on error.
    bool next(std::string& element, std::uint64_t& offset);
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
    bool readValue(std::string* capture);  // one whole JSON value, copied into capture when given
    bool readKey(std::string& name);       // a member name of the top-level object
    bool finishDocument();                 // after the array: the rest of the top-level object, then the end
    bool fail(const std::string& message);
    bool failAt(std::uint64_t offset, const std::string& message);

    std::FILE* m_file = nullptr;
    std::vector<char> m_buffer;
    std::size_t m_pos = 0, m_end = 0;
    std::uint64_t m_offset = 0, m_size = 0;
    int m_before[2] = {-1, -1};  // the last two bytes read, to recognise a leading zero
    std::string* m_capture = nullptr;
    bool m_overflow = false;
    std::string m_error, m_path;
    std::set<std::string> m_topKeys;  // members of the top-level object seen so far
    bool m_inObject = false, m_singleObject = false, m_done = false, m_first = true;
};

} // namespace tracelight
