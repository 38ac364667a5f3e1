#pragma once
// A table indexed by ids that keep growing (label ids), grown a page at a time: what is there is never
// moved or copied, and pages are made only for the id ranges reached. A vector doubled to fit holds its
// old and new blocks at once while it grows, and up to half of the new one is never used: an import's
// table of 16 bytes per label took 107 MB at its peak for the 3 million labels of a million-span trace.
#include <cstddef>
#include <memory>
#include <vector>

namespace tracelight {

template <typename T, std::size_t kPageBits = 12>
class PagedArray {
public:
    // The element at i; its page is made (every element value-initialised) when first reached.
    T& at(std::size_t i) {
        const std::size_t page = i >> kPageBits;
        if (page >= m_pages.size()) m_pages.resize(page + 1);
        if (!m_pages[page]) m_pages[page] = std::make_unique<T[]>(kPageSize);
        return m_pages[page][i & (kPageSize - 1)];
    }
    // Every element back to its initial value (the pages go).
    void clear() { m_pages.clear(); }

private:
    static constexpr std::size_t kPageSize = std::size_t(1) << kPageBits;
    std::vector<std::unique_ptr<T[]>> m_pages;
};

} // namespace tracelight
