#pragma once
// The critical path of one request: from the segment that ends last, back through each segment's
// last-arriving dependency. Its segments plus the blind time (waits no segment covers) add up to the
// end-to-end latency exactly; blind time is reported with where it sits, never dropped.
#include <cstdint>
#include <span>
#include <vector>

#include "tracelight/analysis/RequestDag.h"
#include "tracelight/analysis/SpanTreeCriticalPath.h"  // SpanPart

namespace tracelight {

struct BlindInterval {
    TimeNs startNs;     // adjusted time
    TimeNs durationNs;
};

// An entry of a path that only part of its segment lies on (a span request's child cut at its parent's end).
struct PathClip {
    std::uint32_t entry;  // index into CriticalPath::segments
    TimeNs startNs, endNs;
};

struct CriticalPath {
    TimeNs latencyNs = 0;
    TimeNs blindNs = 0;
    std::vector<std::uint32_t> segments;  // indices into RequestDag::segments, first to last
    std::vector<BlindInterval> blind;
    std::vector<PathClip> clips;          // by entry; every other entry is its whole segment
    // Span requests only (event logs leave both empty): each entry's span (index in the request's spans),
    // and the work the caller did not wait for, by span, each span's parts in time order.
    std::vector<std::int32_t> entrySpan;
    std::vector<SpanPart> async;
};

// Each entry k of a path of `count` entries with its clip: null where the entry is its whole segment.
template <typename F>
void forEachPathEntry(std::size_t count, std::span<const PathClip> clips, F&& f) {
    std::size_t c = 0;
    for (std::size_t k = 0; k < count; ++k) {
        const bool clipped = c < clips.size() && clips[c].entry == k;
        f(k, clipped ? &clips[c++] : static_cast<const PathClip*>(nullptr));
    }
}

// Each entry of a path as (segment, start, end): the part of the segment on the path.
template <typename F>
void forEachPathPart(std::span<const SegmentInstance> segments, std::span<const std::uint32_t> path, std::span<const PathClip> clips,
                     F&& f) {
    forEachPathEntry(path.size(), clips, [&](std::size_t k, const PathClip* clip) {
        const SegmentInstance& s = segments[path[k]];
        f(path[k], clip ? clip->startNs : s.startNs, clip ? clip->endNs : s.endNs);
    });
}

// The dependency of segment v that finished last, or -1. Ties: a known link (a span child's return),
// then the task's own previous segment, then inferred relations.
int lastArrivingDependency(const RequestDag& dag, std::uint32_t v);

CriticalPath computeCriticalPath(const RequestDag& dag);
// The same into `out`, reusing its memory (a pass over many requests).
void computeCriticalPath(const RequestDag& dag, CriticalPath& out);

} // namespace tracelight
