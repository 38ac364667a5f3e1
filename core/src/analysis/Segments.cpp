#include "tracelight/analysis/Segments.h"

#include <algorithm>

namespace tracelight {

RequestSpan buildSegments(std::span<const EventRecord> events, const ClockOffsets& offsets,
                          std::vector<SegmentInstance>& out) {
    out.clear();
    RequestSpan span;
    if (events.empty()) return span;
    span.startNs = span.endNs = offsets.adjusted(events[0].host, events[0].localNs);
    TimeNs previous = span.startNs;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const EventRecord& e = events[i];
        const TimeNs t = offsets.adjusted(e.host, e.localNs);
        span.startNs = std::min(span.startNs, t);
        span.endNs = std::max(span.endNs, t);
        if (e.segmentType.isValid())
            out.push_back({e.segmentType, previous, t, e.task, events[i - 1].host != e.host});
        previous = t;
    }
    return span;
}

} // namespace tracelight
