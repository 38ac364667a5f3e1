#pragma once
// Byte strings kept end to end in large chunks: a million small results cost their bytes, not a million
// allocations with a header and spare capacity each. Views stay valid as long as the arena lives.
#include <algorithm>
#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace tracelight {

class BlobArena {
public:
    std::string_view keep(std::string_view bytes) {
        if (m_chunks.empty() || m_chunks.back().capacity() - m_chunks.back().size() < bytes.size()) {
            m_chunks.emplace_back();
            m_chunks.back().reserve(std::max(kChunkBytes, bytes.size()));  // a chunk never grows, so views stay put
        }
        std::string& chunk = m_chunks.back();
        const std::size_t at = chunk.size();
        chunk.append(bytes);
        return {chunk.data() + at, bytes.size()};
    }
    // Bytes made elsewhere (a message from another process), kept whole: views into them stay valid.
    std::string_view adopt(std::string bytes) {
        m_adopted.push_back(std::move(bytes));
        return m_adopted.back();
    }

private:
    static constexpr std::size_t kChunkBytes = std::size_t(1) << 20;
    std::vector<std::string> m_chunks;   // moving a reserved string keeps its buffer
    std::deque<std::string> m_adopted;   // a deque never moves its elements (a short string's bytes are inside it)
};

} // namespace tracelight
