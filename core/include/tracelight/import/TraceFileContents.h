#pragma once
// Span trace files read straight into the analysis's input, without a database: the requests, events, causal
// links and spans that importing them into a new database and reading it back give, in the same order, with
// labels numbered as that database numbers them, so every analysis of them gives what the database's would.
// `tracelight-cli critical-path TRACE_FILE` (and `slack`) use it when the file has no current database of its own.
#include <cstdint>
#include <string>
#include <vector>

#include "tracelight/analysis/TraceData.h"
#include "tracelight/base/Progress.h"
#include "tracelight/base/Status.h"
#include "tracelight/import/Import.h"

namespace tracelight {

struct TraceFileContents {
    TraceData data;
    std::vector<std::string> requestNames;          // by row: the trace id
    std::vector<std::vector<std::string>> spanIds;  // by row: its spans' ids as the input wrote them, by index
    std::int64_t spans = 0;
    std::int64_t tracesWithWarnings = 0;
};

// The span files of options.inputs (regular files; their formats detected unless options.format names one).
// Errors as importTraces words them; an event log is refused ("not span data"), and so are spans past
// options.spanMemoryBudget (needsDatabase says which errors these are: import such files instead).
Result<TraceFileContents> readSpanFiles(const ImportOptions& options, const ProgressSink* progress = nullptr,
                                        const CancelToken* cancel = nullptr);

// Whether a readSpanFiles error says the files need a database instead: an event log, or spans that would not fit
// in memory (any other error is the files' own).
bool needsDatabase(const Status& status);

} // namespace tracelight
