#pragma once
// Streams the elements of one large JSON array out of a file without holding the file in memory:
// the top-level array itself, or the array under a key of the top-level object. Each element is handed
// over parsed (JsonValue::parse, strict), its bounds found by a structural scan first so that its text is
// parsed once; memory is bounded by the largest element, and an element larger than kMaxJsonValueBytes is
// refused. The values of the other keys are read by RapidJSON without being held; the rest of the
// document after the array is checked too (no duplicate top-level keys, nothing after the document).
#include <cstdint>
#include <cstdio>
#include <functional>
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
    // The next element's text (elementText()), passed over by its structure and not parsed, and its byte
    // offset: for a caller that parses it elsewhere (on another thread). False at the end or on error.
    bool nextText(std::uint64_t& offset);

    // The next element as an object read member by member, so that one element may be larger than the
    // limit: choose(key) says what to do with each member's value — Skip it (validated, not held), Parse
    // it (handed to take(key, value, offset)), or Stream it, an array whose elements are each handed to
    // take(key, element, offset) in turn. False at the end of the array, on error (error() says where),
    // or as soon as take returns false (the caller's own error; error() stays empty).
    // SkipUnchecked: passed over by its structure alone, not validated (for a value read again later).
    // StreamText: as Stream, but each element is handed over unparsed (value null; its text is elementText()).
    enum class Member { Skip, SkipUnchecked, Parse, Stream, StreamText };
    bool nextObject(const std::function<Member(std::string_view key)>& choose,
                    const std::function<bool(std::string_view key, const JsonValue& value, std::uint64_t offset)>& take);
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
    bool scanValue(bool keep);              // one whole JSON value (its text into m_element if keep), by its structure only
    bool parseElement(JsonValue& element, std::uint64_t offset);
    bool readKey(std::string& name, std::set<std::string>& seen);  // a member name, unique among seen
    bool nextElementStart(std::uint64_t& offset);  // past the separator before the next element; false at the end
    // Before an array's or object's next item: its closing bracket (consumed; closed = true) or, after the
    // first item, the comma between two. False on an error; `inside` names the container for messages.
    bool nextItem(bool first, char close, const char* inside, bool& closed);
    bool readMembers(const std::function<Member(std::string_view)>& choose,
                     const std::function<bool(std::string_view, const JsonValue&, std::uint64_t)>& take);
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
