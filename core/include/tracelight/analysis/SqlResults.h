#pragma once
// Every analysed request's critical path and slack written into the trace database's SQL tables
// (store/ResultTables.h), decoded from analyze's cached results: the same numbers critical-path and slack print.
#include "tracelight/base/Progress.h"
#include "tracelight/base/Status.h"

namespace tracelight {

class TraceStore;

// Replaces the tables' rows in one transaction (the caller holds none). Cancelled: "cancelled", nothing changed.
Status writeSqlResults(TraceStore& store, const ProgressSink* progress = nullptr, const CancelToken* cancel = nullptr);

} // namespace tracelight
