#include "waterfall/WaterfallLayout.h"

#include <algorithm>
#include <limits>
#include <cstdint>
#include <unordered_map>

#include "common/QtText.h"

namespace tracelight::widgets {

WaterfallLayout WaterfallLayout::build(const RequestDetail& d, bool localClocks) {
    WaterfallLayout layout;
    const std::size_t n = d.dag.segments.size();
    // Core's nanoseconds become the view's own axis: microseconds from the request's first event.
    layout.localClocks = localClocks;
    layout.originNs = d.dag.startNs;
    if (localClocks) {
        layout.originNs = n ? d.localStartNs[0] : 0;
        for (std::size_t s = 0; s < n; ++s) layout.originNs = std::min(layout.originNs, d.localStartNs[s]);
    }
    TimeNs last = layout.originNs;  // compared in nanoseconds, converted once
    for (std::size_t s = 0; s < n; ++s) last = std::max(last, layout.endNs(d, s));
    layout.spanUs = localClocks ? nsToUs(last - layout.originNs) : nsToUs(d.dag.endNs - d.dag.startNs);

    layout.rows.push_back({WaterfallRow::CriticalPath, -1, -1});
    // Hosts in order of first appearance; under each, the tasks that run there in order of appearance.
    // A task runs on one host or two (a span's call and its return on the caller's), so each task keeps
    // its first two (host, row) pairs in place and only a third host goes to a map: a million tasks, three
    // million segments, no hashing per segment (a list search per segment was quadratic, minutes for a
    // root with a million children).
    struct TaskRows {
        int host[2] = {-1, -1};
        int row[2] = {-1, -1};
    };
    std::vector<TaskRows> taskRows(d.taskCount());
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
        layout.rows.push_back({WaterfallRow::Host, static_cast<int>(h), -1});
        for (int task : tasksOnHost[h]) {
            rowSlot(static_cast<int>(h), task) = static_cast<int>(layout.rows.size());
            layout.rows.push_back({WaterfallRow::Task, static_cast<int>(h), task});
        }
    }
    layout.fromRow.resize(n);
    layout.toRow.resize(n);
    // Each row's same-host segments, counted into one array (row 0: the critical path's, in order).
    layout.rowBegin.assign(layout.rows.size() + 1, 0);
    layout.rowBegin[1] = static_cast<std::uint32_t>(d.criticalPath.segments.size());
    for (std::size_t s = 0; s < n; ++s) {
        const int task = static_cast<int>(d.segmentTask[s]);
        layout.fromRow[s] = rowSlot(static_cast<int>(d.segmentStartHost[s]), task);
        layout.toRow[s] = rowSlot(static_cast<int>(d.segmentEndHost[s]), task);
        if (d.segmentStartHost[s] == d.segmentEndHost[s]) ++layout.rowBegin[static_cast<std::size_t>(layout.fromRow[s]) + 1];
        else layout.networkByStart.push_back(static_cast<int>(s));
    }
    for (std::size_t r = 0; r < layout.rows.size(); ++r) layout.rowBegin[r + 1] += layout.rowBegin[r];
    layout.rowSegments.resize(layout.rowBegin.back());
    std::vector<std::uint32_t> fill(layout.rowBegin.begin(), layout.rowBegin.end() - 1);
    for (auto s : d.criticalPath.segments) layout.rowSegments[fill[0]++] = static_cast<int>(s);
    for (const PathClip& c : d.criticalPath.clips)
        if (c.entry < d.criticalPath.segments.size()) {
            const auto s = d.criticalPath.segments[c.entry];
            const TimeNs shift = layout.startNs(d, s) - d.dag.segments[s].startNs;  // the chosen clock's offset
            layout.criticalPart[static_cast<int>(s)] = {c.startNs + shift, c.endNs + shift};
        }
    for (std::size_t s = 0; s < n; ++s)
        if (d.segmentStartHost[s] == d.segmentEndHost[s]) layout.rowSegments[fill[static_cast<std::size_t>(layout.fromRow[s])]++] = static_cast<int>(s);
    auto byStart = [&](int a, int b) { return layout.startNs(d, static_cast<std::size_t>(a)) < layout.startNs(d, static_cast<std::size_t>(b)); };
    // A task's segments come in event order, nearly always time order, so most lists are sorted already:
    // checked first. A long list out of order (the network segments, by task) is sorted by its keys copied
    // beside the segments, not by looking each one's start up in the detail at every comparison.
    std::vector<std::pair<TimeNs, int>> keyed;
    auto sortByStart = [&](std::vector<int>::iterator first, std::vector<int>::iterator last) {
        if (std::is_sorted(first, last, byStart)) return;
        if (last - first < 256) return std::sort(first, last, byStart);
        keyed.clear();
        for (auto it = first; it != last; ++it) keyed.emplace_back(layout.startNs(d, static_cast<std::size_t>(*it)), *it);
        std::sort(keyed.begin(), keyed.end());
        for (const auto& [start, segment] : keyed) *first++ = segment;
    };
    for (std::size_t r = 0; r < layout.rows.size(); ++r)
        sortByStart(layout.rowSegments.begin() + layout.rowBegin[r], layout.rowSegments.begin() + layout.rowBegin[r + 1]);
    sortByStart(layout.networkByStart.begin(), layout.networkByStart.end());
    std::vector<std::pair<TimeNs, int>>().swap(keyed);
    layout.blockBegin.assign(layout.rows.size() + 1, 0);
    for (std::size_t r = 0; r < layout.rows.size(); ++r)
        layout.blockBegin[r + 1] = layout.blockBegin[r] + (layout.rowBegin[r + 1] - layout.rowBegin[r] + kBlock - 1) / kBlock;
    // In nanoseconds, each block's three figures converted once.
    const std::size_t blocks = layout.blockBegin.back();
    layout.blockLongestUs.reserve(blocks);
    layout.blockWidestGapUs.reserve(blocks);
    layout.blockLastEndUs.reserve(blocks);
    for (std::size_t r = 0; r < layout.rows.size(); ++r) {
        const auto segs = layout.segments(r);
        for (std::size_t first = 0; first < segs.size(); first += kBlock) {
            const std::size_t last = std::min(first + kBlock, segs.size());
            TimeNs longest = 0, widestGap = std::numeric_limits<TimeNs>::min(), lastEnd = std::numeric_limits<TimeNs>::min(), previousEnd = 0;
            for (std::size_t i = first; i < last; ++i) {
                const auto s = static_cast<std::size_t>(segs[i]);
                const TimeNs start = layout.startNs(d, s), end = layout.endNs(d, s);
                longest = std::max(longest, end - start);
                if (i > first) widestGap = std::max(widestGap, start - previousEnd);
                lastEnd = std::max(lastEnd, end);
                previousEnd = end;
            }
            layout.blockLongestUs.push_back(nsToUs(longest));
            // A block of one segment has no gap.
            layout.blockWidestGapUs.push_back(last - first > 1 ? nsToUs(widestGap) : -std::numeric_limits<double>::infinity());
            layout.blockLastEndUs.push_back(nsToUs(lastEnd - layout.originNs));
        }
    }
    return layout;
}

QString WaterfallLayout::label(const RequestDetail& d, const WaterfallRow& row) {
    switch (row.kind) {
    case WaterfallRow::CriticalPath: return QStringLiteral("Critical path");
    case WaterfallRow::Host: return QString::fromStdString(d.hosts[static_cast<std::size_t>(row.host)]);
    default: return qtext(d.task(static_cast<std::size_t>(row.task)));
    }
}

} // namespace tracelight::widgets
