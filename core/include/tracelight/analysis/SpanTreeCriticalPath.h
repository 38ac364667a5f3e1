#pragma once
// The critical path of a span trace as its caller sees it: what the root span's duration was spent
// waiting for. From each span's end the walk goes back through the child that finished last before the
// cursor, as Jaeger UI and CRISP do where the two agree. Work the caller did not wait for is
// asynchronous: a child that starts after its parent ended (or ends before it started), the parts of a
// child that run past its parent's end or before its start, and detached work (FOLLOWS_FROM, a consumer
// under its producer) with everything under it. It is reported apart, never on the path.
// docs/concepts/critical-path-and-slack.md gives the definition and where the two peers disagree.
#include <cstdint>
#include <span>
#include <vector>

#include "tracelight/base/Time.h"

namespace tracelight {

// How a span hangs from its parent: the parent waits for it (CHILD_OF), or it is detached work the
// parent only started (FOLLOWS_FROM, a consumer under its producer, a link).
enum class SpanWait : std::uint8_t { Waited, Detached };

// Whether span i of n, whose parent's index is `parent`, is a root: no parent, one out of range, or itself.
inline bool isSpanRoot(std::int32_t parent, std::size_t i, std::size_t n) {
    return parent < 0 || static_cast<std::size_t>(parent) >= n || static_cast<std::size_t>(parent) == i;
}

// A span's time between two instants on the analysis clock.
struct SpanPart {
    std::int32_t span;
    TimeNs startNs, endNs;
};

struct SpanTiming {
    std::int32_t parent = -1;       // its parent's index; -1, itself or out of range: a root
    TimeNs startNs = 0, endNs = 0;  // on the clock the path is wanted on (the analysis's adjusted one)
    SpanWait wait = SpanWait::Waited;
};

struct SpanTreeCriticalPath {
    // Its span: whose own time this is; -1: between roots, where no span ran (blind).
    using Section = SpanPart;
    TimeNs startNs = 0, endNs = 0;   // the request as its caller saw it: the earliest root start to the latest root end
    std::vector<Section> sections;   // in time order, tiling [startNs, endNs] with no gap and no overlap
    std::vector<Section> async;      // asynchronous work by span, each span's parts in time order

    TimeNs latencyNs() const { return endNs - startNs; }
};

// Linear in the spans after sorting each parent's children by their end; no recursion (a chain of a
// hundred thousand spans is walked in a loop).
SpanTreeCriticalPath spanTreeCriticalPath(std::span<const SpanTiming> spans);

// Each span's time on the path (its sections added up), by span index.
std::vector<TimeNs> criticalTimeBySpan(const SpanTreeCriticalPath& path, std::size_t spanCount);

} // namespace tracelight
