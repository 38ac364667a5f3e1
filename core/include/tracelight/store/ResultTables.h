#pragma once
// The analysis's critical paths and slack as rows of two tables, critical_path_segments and slack, for SQL of
// your own (docs/reference/store-schema.md), as the Mystery Machine exported its results to tables people query.
// Written only when the database asks for them (a results row, as the rules are kept), after each analysis; the
// next analysis empties them before it writes, so they never disagree with the cached results.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "tracelight/base/Status.h"
#include "tracelight/base/Time.h"

namespace tracelight {

class TraceStore;

// One part of a request's critical path, in path order: a segment (or the part of it on the path), or blind time
// (no segment covers it: task and events empty). Times from the request's first event, adjusted clocks.
struct CriticalPathRow {
    std::int64_t request = 0;
    std::int64_t position = 0;
    bool blind = false;
    std::string_view task, startEvent, endEvent;
    TimeNs startNs = 0, endNs = 0;
};
// One segment of a request with its slack (none: work nobody waited for, span data).
struct SlackRow {
    std::int64_t request = 0;
    std::int64_t segment = 0;  // its index among the request's segments
    std::string_view task, startEvent, endEvent;
    TimeNs startNs = 0, durationNs = 0;
    std::optional<TimeNs> slackNs;
    bool critical = false, network = false;
};

bool resultTablesKept(const TraceStore& store);
// Kept from now on, or not (then their rows go at once). A write.
Status keepResultTables(TraceStore& store, bool keep);
// In the caller's transaction: every row of both tables deleted, or these rows added.
Status clearResultTables(TraceStore& store);
Status addResultRows(TraceStore& store, std::span<const CriticalPathRow> path, std::span<const SlackRow> slack);

} // namespace tracelight
