#include "tracelight/bottleneck/HostActivity.h"

#include <algorithm>
#include <map>

namespace tracelight {

const std::string& HostActivitySet::name(LabelId id) const {
    static const std::string none;
    const auto it = names.find(id.value);
    return it == names.end() ? none : it->second;
}

HostActivityIndex::HostActivityIndex(const HostActivitySet& set, const HostOffsets& offsets) : m_set(&set) {
    for (const HostActivity& r : set.records) {
        const auto offset = offsets.find(r.host.value);
        const TimeNs shift = offset == offsets.end() ? 0 : offset->second;  // local = true + offset
        const PlacedActivity placed{&r, r.startNs - shift, r.endNs - shift};
        HostRecords& h = m_byHost[r.host.value];
        h.items.push_back(placed);
        if (r.request.isValid()) m_byRequest[r.request.value].push_back(placed);
    }
    const auto byStart = [](const PlacedActivity& a, const PlacedActivity& b) { return a.startNs < b.startNs; };
    for (auto& entry : m_byHost) {
        HostRecords& h = entry.second;  // a named reference: clang 14 cannot capture a structured binding
        std::stable_sort(h.items.begin(), h.items.end(), byStart);
        h.ends = LatestEndTree(h.items.size(), [&h](std::size_t i) { return h.items[i].endNs; });
    }
    for (auto& [request, items] : m_byRequest) std::stable_sort(items.begin(), items.end(), byStart);
}

void HostActivityIndex::forEachOverlapping(LabelId host, TimeNs fromNs, TimeNs toNs,
                                           const std::function<void(const PlacedActivity&)>& visit) const {
    const auto it = m_byHost.find(host.value);
    if (it == m_byHost.end() || toNs < fromNs) return;
    const HostRecords& h = it->second;
    // In order of start: those that began before the window and still ran at its start (one very long record
    // does not make every window read all the host's records), then those starting inside it.
    const auto first = std::lower_bound(h.items.begin(), h.items.end(), fromNs,
                                        [](const PlacedActivity& a, TimeNs t) { return a.startNs < t; });
    h.ends.forEachEndingAtOrAfter(static_cast<std::size_t>(first - h.items.begin()), fromNs, [&](std::size_t i) { visit(h.items[i]); });
    for (auto it = first; it != h.items.end() && it->startNs <= toNs; ++it) visit(*it);
}

void HostActivityIndex::forEachOverlappingAnywhere(TimeNs fromNs, TimeNs toNs,
                                                   const std::function<void(const PlacedActivity&)>& visit) const {
    for (const auto& [host, h] : m_byHost) forEachOverlapping(LabelId{host}, fromNs, toNs, visit);
}

std::vector<PlacedActivity> HostActivityIndex::markedWith(RequestId request) const {
    const auto it = m_byRequest.find(request.value);
    return it == m_byRequest.end() ? std::vector<PlacedActivity>{} : it->second;
}

void ActivityTally::add(LabelId what, std::string_view name, TimeNs overlapNs) {
    ActivityKind& k = m_byWhat[what.value];
    if (k.what.empty()) k.what = std::string(name);
    ++k.records;
    k.overlapNs += overlapNs;
}

std::vector<ActivityKind> ActivityTally::kinds() const {
    std::vector<ActivityKind> out;
    out.reserve(m_byWhat.size());
    for (const auto& entry : m_byWhat) out.push_back(entry.second);
    std::stable_sort(out.begin(), out.end(), [](const ActivityKind& a, const ActivityKind& b) {
        return a.overlapNs != b.overlapNs ? a.overlapNs > b.overlapNs : a.what < b.what;
    });
    return out;
}

std::vector<ActivityKind> summarizeActivity(std::span<const PlacedActivity> placed, TimeNs fromNs, TimeNs toNs,
                                            const HostActivitySet& set) {
    ActivityTally tally;
    for (const PlacedActivity& p : placed) tally.add(p.record->what, set.name(p.record->what), overlapNs(p.startNs, p.endNs, fromNs, toNs));
    return tally.kinds();
}

} // namespace tracelight
