#pragma once
// The live capture's tables (capture_spans, capture_traces): what `serve` received, kept until and after its
// trace is stored as a request. Every call but the reads runs inside the caller's transaction.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "store/Sqlite.h"
#include "tracelight/base/Status.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

class CaptureTable {
public:
    explicit CaptureTable(TraceStore& store);

    // A received span (data: encodeRawSpan's text) of a trace.
    Status addSpan(std::string_view trace, std::string_view data);
    // The trace got `added` spans just now (after their addSpan): open, counting every span it holds.
    Status markOpen(std::string_view trace, std::int64_t added);
    // The traces still open, as a run that stopped without storing them left them.
    Result<std::vector<std::string>> openTraces() const;
    // Every span received of a trace, in the order received.
    Status forEachSpan(std::string_view trace, const std::function<Status(std::string_view data)>& f) const;
    // The trace is stored (or given up): no longer open. Its spans stay, for a late one.
    Status close(std::string_view trace);
    // Before a trace is stored again: the request a capture stored for it earlier is deleted, with everything
    // derived from it. Says which: none stored, one deleted, or one of that name from elsewhere (a file import),
    // which stays.
    enum class Earlier { None, Deleted, FromElsewhere };
    Result<Earlier> clearCapturedRequest(std::string_view trace, std::string_view captureFormat);

private:
    sqlite3* m_db;
    sqlite::Statement m_insertSpan, m_bumpTrace, m_openTrace, m_closeTrace;
};

} // namespace tracelight
