#pragma once
// The critical path told per span (issue 11's span-tree waterfall): which part of each span's own time
// lies on the request's critical path, its self time (own time minus its children), and which critical
// segments are network trips. Computed in core from a request's analysed detail and its span records;
// views only draw it.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/store/SpanRecords.h"

namespace tracelight {

struct SpanCriticalTime {
    TimeNs selfNs = 0;      // its duration minus the union of its children's intervals (as recorded)
    TimeNs criticalNs = 0;  // its own segments' time on the critical path (not its children's)
    TimeNs networkNs = 0;   // of that, network segments (a client's trip out to its server and back)
};

// Every span's times, and the critical parts of its own time on the request's adjusted clock, all spans'
// parts in one array (a list per span cost a million allocations on a million-span trace).
struct SpanCriticalTimes {
    using Interval = std::pair<TimeNs, TimeNs>;
    std::vector<SpanCriticalTime> spans;  // by span index
    std::vector<Interval> intervals;      // grouped by span, each span's in time order, touching or overlapping parts merged
    std::vector<std::uint32_t> intervalBegin;  // span i's parts: intervals[intervalBegin[i], intervalBegin[i + 1])

    std::span<const Interval> criticalIntervals(std::size_t span) const {
        if (span + 1 >= intervalBegin.size()) return {};
        return std::span<const Interval>(intervals).subspan(intervalBegin[span], intervalBegin[span + 1] - intervalBegin[span]);
    }
    std::span<Interval> criticalIntervals(std::size_t span) {
        if (span + 1 >= intervalBegin.size()) return {};
        return std::span<Interval>(intervals).subspan(intervalBegin[span], intervalBegin[span + 1] - intervalBegin[span]);
    }
};

struct SpanCriticalPath {
    SpanCriticalTimes times;
    // Per segment of the request's DAG: the span whose own time it is (-1: none), and whether it is a
    // network segment on the critical path.
    std::vector<std::int32_t> segmentSpan;
    std::vector<bool> criticalNetwork;
    TimeNs criticalNs = 0;  // the critical path's segments in total (latency minus blind time)
};

// A segment belongs to the innermost span whose start and end events (task, startOrd..endOrd) enclose
// both of its events. Segments are numbered within their task in event order; span imports number a
// task's events 1, 2, 3, ... so the k-th segment of a task runs from event k to event k+1.
SpanCriticalPath spanCriticalPath(const RequestDetail& detail, std::span<const SpanShape> spans);
// Only which span each segment belongs to (-1: none), for a pass that needs no per-span times (the
// profile): segmentTask numbers the segments' tasks below taskCount, and taskName gives a task's name as
// the spans' `task` fields spell it.
std::vector<std::int32_t> segmentSpans(std::span<const std::uint32_t> segmentTask, std::size_t taskCount,
                                       const std::function<std::string_view(std::uint32_t)>& taskName, std::span<const SpanShape> spans);

} // namespace tracelight
