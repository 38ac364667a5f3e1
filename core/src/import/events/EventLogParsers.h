#pragma once
// Streaming parsers for the two event-log formats (docs/user/input-formats.md: events-csv, events-jsonl).
#include <functional>
#include <string>

#include "store/ImportWriter.h"
#include "tracelight/base/Progress.h"

namespace tracelight {

// Called with the bytes consumed so far in the current file.
using ByteProgress = std::function<void(std::uint64_t bytes)>;

Status parseEventsCsv(const std::string& path, ImportWriter& writer, const ByteProgress& progress,
                      const CancelToken* cancel);
Status parseEventsJsonl(const std::string& path, ImportWriter& writer, const ByteProgress& progress,
                        const CancelToken* cancel);

} // namespace tracelight
