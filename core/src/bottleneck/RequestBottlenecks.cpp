#include "tracelight/bottleneck/RequestBottlenecks.h"

#include <algorithm>
#include <numeric>

namespace tracelight {

void appendSpanSelfTime(std::span<const SpanShape> spans, std::span<const TimeNs> startNs, std::span<const TimeNs> endNs,
                        std::vector<ActiveInterval>& out) {
    const std::size_t n = spans.size();
    // Children grouped by parent, each group in start order: one sort instead of a list per span.
    std::vector<std::uint32_t> children;
    for (std::size_t i = 0; i < n; ++i)
        if (spans[i].parent >= 0 && static_cast<std::size_t>(spans[i].parent) < n) children.push_back(static_cast<std::uint32_t>(i));
    std::sort(children.begin(), children.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (spans[a].parent != spans[b].parent) return spans[a].parent < spans[b].parent;
        return startNs[a] != startNs[b] ? startNs[a] < startNs[b] : a < b;
    });
    std::size_t next = 0;
    for (std::size_t i = 0; i < n; ++i) {
        while (next < children.size() && spans[children[next]].parent < static_cast<std::int32_t>(i)) ++next;
        const TimeNs start = startNs[i], end = endNs[i];
        TimeNs cursor = start;  // the span's own time before cursor is settled
        for (; next < children.size() && spans[children[next]].parent == static_cast<std::int32_t>(i); ++next) {
            const TimeNs childStart = std::max(startNs[children[next]], start), childEnd = std::min(endNs[children[next]], end);
            if (childEnd <= childStart) continue;  // outside the parent (asynchronous, or skew): covers nothing of it
            if (childStart > cursor) out.push_back({cursor, childStart, static_cast<std::uint32_t>(i)});
            cursor = std::max(cursor, childEnd);
        }
        if (end > cursor) out.push_back({cursor, end, static_cast<std::uint32_t>(i)});
    }
}

std::unordered_map<std::string, HostId> hostsByName(const TraceData& data) {
    std::unordered_map<std::string, HostId> out;
    for (std::uint32_t h = 0; h < data.hostLabels.size(); ++h) out.emplace(data.label(data.hostLabels[h].value), HostId(h));
    return out;
}

const RequestContribution& RequestBottleneckPass::run(std::size_t row, const std::vector<SpanShape>* spans) {
    const TraceData& td = m_analysis.data;
    const ClockOffsets& offsets = m_analysis.offsets;
    const RequestSpan window = buildSegments(td.eventsOf(row), offsets, m_segments);
    m_latencyNs = window.endNs - window.startNs;
    m_intervals.clear();
    if (spans && !spans->empty()) {
        // Each span on the analysis clock: its recorded times moved by its host's offset (the host its
        // events were given at import: the span's host, else its service).
        const std::size_t n = spans->size();
        m_spanStart.resize(n);
        m_spanEnd.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            const SpanShape& s = (*spans)[i];
            const std::string_view hostName = !s.host.empty() ? s.host : s.service;
            const auto host = m_hosts.find(hostName.empty() ? std::string("?") : std::string(hostName));
            const TimeNs offset = host != m_hosts.end() && host->second.value < offsets.offsetNs.size() ? offsets.offsetNs[host->second.value] : 0;
            m_spanStart[i] = s.startNs - offset;
            m_spanEnd[i] = std::max(s.startNs, s.endNs) - offset;
        }
        appendSpanSelfTime(*spans, m_spanStart, m_spanEnd, m_intervals);
        for (auto& interval : m_intervals) interval.type = m_types.ofSpan((*spans)[interval.type]);
    } else {
        for (const SegmentInstance& seg : m_segments) m_intervals.push_back({seg.startNs, seg.endNs, m_types.ofSegmentType(seg.type)});
    }
    std::uint32_t typeCount = BottleneckTypeTable::kGaps + 1;
    for (const auto& interval : m_intervals) typeCount = std::max(typeCount, interval.type + 1);
    computeContributions(m_intervals, window.startNs, window.endNs, typeCount, m_result, m_scratch);
    // The gaps are a type of their own: folded into index 0, so callers sum one vector.
    m_result.byType[BottleneckTypeTable::kGaps] += m_result.gapsNs;
    m_result.gapsNs = 0;
    return m_result;
}

} // namespace tracelight
