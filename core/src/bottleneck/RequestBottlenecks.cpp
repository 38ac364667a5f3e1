#include "tracelight/bottleneck/RequestBottlenecks.h"

#include <algorithm>
#include <numeric>

#include "tracelight/analysis/SpanRequestPath.h"
#include "tracelight/studies/SpanCalls.h"

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

void RequestBottleneckPass::splitAsyncWork(const std::vector<SpanShape>& spans) {
    // Each span's self time (type: the span's index) given its type; the parts in its asynchronous work
    // (m_async: by span, each span's parts in time order) the async type instead.
    // Each span's type: a client span's own time (its children all in other services) is the hop of its call,
    // any other span's its service's work.
    spanCalls(spans, m_calls);
    m_spanType.assign(spans.size(), kNoType);
    const std::size_t count = m_intervals.size();
    for (std::size_t k = 0; k < count; ++k) {
        ActiveInterval interval = m_intervals[k];
        const std::uint32_t span = interval.type;
        std::uint32_t& type = m_spanType[span];
        if (type == kNoType)
            type = m_calls.callee[span] >= 0 ? m_types.ofHop(spans[span], m_calls.service[static_cast<std::size_t>(m_calls.callee[span])])
                                             : m_types.ofSpan(spans[span]);
        interval.type = type;
        auto part = std::lower_bound(m_async.begin(), m_async.end(), static_cast<std::int32_t>(span),
                                     [](const SpanPart& p, std::int32_t s) { return p.span < s; });
        for (; part != m_async.end() && part->span == static_cast<std::int32_t>(span) && interval.startNs < interval.endNs; ++part) {
            const TimeNs from = std::max(part->startNs, interval.startNs), to = std::min(part->endNs, interval.endNs);
            if (to <= from) continue;
            if (from > interval.startNs) m_intervals.push_back({interval.startNs, from, interval.type});
            m_intervals.push_back({from, to, m_types.asyncWork()});
            interval.startNs = to;
        }
        if (interval.startNs < interval.endNs) m_intervals.push_back(interval);
    }
    m_intervals.erase(m_intervals.begin(), m_intervals.begin() + static_cast<std::ptrdiff_t>(count));
}

std::unordered_map<std::string, HostId> hostsByName(const TraceData& data) {
    std::unordered_map<std::string, HostId> out;
    for (std::uint32_t h = 0; h < data.hostLabels.size(); ++h) out.emplace(data.label(data.hostLabels[h].value), HostId(h));
    return out;
}

const RequestContribution& RequestBottleneckPass::run(std::size_t row, const std::vector<SpanShape>* spans) {
    const TraceData& td = m_analysis.data;
    const ClockOffsets& offsets = m_analysis.offsets;
    const auto events = td.eventsOf(row);
    RequestSpan window = buildSegments(events, offsets, m_segments);
    m_intervals.clear();
    m_async.clear();
    if (spans && !spans->empty()) {
        const std::size_t n = spans->size();
        m_spanStart.resize(n);
        m_spanEnd.resize(n);
        const auto refs = td.spansOf(row);
        if (refs.size() == n && spanTimings(events, refs, offsets, m_timings)) {
            // As the critical path sees them: the request is what the roots' callers waited for, and work no
            // caller waited for is its own type while it runs within that.
            for (std::size_t i = 0; i < n; ++i) {
                m_spanStart[i] = m_timings[i].startNs;
                m_spanEnd[i] = m_timings[i].endNs;
            }
            SpanTreeCriticalPath path = spanTreeCriticalPath(m_timings);
            window = {path.startNs, path.endNs};
            m_async = std::move(path.async);
        } else {
            // Each span on the analysis clock: its recorded times moved by its host's offset (the host its
            // events were given at import: the span's host, else its service).
            for (std::size_t i = 0; i < n; ++i) {
                const SpanShape& s = (*spans)[i];
                const std::string_view hostName = !s.host.empty() ? s.host : s.service;
                const auto host = m_hosts.find(hostName.empty() ? std::string("?") : std::string(hostName));
                const TimeNs offset = host != m_hosts.end() && host->second.value < offsets.offsetNs.size() ? offsets.offsetNs[host->second.value] : 0;
                m_spanStart[i] = s.startNs - offset;
                m_spanEnd[i] = std::max(s.startNs, s.endNs) - offset;
            }
        }
        appendSpanSelfTime(*spans, m_spanStart, m_spanEnd, m_intervals);
        splitAsyncWork(*spans);
    } else {
        for (const SegmentInstance& seg : m_segments) m_intervals.push_back({seg.startNs, seg.endNs, m_types.ofSegmentType(seg.type)});
    }
    m_latencyNs = window.endNs - window.startNs;
    std::uint32_t typeCount = BottleneckTypeTable::kGaps + 1;
    for (const auto& interval : m_intervals) typeCount = std::max(typeCount, interval.type + 1);
    computeContributions(m_intervals, window.startNs, window.endNs, typeCount, m_result, m_scratch);
    // The gaps are a type of their own: folded into index 0, so callers sum one vector.
    m_result.byType[BottleneckTypeTable::kGaps] += m_result.gapsNs;
    m_result.gapsNs = 0;
    return m_result;
}

} // namespace tracelight
