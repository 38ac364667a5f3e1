#include "tracelight/analysis/Segments.h"

#include <algorithm>

namespace tracelight {

RequestSpan buildSegments(std::span<const EventRecord> events, const ClockOffsets& offsets,
                          std::vector<SegmentInstance>& out) {
    out.clear();
    RequestSpan span;
    if (events.empty()) return span;
    // No copies while a large request grows the list: at most one segment per event after the first, and a
    // large request is counted exactly (a million-span trace has a fifth fewer segments than events: 17 MB).
    constexpr std::size_t kCountFrom = std::size_t(1) << 16;
    out.reserve(events.size() < kCountFrom ? events.size() - 1
                                           : static_cast<std::size_t>(std::count_if(events.begin(), events.end(), [](const EventRecord& e) {
                                                 return e.segmentType.isValid();
                                             })));
    span.startNs = span.endNs = offsets.adjusted(events[0].host, events[0].localNs);
    TimeNs previous = span.startNs;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const EventRecord& e = events[i];
        TimeNs t = offsets.adjusted(e.host, e.localNs);
        // A task's events happen in its order: on clocks still skewed (a server a little ahead of its
        // client) the later event is held at the earlier one, so no segment runs backwards and the
        // graph's time order stays a topological order.
        if (e.segmentType.isValid()) t = std::max(t, previous);
        span.startNs = std::min(span.startNs, t);
        span.endNs = std::max(span.endNs, t);
        if (e.segmentType.isValid())
            out.push_back({e.segmentType, previous, t, e.task, events[i - 1].host != e.host});
        previous = t;
    }
    return span;
}

} // namespace tracelight
