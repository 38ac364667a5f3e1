#pragma once
// The texts of some labels, by label id, end to end in one buffer. A million-span trace uses three million
// labels (each call numbered); a string each was three million allocations, and as many frees, every time
// a request was opened.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tracelight {

class LabelTexts {
public:
    LabelTexts() = default;
    explicit LabelTexts(std::size_t idEnd) : m_begin(idEnd, 0), m_size(idEnd, 0) {}

    // An id never set reads empty, as TraceStore::label reads a label the store lacks. Views stay valid
    // until the next set.
    std::string_view text(std::uint32_t id) const {
        if (id >= m_size.size()) return {};
        return std::string_view(m_chars).substr(m_begin[id], m_size[id]);
    }

    void set(std::uint32_t id, std::string_view text) {
        if (id >= m_size.size()) {
            m_begin.resize(std::size_t(id) + 1, 0);
            m_size.resize(std::size_t(id) + 1, 0);
        }
        m_begin[id] = m_chars.size();
        m_size[id] = static_cast<std::uint32_t>(text.size());
        m_chars.append(text);
    }

    std::size_t idEnd() const { return m_size.size(); }  // one past the highest id set

private:
    std::string m_chars;
    std::vector<std::uint64_t> m_begin;
    std::vector<std::uint32_t> m_size;
};

} // namespace tracelight
