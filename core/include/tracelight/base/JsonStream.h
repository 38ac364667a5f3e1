#pragma once
// Streams the elements of one large JSON array out of a file without holding the file in memory:
// the top-level array itself, or the array under a key of the top-level object. Each element's text
// is handed over whole, to be parsed on its own; memory is bounded by the largest element.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace tracelight {

class JsonArrayStream {
public:
    ~JsonArrayStream();

    // key empty: the document must be an array. Otherwise it must be an object holding key: [...].
    // When key holds an object instead of an array, that object is the single element.
    bool open(const std::string& path, std::string_view key, std::string* error);

    // The next element's JSON text and its byte offset; false at the end of the array or on error.
    bool next(std::string& element, std::uint64_t& offset);
    const std::string& error() const { return m_error; }  // empty at a clean end
    std::uint64_t bytesRead() const { return m_offset; }
    std::uint64_t fileSize() const { return m_size; }
    std::size_t bufferSize() const { return m_buffer.size(); }  // at most the file's size (+1), up to 1 MiB

private:
    int peek();
    int get();
    bool skipSpace();
    bool skipValue(std::string* capture);  // one whole JSON value, copied into capture when given
    bool readString(std::string* out);
    bool fail(const std::string& message);

    std::FILE* m_file = nullptr;
    std::vector<char> m_buffer;
    std::size_t m_pos = 0, m_end = 0;
    std::uint64_t m_offset = 0, m_size = 0;
    std::string m_error, m_path;
    bool m_singleObject = false, m_done = false, m_first = true;
};

} // namespace tracelight
