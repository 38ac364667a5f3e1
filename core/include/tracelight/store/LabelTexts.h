#pragma once
// The texts of some labels, by label id, end to end in blocks (growing from 4 KB to a megabyte). A
// million-span trace uses three million labels (each call numbered); a string each was three million
// allocations, and as many frees, every time a request was opened. One growing buffer copied all its text
// at each doubling and left views into it dangling. A block's characters never move once written (a copy
// gets blocks of its own, as large), so a view stays valid while its LabelTexts lives.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tracelight {

class LabelTexts {
public:
    LabelTexts() = default;
    explicit LabelTexts(std::size_t idEnd) : m_at(idEnd, 0), m_size(idEnd, 0) {}
    LabelTexts(LabelTexts&&) noexcept = default;
    LabelTexts& operator=(LabelTexts&&) noexcept = default;
    // A copied std::string's capacity is its size: each block is copied into one as large as the original,
    // so appending to the copy never reallocates a block (nor moves a short one's characters).
    LabelTexts(const LabelTexts& other) : m_at(other.m_at), m_size(other.m_size) {
        m_blocks.reserve(other.m_blocks.size());
        for (const std::string& block : other.m_blocks) {
            std::string copy;
            copy.reserve(block.capacity());
            copy.append(block);
            m_blocks.push_back(std::move(copy));
        }
    }
    LabelTexts& operator=(const LabelTexts& other) {
        if (this != &other) *this = LabelTexts(other);
        return *this;
    }

    // An id never set reads empty, as TraceStore::label reads a label the store lacks.
    std::string_view text(std::uint32_t id) const {
        if (id >= m_size.size() || m_size[id] == 0) return {};
        const std::uint64_t at = m_at[id];
        return std::string_view(m_blocks[at >> 32]).substr(at & 0xffffffffu, m_size[id]);
    }

    void set(std::uint32_t id, std::string_view text) {
        if (id >= m_size.size()) {
            m_at.resize(std::size_t(id) + 1, 0);
            m_size.resize(std::size_t(id) + 1, 0);
        }
        // A text goes whole into the last block; one that does not fit starts a new block (its own, if
        // it is longer than a block).
        if (m_blocks.empty() || m_blocks.back().capacity() - m_blocks.back().size() < text.size()) {
            const std::size_t grown = m_blocks.empty() ? kFirstBlockBytes : std::min(kBlockBytes, 2 * m_blocks.back().capacity());
            m_blocks.emplace_back();
            m_blocks.back().reserve(std::max(grown, text.size()));
        }
        std::string& block = m_blocks.back();
        m_at[id] = (std::uint64_t(m_blocks.size() - 1) << 32) | block.size();
        m_size[id] = static_cast<std::uint32_t>(text.size());
        block.append(text);
    }

    std::size_t idEnd() const { return m_size.size(); }  // one past the highest id set

private:
    static constexpr std::size_t kFirstBlockBytes = std::size_t(1) << 12;  // a small request's texts
    static constexpr std::size_t kBlockBytes = std::size_t(1) << 20;
    std::vector<std::string> m_blocks;  // each filled up to its reserved capacity, never beyond
    std::vector<std::uint64_t> m_at;    // block << 32 | offset in it
    std::vector<std::uint32_t> m_size;
};

} // namespace tracelight
