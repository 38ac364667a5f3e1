#include "tracelight/analysis/SpanRequestPath.h"

#include <algorithm>

#include "tracelight/base/Grouping.h"

namespace tracelight {

void eventTimes(std::span<const EventRecord> events, std::span<const SegmentInstance> segments, const ClockOffsets& offsets,
                std::vector<TimeNs>& out) {
    out.resize(events.size());
    std::size_t k = 0;  // the next segment: the one ending at the next event that ends one
    for (std::size_t i = 0; i < events.size(); ++i) {
        if (events[i].segmentType.isValid() && k < segments.size()) out[i] = segments[k++].endNs;
        else if (i + 1 < events.size() && events[i + 1].segmentType.isValid() && k < segments.size()) out[i] = segments[k].startNs;
        else out[i] = offsets.adjusted(events[i].host, events[i].localNs);  // a task of one event
    }
}

void segmentOwners(std::span<const EventRecord> events, std::span<const SpanRef> spans, std::size_t segmentCount,
                   std::vector<std::int32_t>& owner, SpanRequestPathScratch& scratch) {
    const std::size_t n = events.size();
    auto& before = scratch.segmentsBefore;
    before.assign(n + 1, 0);
    for (std::size_t e = 0; e < n; ++e) before[e + 1] = before[e] + (events[e].segmentType.isValid() ? 1u : 0u);
    owner.assign(segmentCount, -1);
    // Innermost first: a span nested in another of its task (a joined server in its client) comes after it
    // in the tree's depth-first numbering. Each segment is given once, skipping the given ones, so a chain of
    // a hundred thousand nested spans costs no more than their segments.
    auto& next = scratch.nextFree;
    next.resize(segmentCount + 1);
    for (std::size_t i = 0; i <= segmentCount; ++i) next[i] = static_cast<std::uint32_t>(i);
    auto find = [&](std::uint32_t i) {
        std::uint32_t root = i;
        while (next[root] != root) root = next[root];
        while (next[i] != root) i = std::exchange(next[i], root);
        return root;
    };
    for (std::size_t s = spans.size(); s-- > 0;) {
        const SpanRef& span = spans[s];
        const std::uint32_t a = span.startEvent, b = span.endEvent;
        if (a >= n || b >= n || a >= b || events[a].task != events[b].task) continue;
        const std::uint32_t first = before[a + 1], end = std::min<std::uint32_t>(before[b + 1], static_cast<std::uint32_t>(segmentCount));
        for (std::uint32_t i = find(first); i < end; i = find(i)) {
            owner[i] = static_cast<std::int32_t>(s);
            next[i] = i + 1;
        }
    }
}

void rootEndSegments(std::span<const EventRecord> events, std::span<const SpanRef> spans, std::vector<std::uint32_t>& out) {
    out.clear();
    for (std::size_t i = 0; i < spans.size(); ++i)
        if (const auto e = spans[i].endEvent; isSpanRoot(spans[i].parent, i, spans.size()) && e < events.size() && events[e].segmentType.isValid())
            out.push_back(e);
    std::sort(out.begin(), out.end());
    // Each root's end event to the segment it closes: the segments closed by the events before it.
    std::uint32_t closed = 0;
    std::size_t next = 0;
    for (std::uint32_t e = 0; e < events.size() && next < out.size(); ++e) {
        while (next < out.size() && out[next] == e) out[next++] = closed;
        if (events[e].segmentType.isValid()) ++closed;
    }
}

namespace {

// A span's interval on the analysis clock, as recorded (an end before its start is the start).
std::pair<TimeNs, TimeNs> adjustedInterval(std::span<const EventRecord> events, const SpanRef& span, const ClockOffsets& offsets) {
    const EventRecord& first = events[span.startEvent];
    const EventRecord& last = events[span.endEvent];
    const TimeNs start = offsets.adjusted(first.host, first.localNs);
    return {start, std::max(start, offsets.adjusted(last.host, last.localNs))};
}

bool placed(std::span<const EventRecord> events, std::span<const SpanRef> spans) {
    for (const SpanRef& s : spans)
        if (s.startEvent >= events.size() || s.endEvent >= events.size()) return false;
    return true;
}

} // namespace

bool spanTimings(std::span<const EventRecord> events, std::span<const SpanRef> spans, const ClockOffsets& offsets,
                 std::vector<SpanTiming>& out) {
    if (!placed(events, spans)) return false;
    out.resize(spans.size());
    for (std::size_t i = 0; i < spans.size(); ++i) {
        const auto [start, end] = adjustedInterval(events, spans[i], offsets);
        out[i] = {spans[i].parent, start, end, spans[i].wait};
    }
    return true;
}

RequestSpan requestWindow(const TraceData& data, std::size_t row, const ClockOffsets& offsets, std::vector<SegmentInstance>& segments) {
    const auto events = data.eventsOf(row);
    const RequestSpan whole = buildSegments(events, offsets, segments);
    const auto spans = data.spansOf(row);
    if (spans.empty()) return whole;
    return rootsExtent(events, spans, offsets).value_or(whole);
}

std::optional<RequestSpan> rootsExtent(std::span<const EventRecord> events, std::span<const SpanRef> spans, const ClockOffsets& offsets) {
    if (!placed(events, spans)) return std::nullopt;
    std::optional<RequestSpan> roots;
    for (std::size_t i = 0; i < spans.size(); ++i) {
        if (!isSpanRoot(spans[i].parent, i, spans.size())) continue;
        const auto [start, end] = adjustedInterval(events, spans[i], offsets);
        roots = roots ? RequestSpan{std::min(roots->startNs, start), std::max(roots->endNs, end)} : RequestSpan{start, end};
    }
    return roots;
}

bool spanRequestCriticalPath(const RequestDag& dag, std::span<const EventRecord> events, std::span<const SpanRef> spans,
                             const ClockOffsets& offsets, CriticalPath& out, SpanRequestPathScratch& scratch) {
    if (spans.empty() || !spanTimings(events, spans, offsets, scratch.timings)) return false;
    const auto& segments = dag.segments;
    eventTimes(events, segments, offsets, scratch.eventNs);
    const SpanTreeCriticalPath path = spanTreeCriticalPath(scratch.timings);
    scratch.endNs = path.endNs;

    segmentOwners(events, spans, segments.size(), scratch.owner, scratch);
    // The segments that end the roots, where the slack ends.
    rootEndSegments(events, spans, scratch.rootEnds);
    // Each span's own segments, in time order (a task's segments are in event order, their times never
    // going back).
    const Grouping owned = Grouping::ofIndices(spans.size(), segments.size(), [&](std::size_t v) { return scratch.owner[v]; });

    out.segments.clear();
    out.clips.clear();
    out.blind.clear();
    out.entrySpan.clear();
    out.async.clear();
    out.async.assign(path.async.begin(), path.async.end());
    out.latencyNs = path.latencyNs();
    TimeNs covered = 0;
    auto blind = [&](TimeNs from, TimeNs to) {
        if (to <= from) return;
        if (!out.blind.empty() && out.blind.back().startNs + out.blind.back().durationNs == from) out.blind.back().durationNs += to - from;
        else out.blind.push_back({from, to - from});
    };
    for (const auto& section : path.sections) {
        if (section.endNs <= section.startNs) continue;
        if (section.span < 0) {
            blind(section.startNs, section.endNs);
            continue;
        }
        const auto own = owned.of(static_cast<std::size_t>(section.span));
        const auto last = own.end();
        auto it = std::partition_point(own.begin(), last, [&](std::uint32_t v) { return segments[v].endNs <= section.startNs; });
        TimeNs cursor = section.startNs;
        for (; it != last && segments[*it].startNs < section.endNs; ++it) {
            const SegmentInstance& seg = segments[*it];
            const TimeNs from = std::max(seg.startNs, section.startNs), to = std::min(seg.endNs, section.endNs);
            if (to <= from) continue;
            blind(cursor, from);
            if (from != seg.startNs || to != seg.endNs)
                out.clips.push_back({static_cast<std::uint32_t>(out.segments.size()), from, to});
            out.segments.push_back(*it);
            out.entrySpan.push_back(section.span);
            covered += to - from;
            cursor = to;
        }
        blind(cursor, section.endNs);
    }
    out.blindNs = out.latencyNs - covered;
    return true;
}

} // namespace tracelight
