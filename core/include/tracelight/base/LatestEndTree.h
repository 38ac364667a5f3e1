#pragma once
// Intervals kept in order of their starts and, over them, an implicit binary tree of their latest ends: which of
// the first `limit` intervals still run at a time costs a descent that skips every subtree ending before it, so an
// interval that began long ago is found without a scan of everything that started since. The temporal context's
// segments and the host activity beside a request both ask this.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <limits>
#include <vector>

#include "tracelight/base/Time.h"

namespace tracelight {

class LatestEndTree {
public:
    LatestEndTree() = default;
    // endOf(i): the end of the i-th of `count` intervals in order of start.
    template <class EndOf>
    LatestEndTree(std::size_t count, EndOf&& endOf) : m_leaves(std::bit_ceil(std::max<std::size_t>(count, 1))) {
        m_maxEnd.assign(2 * m_leaves, std::numeric_limits<TimeNs>::min());
        for (std::size_t i = 0; i < count; ++i) m_maxEnd[m_leaves + i] = endOf(i);
        for (std::size_t node = m_leaves - 1; node >= 1; --node) m_maxEnd[node] = std::max(m_maxEnd[2 * node], m_maxEnd[2 * node + 1]);
    }

    // visit(i), in increasing i, for each of the intervals [0, limit) that end at or after atNs.
    template <class Visit>
    void forEachEndingAtOrAfter(std::size_t limit, TimeNs atNs, Visit&& visit) const {
        if (limit > 0 && m_leaves > 0) descend(1, 0, m_leaves, limit, atNs, visit);
    }

private:
    template <class Visit>
    void descend(std::size_t node, std::size_t lo, std::size_t hi, std::size_t limit, TimeNs atNs, Visit& visit) const {
        if (lo >= limit || m_maxEnd[node] < atNs) return;
        if (hi - lo == 1) {
            visit(lo);
            return;
        }
        const std::size_t mid = lo + (hi - lo) / 2;
        descend(2 * node, lo, mid, limit, atNs, visit);
        descend(2 * node + 1, mid, hi, limit, atNs, visit);
    }

    std::size_t m_leaves = 0;
    std::vector<TimeNs> m_maxEnd;  // node 1 the root, leaves from m_leaves
};

} // namespace tracelight
