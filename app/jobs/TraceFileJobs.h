#pragma once
// A trace file opened before its own database exists: read into memory (import/TraceFileContents.h) so its
// requests are listed and its first waterfall drawn at once, while the import into that database, and its
// analysis, run behind.
#include <memory>
#include <string>

#include "tracelight/base/Progress.h"
#include "tracelight/base/Status.h"
#include "tracelight/import/TraceFileContents.h"
#include "tracelight/store/RequestTable.h"

namespace tracelight::app {

struct TraceFileRead {
    Status status = Status::ok();  // needsDatabase(status): the file is imported first, as before
    std::shared_ptr<const TraceFileContents> contents;
    std::shared_ptr<const RequestTable> table;
};

// The file read into memory, with its requests as the request table lists them.
std::shared_ptr<TraceFileRead> readTraceFile(const std::string& file, const CancelToken& cancel, const ProgressSink& progress);

// The request table of a file read into memory, as its database's lists it before the analysis: a span request's
// latency and start are its roots' (local clocks), its service and operation its first root span's task; every
// request in `period` (the import names it after the file).
RequestTable requestTableOf(const TraceFileContents& contents, const std::string& period);

// The file imported into its own (new) database and that database analysed, so the window can move to it with
// every tab's results (kept once imported: an analysis cancelled or failed runs again when it opens); what it
// reports is prefixed with `shown`, which says the window shows the file meanwhile.
Status importAndAnalyse(const std::string& file, const std::string& database, const std::string& shown, const CancelToken& cancel,
                        const ProgressSink& progress);

} // namespace tracelight::app
