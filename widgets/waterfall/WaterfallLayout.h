#pragma once
// Where every segment of a request sits in the waterfall: rows (hosts, and a sub-lane per task on
// each host), time extents on adjusted or local clocks, per-row lists sorted by start for culling.
// Computed once per request and clock choice; painting only looks things up.
#include <QString>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/base/Time.h"

namespace tracelight::widgets {

struct WaterfallRow {
    enum Kind { CriticalPath, Host, Task } kind;
    int host = -1;                // index into RequestDetail::hosts
    int task = -1;                // index into RequestDetail::tasks
};

// A million-span trace has half a million lanes: their labels are made when drawn and their segments
// are ranges of one array, not a string and a vector each.
struct WaterfallLayout {
    std::vector<WaterfallRow> rows;
    std::vector<std::uint32_t> rowBegin;  // row r's segments: rowSegments[rowBegin[r], rowBegin[r + 1])
    std::vector<int> rowSegments;         // same-host segments of each row, by start time; the critical path's
    std::vector<int> fromRow, toRow;  // per segment: its row (network segments: the row it leaves and the one it reaches)
    // Where segment s starts and ends: microseconds from the request's first event on the chosen clock, worked
    // out from the detail's nanoseconds when asked (held as two arrays of doubles they were 40 MB on a
    // million-span trace).
    double startUs(const RequestDetail& d, std::size_t s) const { return nsToUs(startNs(d, s) - originNs); }
    double endUs(const RequestDetail& d, std::size_t s) const { return nsToUs(endNs(d, s) - originNs); }
    // The same on the chosen clock in nanoseconds, as recorded (sorting compares these: no conversion).
    TimeNs startNs(const RequestDetail& d, std::size_t s) const { return localClocks ? d.localStartNs[s] : d.dag.segments[s].startNs; }
    TimeNs endNs(const RequestDetail& d, std::size_t s) const { return localClocks ? d.localEndNs[s] : d.dag.segments[s].endNs; }
    std::size_t segmentCount() const { return fromRow.size(); }
    TimeNs originNs = 0;       // the first event on the chosen clock
    bool localClocks = false;  // the clock chosen: each host's own, or the analysis's adjusted one
    std::vector<int> networkByStart;     // network segments sorted by start
    // Segments only part of which is on the critical path (a span child cut at its parent's end): that part,
    // on the chosen clock. Only that part is drawn as critical.
    std::unordered_map<int, std::pair<TimeNs, TimeNs>> criticalPart;
    double spanUs = 0;                   // first event to last event
    // Each row's segments in blocks of kBlock (by start), for a paint that folds a whole block of narrow,
    // close segments at once: a root with a million children puts two million segments in one lane.
    // Row r's blocks are [blockBegin[r], blockBegin[r + 1]); per block its longest segment, its largest gap
    // between consecutive segments (after its first) and its latest end.
    static constexpr std::size_t kBlock = 64;
    std::vector<std::uint32_t> blockBegin;
    std::vector<double> blockLongestUs, blockWidestGapUs, blockLastEndUs;

    static WaterfallLayout build(const RequestDetail& detail, bool localClocks);
    std::span<const int> segments(std::size_t row) const {
        return std::span<const int>(rowSegments).subspan(rowBegin[row], rowBegin[row + 1] - rowBegin[row]);
    }
    static QString label(const RequestDetail& detail, const WaterfallRow& row);
};

} // namespace tracelight::widgets
