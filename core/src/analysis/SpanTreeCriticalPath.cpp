#include "tracelight/analysis/SpanTreeCriticalPath.h"

#include <algorithm>

#include "tracelight/base/Grouping.h"

namespace tracelight {

namespace {

// Siblings that overlap by less than this share of their parent's duration, with nothing else of the
// parent starting or ending in the overlap, are sequential calls whose timestamps jitter (CRISP's rule):
// the earlier one is on the path up to where the later one started. Jaeger UI would give its time to the
// parent instead, charging a callee's work to its caller.
constexpr double kJitterShare = 0.01;

struct Clipped {
    TimeNs startNs = 0, endNs = 0;  // within what its parent waited for
    bool onTree = false;            // reached from a root and not asynchronous
};

} // namespace

SpanTreeCriticalPath spanTreeCriticalPath(std::span<const SpanTiming> spans) {
    SpanTreeCriticalPath out;
    const std::size_t n = spans.size();
    if (n == 0) return out;
    // Span n stands for the request: every root is its child.
    const std::size_t top = n;
    const Grouping children = Grouping::ofIndices(n + 1, n, [&](std::size_t i) -> std::int64_t {
        return isSpanRoot(spans[i].parent, i, n) ? static_cast<std::int64_t>(top) : spans[i].parent;
    });
    std::vector<Clipped> clipped(n + 1);
    bool anyRoot = false;
    for (auto r : children.of(top)) {
        const SpanTiming& s = spans[r];
        out.startNs = anyRoot ? std::min(out.startNs, s.startNs) : s.startNs;
        out.endNs = anyRoot ? std::max(out.endNs, s.endNs) : s.endNs;
        anyRoot = true;
    }
    clipped[top] = {out.startNs, out.endNs, true};

    // Top down: each child clipped to what its parent waited for; what lies outside is asynchronous.
    std::vector<std::uint32_t> stack(1, static_cast<std::uint32_t>(top));
    std::vector<bool> reached(n + 1, false);
    reached[top] = true;
    while (!stack.empty()) {
        const std::size_t p = stack.back();
        stack.pop_back();
        const Clipped parent = clipped[p];
        for (auto c : children.of(p)) {
            reached[c] = true;
            stack.push_back(c);
            const SpanTiming& s = spans[c];
            const bool instant = s.startNs == s.endNs && s.startNs >= parent.startNs && s.startNs <= parent.endNs;
            const bool outside = !instant && (s.endNs <= parent.startNs || s.startNs >= parent.endNs);
            const bool detached = s.wait == SpanWait::Detached && p != top;  // a root is what the caller waited for
            if (!parent.onTree || detached || outside) {
                if (s.endNs > s.startNs) out.async.push_back({static_cast<std::int32_t>(c), s.startNs, s.endNs});
                continue;
            }
            clipped[c] = {std::max(s.startNs, parent.startNs), std::min(s.endNs, parent.endNs), true};
            if (s.startNs < parent.startNs) out.async.push_back({static_cast<std::int32_t>(c), s.startNs, parent.startNs});
            if (s.endNs > parent.endNs) out.async.push_back({static_cast<std::int32_t>(c), parent.endNs, s.endNs});
        }
    }
    // A span in a cycle of parents is reached from no root: asynchronous, whole.
    for (std::size_t i = 0; i < n; ++i)
        if (!reached[i] && spans[i].endNs > spans[i].startNs)
            out.async.push_back({static_cast<std::int32_t>(i), spans[i].startNs, spans[i].endNs});
    std::sort(out.async.begin(), out.async.end(), [](const auto& a, const auto& b) {
        return a.span != b.span ? a.span < b.span : a.startNs < b.startNs;
    });

    // Each parent's children on the tree: by end, latest first (ties: the earlier start, then the input
    // order), and their starts and ends in time order for the jitter rule's count.
    std::vector<std::uint32_t> byEnd, first(n + 2, 0);
    std::vector<TimeNs> startsSorted, endsSorted;
    byEnd.reserve(n);
    for (std::size_t p = 0; p <= n; ++p) {
        first[p] = static_cast<std::uint32_t>(byEnd.size());
        for (auto c : children.of(p))
            if (clipped[c].onTree) byEnd.push_back(c);
        const auto from = byEnd.begin() + first[p];
        std::sort(from, byEnd.end(), [&](std::uint32_t a, std::uint32_t b) {
            if (clipped[a].endNs != clipped[b].endNs) return clipped[a].endNs > clipped[b].endNs;
            if (clipped[a].startNs != clipped[b].startNs) return clipped[a].startNs < clipped[b].startNs;
            return a < b;
        });
    }
    first[n + 1] = static_cast<std::uint32_t>(byEnd.size());
    startsSorted.resize(byEnd.size());
    endsSorted.resize(byEnd.size());
    for (std::size_t p = 0; p <= n; ++p) {
        // byEnd holds the ends latest first: read backwards they are in time order already.
        for (auto k = first[p]; k < first[p + 1]; ++k) {
            startsSorted[k] = clipped[byEnd[k]].startNs;
            endsSorted[k] = clipped[byEnd[first[p] + first[p + 1] - 1 - k]].endNs;
        }
        std::sort(startsSorted.begin() + first[p], startsSorted.begin() + first[p + 1]);
    }
    // How many of p's children start or end within [from, to].
    const auto eventsWithin = [&](std::size_t p, TimeNs from, TimeNs to) {
        const auto count = [&](const std::vector<TimeNs>& times) {
            const auto b = times.begin() + first[p], e = times.begin() + first[p + 1];
            return std::upper_bound(b, e, to) - std::lower_bound(b, e, from);
        };
        return count(startsSorted) + count(endsSorted);
    };

    // Walk back from the request's end. A frame is a span being explained backwards from its cursor.
    struct Frame {
        std::uint32_t span;
        TimeNs cursor;
        std::uint32_t next;  // its next child to consider, in byEnd order
    };
    std::vector<Frame> frames(1, Frame{static_cast<std::uint32_t>(top), out.endNs, first[top]});
    const auto emit = [&](std::size_t span, TimeNs from, TimeNs to) {
        if (to <= from) return;
        const auto id = span == top ? -1 : static_cast<std::int32_t>(span);
        if (!out.sections.empty() && out.sections.back().span == id && out.sections.back().startNs == to) out.sections.back().startNs = from;
        else out.sections.push_back({id, from, to});
    };
    while (!frames.empty()) {
        Frame& f = frames.back();
        const std::size_t p = f.span;
        const Clipped& parent = clipped[p];
        int taken = -1;
        TimeNs takenEnd = 0;
        for (; f.next < first[p + 1]; ++f.next) {
            const std::uint32_t c = byEnd[f.next];
            const Clipped& child = clipped[c];
            if (child.endNs <= f.cursor) {
                taken = static_cast<int>(c);
                takenEnd = child.endNs;
                break;
            }
            // Ends after the cursor (the start of the sibling just walked): jitter, or a concurrent call.
            const bool jitter = child.startNs < f.cursor && p != top &&
                                double(child.endNs - f.cursor) < kJitterShare * double(parent.endNs - parent.startNs) &&
                                eventsWithin(p, f.cursor, child.endNs) == 2;
            if (jitter) {
                taken = static_cast<int>(c);
                takenEnd = f.cursor;
                break;
            }
        }
        if (taken < 0) {
            emit(p, parent.startNs, f.cursor);
            frames.pop_back();
            continue;
        }
        ++f.next;
        emit(p, takenEnd, f.cursor);
        f.cursor = clipped[static_cast<std::size_t>(taken)].startNs;
        frames.push_back({static_cast<std::uint32_t>(taken), takenEnd, first[static_cast<std::size_t>(taken)]});
    }
    std::reverse(out.sections.begin(), out.sections.end());
    return out;
}

std::vector<TimeNs> criticalTimeBySpan(const SpanTreeCriticalPath& path, std::size_t spanCount) {
    std::vector<TimeNs> out(spanCount, 0);
    for (const auto& s : path.sections)
        if (s.span >= 0 && static_cast<std::size_t>(s.span) < spanCount) out[static_cast<std::size_t>(s.span)] += s.endNs - s.startNs;
    return out;
}

} // namespace tracelight
