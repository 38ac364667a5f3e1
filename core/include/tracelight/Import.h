#pragma once
// Importing trace files into a TraceStore: format detection, one transaction per import.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tracelight/Progress.h"
#include "tracelight/Status.h"

namespace tracelight {

class TraceStore;

enum class InputFormat { Auto, EventsCsv, EventsJsonl };

std::optional<InputFormat> inputFormatFromName(std::string_view name);
std::string_view inputFormatName(InputFormat format);
std::vector<std::string_view> inputFormatNames();  // every name accepted by --format

// Recognises the format from the file's content (never its name); the error names the file and byte offset.
Result<InputFormat> detectInputFormat(const std::string& path);

struct ImportOptions {
    std::vector<std::string> inputs;
    InputFormat format = InputFormat::Auto;
    std::string period;  // empty: named after the first input file
};

struct ImportSummary {
    std::string period;
    std::int64_t requests = 0;
    std::int64_t events = 0;
    std::int64_t renamedEvents = 0;  // repeated <task, event> numbered as EVENT#2, ...
    std::int64_t warnings = 0;
    std::vector<std::string> warningSamples;  // the first few warnings, for the user
};

// Adds the inputs to the store in one transaction. On error or cancel nothing is written and the
// message names the file and line (or byte offset) of the problem.
Result<ImportSummary> importTraces(TraceStore& store, const ImportOptions& options,
                                   const ProgressSink* progress = nullptr, const CancelToken* cancel = nullptr);

} // namespace tracelight
