#include "tracelight/profile/ProfileTables.h"

#include <algorithm>
#include <unordered_map>

namespace tracelight {

namespace {

bool underSameName(const ProfileSet& set, std::size_t f) {
    for (std::int32_t x = set.frames[f].parent; x >= 0; x = set.frames[static_cast<std::size_t>(x)].parent)
        if (set.frames[static_cast<std::size_t>(x)].name == set.frames[f].name) return true;
    return false;
}

// Accumulates by name, in first-seen order, then sorts.
class ByName {
public:
    FrameNameTime& operator[](const std::string& name) {
        auto [it, fresh] = m_index.emplace(name, m_rows.size());
        if (fresh) m_rows.push_back({name});
        return m_rows[it->second];
    }
    std::vector<FrameNameTime> sorted(bool bySelf) && {
        std::stable_sort(m_rows.begin(), m_rows.end(), [bySelf](const FrameNameTime& a, const FrameNameTime& b) {
            return bySelf ? a.selfNs > b.selfNs : a.totalNs > b.totalNs;
        });
        return std::move(m_rows);
    }

private:
    std::unordered_map<std::string, std::size_t> m_index;
    std::vector<FrameNameTime> m_rows;
};

} // namespace

std::vector<FrameNameTime> topFrames(const ProfileSet& set, std::size_t group) {
    ByName rows;
    for (std::size_t f = 0; f < set.frames.size(); ++f) {
        FrameNameTime& row = rows[set.frames[f].name];
        row.selfNs += set.meanSelfNs(group, f);
        if (!underSameName(set, f)) row.totalNs += set.meanTotalNs(group, f);
        ++row.stacks;
    }
    return std::move(rows).sorted(true);
}

Sandwich sandwich(const ProfileSet& set, std::size_t group, const std::string& name) {
    Sandwich out;
    out.middle.name = name;
    ByName callers, callees;
    for (std::size_t f = 0; f < set.frames.size(); ++f) {
        const ProfileFrameInfo& frame = set.frames[f];
        if (frame.parent >= 0 && set.frames[static_cast<std::size_t>(frame.parent)].name == name) {
            FrameNameTime& callee = callees[frame.name];
            callee.totalNs += set.meanTotalNs(group, f);
            callee.selfNs += set.meanSelfNs(group, f);
            ++callee.stacks;
        }
        if (frame.name != name) continue;
        out.middle.selfNs += set.meanSelfNs(group, f);
        if (!underSameName(set, f)) out.middle.totalNs += set.meanTotalNs(group, f);
        ++out.middle.stacks;
        FrameNameTime& caller = callers[frame.parent >= 0 ? set.frames[static_cast<std::size_t>(frame.parent)].name : "[root]"];
        caller.totalNs += set.meanTotalNs(group, f);
        caller.selfNs += set.meanSelfNs(group, f);
        ++caller.stacks;
    }
    out.callers = std::move(callers).sorted(false);
    out.callees = std::move(callees).sorted(false);
    return out;
}

} // namespace tracelight
