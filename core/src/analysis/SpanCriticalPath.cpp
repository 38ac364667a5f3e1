#include "tracelight/analysis/SpanCriticalPath.h"

#include "tracelight/base/Grouping.h"

#include <algorithm>
#include <string>
#include <functional>
#include <string_view>

namespace tracelight {

std::vector<std::int32_t> segmentSpans(std::span<const std::uint32_t> segmentTask, std::size_t taskCount,
                                       const std::function<std::string_view(std::uint32_t)>& taskName, std::span<const SpanShape> spans) {
    const std::size_t n = spans.size(), segCount = segmentTask.size();
    std::vector<std::int32_t> owner(segCount, -1);
    // Spans by task, as ranges of segment ranks: [startOrd-1, endOrd-1) (segment k joins events k+1, k+2).
    // A task is found by the hash of its name: spans sorted by (hash, start, widest first), a task's spans
    // one run of them, each checked against the name (a collision falls out there).
    std::string spelt;
    auto taskHash = [&spelt](const SpanShape& span) {
        assignOccurrenceName(spelt, span.task, span.taskOccurrence);
        return std::hash<std::string_view>{}(spelt);
    };
    std::vector<std::pair<std::size_t, std::uint32_t>> byTask(n);  // (hash of the task's name, span)
    for (std::size_t i = 0; i < n; ++i) byTask[i] = {taskHash(spans[i]), static_cast<std::uint32_t>(i)};
    // Within a task the spans nest (a joined server inside its client): walking its segments in order
    // with a stack of the spans open around them finds each one's innermost span in linear time.
    std::sort(byTask.begin(), byTask.end(), [&](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first < b.first;
        const SpanShape &x = spans[a.second], &y = spans[b.second];
        if (x.startOrd != y.startOrd) return x.startOrd < y.startOrd;
        return x.endOrd != y.endOrd ? x.endOrd > y.endOrd : a.second < b.second;
    });
    // The rank of each segment within its task, in the canonical order (a task's segments in event order).
    std::vector<std::int64_t> rank(segCount, 0);
    {
        std::vector<std::int64_t> next(taskCount, 0);
        for (std::size_t s = 0; s < segCount; ++s)
            if (segmentTask[s] < taskCount) rank[s] = next[segmentTask[s]]++;
    }
    std::uint32_t currentTask = 0xFFFFFFFFu;
    std::vector<std::uint32_t> list;  // the current task's spans, in the order above
    std::size_t next = 0;
    std::vector<std::uint32_t> open;
    for (std::size_t s = 0; s < segCount; ++s) {
        const std::uint32_t t = segmentTask[s];
        if (t != currentTask) {
            currentTask = t;
            list.clear();
            if (t < taskCount) {
                const std::string_view name = taskName(t);
                const std::size_t hash = std::hash<std::string_view>{}(name);
                auto it = std::lower_bound(byTask.begin(), byTask.end(), hash, [](const auto& e, std::size_t h) { return e.first < h; });
                for (; it != byTask.end() && it->first == hash; ++it) {
                    assignOccurrenceName(spelt, spans[it->second].task, spans[it->second].taskOccurrence);
                    if (spelt == name) list.push_back(it->second);
                }
            }
            next = 0;
            open.clear();
        }
        if (list.empty()) continue;
        const std::int64_t from = rank[s] + 1, to = rank[s] + 2;  // its events' ords
        while (next < list.size() && spans[list[next]].startOrd <= from) open.push_back(list[next++]);
        while (!open.empty() && spans[open.back()].endOrd < to) open.pop_back();
        if (!open.empty() && spans[open.back()].startOrd <= from) owner[s] = static_cast<std::int32_t>(open.back());
    }
    return owner;
}

SpanCriticalPath spanCriticalPath(const RequestDetail& detail, std::span<const SpanShape> spans) {
    const RequestDag& dag = detail.dag;
    const CriticalPath& criticalPath = detail.criticalPath;
    SpanCriticalPath out;
    const std::size_t n = spans.size();
    out.times.spans.resize(n);
    const std::size_t segCount = dag.segments.size();
    out.segmentSpan = segmentSpans(detail.segmentTask, detail.taskCount(), [&](std::uint32_t task) { return detail.task(task); }, spans);
    out.segmentSpan.resize(segCount, -1);
    out.criticalNetwork.assign(segCount, false);

    // A million-span trace has a million spans and as many tasks: the lists below are flat arrays (a list
    // per span and a map from task name to spans held a quarter of a gigabyte while the tree was read).
    // Self time: duration minus the union of the children's intervals clipped to the span.
    {
        const Grouping children = Grouping::ofIndices(n, n, [&](std::size_t i) -> std::int64_t {
            return spans[i].parent >= 0 && static_cast<std::size_t>(spans[i].parent) < n ? spans[i].parent : -1;
        });
        std::vector<std::pair<TimeNs, TimeNs>> kids;  // one span's children's intervals, in time order
        for (std::size_t i = 0; i < n; ++i) {
            const TimeNs s = spans[i].startNs, e = spans[i].endNs;
            kids.clear();
            for (auto c : children.of(i)) kids.emplace_back(spans[c].startNs, spans[c].endNs);
            std::sort(kids.begin(), kids.end());
            TimeNs covered = 0, cursor = s;
            for (auto it = kids.begin(); it != kids.end(); ++it) {
                const TimeNs a = std::max(it->first, cursor), b = std::min(it->second, e);
                if (b > a) {
                    covered += b - a;
                    cursor = b;
                }
            }
            out.times.spans[i].selfNs = std::max<TimeNs>(0, (e - s) - covered);
        }
    }

    // The critical segments by owning span, counted then placed, then each span's sorted and merged where
    // they touch (a span's consecutive segments on the path) and moved down over the merged ones' places.
    SpanCriticalTimes& times = out.times;
    times.intervalBegin.assign(n + 1, 0);
    // Each entry's part on the path (a span request's path may cut a segment at its parent's end).
    std::vector<std::uint32_t> valid;
    valid.reserve(criticalPath.segments.size());
    for (auto s : criticalPath.segments)
        if (s < segCount) valid.push_back(s);
    const bool allValid = valid.size() == criticalPath.segments.size();
    const std::span<const PathClip> clips = allValid ? std::span<const PathClip>(criticalPath.clips) : std::span<const PathClip>();
    auto eachPart = [&](auto&& f) { forEachPathPart(dag.segments, valid, clips, f); };
    eachPart([&](std::uint32_t s, TimeNs from, TimeNs to) {
        const SegmentInstance& seg = dag.segments[s];
        out.criticalNs += to - from;
        if (seg.network) out.criticalNetwork[s] = true;
        const std::int32_t owner = out.segmentSpan[s];
        if (owner < 0) return;
        SpanCriticalTime& t = times.spans[static_cast<std::size_t>(owner)];
        t.criticalNs += to - from;
        if (seg.network) t.networkNs += to - from;
        ++times.intervalBegin[static_cast<std::size_t>(owner) + 1];
    });
    for (std::size_t i = 0; i < n; ++i) times.intervalBegin[i + 1] += times.intervalBegin[i];
    times.intervals.resize(times.intervalBegin[n]);
    {
        std::vector<std::uint32_t> fill(times.intervalBegin.begin(), times.intervalBegin.end() - 1);
        eachPart([&](std::uint32_t s, TimeNs from, TimeNs to) {
            if (out.segmentSpan[s] >= 0) times.intervals[fill[static_cast<std::size_t>(out.segmentSpan[s])]++] = {from, to};
        });
    }
    std::uint32_t kept = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const auto first = times.intervals.begin() + times.intervalBegin[i], last = times.intervals.begin() + times.intervalBegin[i + 1];
        std::sort(first, last);
        const std::uint32_t begin = kept;
        for (auto it = first; it != last; ++it) {
            if (kept > begin && times.intervals[kept - 1].second >= it->first)
                times.intervals[kept - 1].second = std::max(times.intervals[kept - 1].second, it->second);
            else times.intervals[kept++] = *it;
        }
        times.intervalBegin[i] = begin;
    }
    times.intervalBegin[n] = kept;
    times.intervals.resize(kept);
    return out;
}

} // namespace tracelight
