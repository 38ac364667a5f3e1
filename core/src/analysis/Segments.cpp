#include "tracelight/analysis/Segments.h"

#include <algorithm>

namespace tracelight {

RequestSpan buildSegments(std::span<const EventRecord> events, const ClockOffsets& offsets,
                          std::vector<SegmentInstance>& out) {
    out.clear();
    RequestSpan span;
    if (events.empty()) return span;
    span.startUs = span.endUs = offsets.adjusted(events[0].host, events[0].localUs);
    double previous = span.startUs;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const EventRecord& e = events[i];
        const double t = offsets.adjusted(e.host, e.localUs);
        span.startUs = std::min(span.startUs, t);
        span.endUs = std::max(span.endUs, t);
        if (e.segmentType.isValid())
            out.push_back({e.segmentType, previous, t, e.task, events[i - 1].host != e.host});
        previous = t;
    }
    return span;
}

} // namespace tracelight
