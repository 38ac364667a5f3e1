#pragma once
// Items grouped by a key, all groups in one array: a counting sort, two passes over the items. Used for
// a span tree's children by parent, where a list per span cost a million allocations on a million-span
// trace (57 MB in half a million pieces at the import).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tracelight {

class Grouping {
public:
    Grouping() = default;
    // `items` (ids below 2^32) in the order each group keeps them; keyOf(item) is its group below `groups`,
    // or negative for none.
    template <class Items, class KeyOf>
    static Grouping build(std::size_t groups, const Items& items, KeyOf keyOf) {
        return made(groups, [&](auto&& visit) {
            for (auto item : items) visit(static_cast<std::size_t>(item));
        }, keyOf);
    }
    // The same of the items 0 .. count-1, in that order.
    template <class KeyOf>
    static Grouping ofIndices(std::size_t groups, std::size_t count, KeyOf keyOf) {
        return made(groups, [&](auto&& visit) {
            for (std::size_t item = 0; item < count; ++item) visit(item);
        }, keyOf);
    }
    // Group k's items, in the order given; none for a k out of range.
    std::span<const std::uint32_t> of(std::size_t group) const {
        if (group + 1 >= m_begin.size()) return {};
        return std::span<const std::uint32_t>(m_items).subspan(m_begin[group], m_begin[group + 1] - m_begin[group]);
    }

private:
    // Counted, then placed: forEach(visit) calls visit(item) for every item, twice over.
    template <class ForEach, class KeyOf>
    static Grouping made(std::size_t groups, ForEach forEach, KeyOf keyOf) {
        Grouping g;
        g.m_begin.assign(groups + 1, 0);
        forEach([&](std::size_t item) {
            if (const auto key = keyOf(item); key >= 0) ++g.m_begin[static_cast<std::size_t>(key) + 1];
        });
        for (std::size_t k = 0; k < groups; ++k) g.m_begin[k + 1] += g.m_begin[k];
        g.m_items.resize(g.m_begin[groups]);
        std::vector<std::uint32_t> next(g.m_begin.begin(), g.m_begin.end() - 1);
        forEach([&](std::size_t item) {
            if (const auto key = keyOf(item); key >= 0) g.m_items[next[static_cast<std::size_t>(key)]++] = static_cast<std::uint32_t>(item);
        });
        return g;
    }

    std::vector<std::uint32_t> m_begin;  // group k's items: m_items[m_begin[k], m_begin[k + 1])
    std::vector<std::uint32_t> m_items;
};

} // namespace tracelight
