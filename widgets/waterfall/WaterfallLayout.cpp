#include "waterfall/WaterfallLayout.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

namespace tracelight::widgets {

WaterfallLayout WaterfallLayout::build(const RequestDetail& d, bool localClocks) {
    WaterfallLayout layout;
    const std::size_t n = d.dag.segments.size();
    layout.startUs.resize(n);
    layout.endUs.resize(n);
    // Core's nanoseconds become the view's own axis: microseconds from the request's first event.
    TimeNs origin = d.dag.startNs;
    if (localClocks) {
        origin = n ? d.localStartNs[0] : 0;
        for (std::size_t s = 0; s < n; ++s) origin = std::min(origin, d.localStartNs[s]);
    }
    double last = 0;
    for (std::size_t s = 0; s < n; ++s) {
        layout.startUs[s] = nsToUs((localClocks ? d.localStartNs[s] : d.dag.segments[s].startNs) - origin);
        layout.endUs[s] = nsToUs((localClocks ? d.localEndNs[s] : d.dag.segments[s].endNs) - origin);
        last = std::max(last, layout.endUs[s]);
    }
    layout.spanUs = localClocks ? last : nsToUs(d.dag.endNs - d.dag.startNs);

    layout.rows.push_back({WaterfallRow::CriticalPath, QStringLiteral("Critical path"), -1, -1, {}});
    // Hosts in order of first appearance; under each, the tasks that run there in order of appearance.
    // A task runs on one host or two (a span's call and its return on the caller's), so each task keeps
    // its first two (host, row) pairs in place and only a third host goes to a map: a million tasks, three
    // million segments, no hashing per segment (a list search per segment was quadratic, minutes for a
    // root with a million children).
    struct TaskRows {
        int host[2] = {-1, -1};
        int row[2] = {-1, -1};
    };
    std::vector<TaskRows> taskRows(d.tasks.size());
    auto key = [](int host, int task) { return (std::uint64_t(std::uint32_t(host)) << 32) | std::uint32_t(task); };
    std::unordered_map<std::uint64_t, int> moreRows;  // (host, task) beyond a task's first two hosts -> row
    // The row of (host, task), -1 until rows are made; `fresh` tells whether the pair is new.
    auto rowSlot = [&](int host, int task, bool* fresh = nullptr) -> int& {
        TaskRows& t = taskRows[static_cast<std::size_t>(task)];
        for (int k = 0; k < 2; ++k) {
            if (t.host[k] == host) return t.row[k];
            if (t.host[k] < 0) {
                t.host[k] = host;
                if (fresh) *fresh = true;
                return t.row[k];
            }
        }
        auto [it, isNew] = moreRows.try_emplace(key(host, task), -1);
        if (fresh) *fresh = isNew;
        return it->second;
    };
    std::vector<std::vector<int>> tasksOnHost(d.hosts.size());
    auto noteTask = [&](int host, int task) {
        bool fresh = false;
        rowSlot(host, task, &fresh);
        if (fresh) tasksOnHost[static_cast<std::size_t>(host)].push_back(task);
    };
    for (std::size_t s = 0; s < n; ++s) {
        noteTask(static_cast<int>(d.segmentStartHost[s]), static_cast<int>(d.segmentTask[s]));
        noteTask(static_cast<int>(d.segmentEndHost[s]), static_cast<int>(d.segmentTask[s]));
    }
    for (std::size_t h = 0; h < d.hosts.size(); ++h) {
        if (tasksOnHost[h].empty()) continue;
        layout.rows.push_back({WaterfallRow::Host, QString::fromStdString(d.hosts[h]), static_cast<int>(h), -1, {}});
        for (int task : tasksOnHost[h]) {
            rowSlot(static_cast<int>(h), task) = static_cast<int>(layout.rows.size());
            layout.rows.push_back({WaterfallRow::Task, QString::fromStdString(d.tasks[static_cast<std::size_t>(task)]),
                                   static_cast<int>(h), task, {}});
        }
    }
    layout.fromRow.resize(n);
    layout.toRow.resize(n);
    for (std::size_t s = 0; s < n; ++s) {
        const int task = static_cast<int>(d.segmentTask[s]);
        layout.fromRow[s] = rowSlot(static_cast<int>(d.segmentStartHost[s]), task);
        layout.toRow[s] = rowSlot(static_cast<int>(d.segmentEndHost[s]), task);
        if (d.segmentStartHost[s] == d.segmentEndHost[s]) layout.rows[static_cast<std::size_t>(layout.fromRow[s])].segments.push_back(static_cast<int>(s));
        else layout.networkByStart.push_back(static_cast<int>(s));
    }
    auto byStart = [&](int a, int b) { return layout.startUs[a] < layout.startUs[b]; };
    for (auto& row : layout.rows) std::sort(row.segments.begin(), row.segments.end(), byStart);
    std::sort(layout.networkByStart.begin(), layout.networkByStart.end(), byStart);
    // The critical-path row repeats the path's segments in order.
    layout.rows[0].segments.assign(d.criticalPath.segments.begin(), d.criticalPath.segments.end());
    std::sort(layout.rows[0].segments.begin(), layout.rows[0].segments.end(), byStart);
    return layout;
}

} // namespace tracelight::widgets
