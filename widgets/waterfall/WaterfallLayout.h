#pragma once
// Where every segment of a request sits in the waterfall: rows (hosts, and a sub-lane per task on
// each host), time extents on adjusted or local clocks, per-row lists sorted by start for culling.
// Computed once per request and clock choice; painting only looks things up.
#include <QString>
#include <memory>
#include <vector>

#include "tracelight/analysis/AnalysisResults.h"

namespace tracelight::widgets {

struct WaterfallRow {
    enum Kind { CriticalPath, Host, Task } kind;
    QString label;
    int host = -1;                // index into RequestDetail::hosts
    int task = -1;                // index into RequestDetail::tasks
    std::vector<int> segments;    // same-host segments in this row, by start time
};

struct WaterfallLayout {
    std::vector<WaterfallRow> rows;
    std::vector<int> fromRow, toRow;  // per segment: its row (network segments: the row it leaves and the one it reaches)
    std::vector<double> startUs, endUs;  // per segment, relative to the request's first event on the chosen clock
    std::vector<int> networkByStart;     // network segments sorted by start
    double spanUs = 0;                   // first event to last event

    static WaterfallLayout build(const RequestDetail& detail, bool localClocks);
};

} // namespace tracelight::widgets
