#include "tracelight/analysis/SpanCriticalPath.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

namespace tracelight {

SpanCriticalPath spanCriticalPath(const RequestDetail& detail, std::span<const SpanShape> spans) {
    return spanCriticalPath(detail.dag, detail.criticalPath, detail.segmentTask, detail.taskCount(),
                            [&](std::uint32_t task) { return detail.task(task); }, spans);
}

SpanCriticalPath spanCriticalPath(const RequestDag& dag, const CriticalPath& criticalPath, std::span<const std::uint32_t> segmentTask,
                                  std::size_t taskCount, const std::function<std::string_view(std::uint32_t)>& taskName,
                                  std::span<const SpanShape> spans) {
    SpanCriticalPath out;
    const std::size_t n = spans.size();
    out.spans.resize(n);
    const std::size_t segCount = dag.segments.size();
    out.segmentSpan.assign(segCount, -1);
    out.criticalNetwork.assign(segCount, false);

    // Self time: duration minus the union of the children's intervals clipped to the span.
    {
        std::vector<std::vector<std::pair<TimeNs, TimeNs>>> kids(n);
        for (std::size_t i = 0; i < n; ++i)
            if (spans[i].parent >= 0 && static_cast<std::size_t>(spans[i].parent) < n)
                kids[static_cast<std::size_t>(spans[i].parent)].emplace_back(spans[i].startNs, spans[i].endNs);
        for (std::size_t i = 0; i < n; ++i) {
            const TimeNs s = spans[i].startNs, e = spans[i].endNs;
            auto& k = kids[i];
            std::sort(k.begin(), k.end());
            TimeNs covered = 0, cursor = s;
            for (auto [a, b] : k) {
                a = std::max(a, cursor);
                b = std::min(b, e);
                if (b > a) {
                    covered += b - a;
                    cursor = b;
                }
            }
            out.spans[i].selfNs = std::max<TimeNs>(0, (e - s) - covered);
        }
    }

    // Spans by task, as ranges of segment ranks: [startOrd-1, endOrd-1) (segment k joins events k+1, k+2).
    std::unordered_map<std::string, std::vector<std::size_t>> byTask;
    for (std::size_t i = 0; i < n; ++i) byTask[spans[i].taskName()].push_back(i);
    // The rank of each segment within its task, in the canonical order (a task's segments in event order).
    std::vector<std::int64_t> rank(segCount, 0);
    {
        std::unordered_map<std::uint32_t, std::int64_t> next;
        for (std::size_t s = 0; s < segCount && s < segmentTask.size(); ++s) rank[s] = next[segmentTask[s]]++;
    }
    // Within a task the spans nest (a joined server inside its client): walking its segments in order
    // with a stack of the spans open around them finds each one's innermost span in linear time.
    for (auto& [task, list] : byTask)
        std::sort(list.begin(), list.end(), [&](auto a, auto b) {
            return spans[a].startOrd != spans[b].startOrd ? spans[a].startOrd < spans[b].startOrd : spans[a].endOrd > spans[b].endOrd;
        });
    std::uint32_t currentTask = 0xFFFFFFFFu;
    const std::vector<std::size_t>* list = nullptr;
    std::size_t next = 0;
    std::vector<std::size_t> open;
    for (std::size_t s = 0; s < segCount && s < segmentTask.size(); ++s) {
        const std::uint32_t t = segmentTask[s];
        if (t != currentTask) {
            currentTask = t;
            auto it = t < taskCount ? byTask.find(std::string(taskName(t))) : byTask.end();
            list = it == byTask.end() ? nullptr : &it->second;
            next = 0;
            open.clear();
        }
        if (!list) continue;
        const std::int64_t from = rank[s] + 1, to = rank[s] + 2;  // its events' ords
        while (next < list->size() && spans[(*list)[next]].startOrd <= from) open.push_back((*list)[next++]);
        while (!open.empty() && spans[open.back()].endOrd < to) open.pop_back();
        if (!open.empty() && spans[open.back()].startOrd <= from) out.segmentSpan[s] = static_cast<std::int32_t>(open.back());
    }
    for (auto s : criticalPath.segments) {
        if (s >= segCount) continue;
        const SegmentInstance& seg = dag.segments[s];
        out.criticalNs += seg.durationNs();
        if (seg.network) out.criticalNetwork[s] = true;
        const std::int32_t owner = out.segmentSpan[s];
        if (owner < 0) continue;
        SpanCriticalTime& t = out.spans[static_cast<std::size_t>(owner)];
        t.criticalNs += seg.durationNs();
        if (seg.network) t.networkNs += seg.durationNs();
        if (!t.criticalIntervals.empty() && t.criticalIntervals.back().second == seg.startNs) t.criticalIntervals.back().second = seg.endNs;
        else t.criticalIntervals.emplace_back(seg.startNs, seg.endNs);
    }
    for (auto& t : out.spans) std::sort(t.criticalIntervals.begin(), t.criticalIntervals.end());
    return out;
}

} // namespace tracelight
