#pragma once
// Importing trace files into a TraceStore: format detection, one transaction per import.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tracelight/base/Progress.h"
#include "tracelight/base/Status.h"

namespace tracelight {

class TraceStore;

enum class InputFormat { Auto, EventsCsv, EventsJsonl, OtlpJson, OtlpProtobuf, JaegerJson, ZipkinJson, SpansCsv };

std::optional<InputFormat> inputFormatFromName(std::string_view name);
std::string_view inputFormatName(InputFormat format);
std::vector<std::string_view> inputFormatNames();  // every name accepted by --format

// Recognises the format from the file's content (never its name); the error names the file and byte offset.
Result<InputFormat> detectInputFormat(const std::string& path);

// Which columns of a span table hold what (spans-csv). Keys: trace, span, parent, service or pod
// (the service is then the pod name without its last two dash-separated parts), operation, start,
// and end or duration; optional host. Every other column is a span attribute.
struct SpanCsvMapping {
    std::map<std::string, std::string> columns;
    int timeUnitExponent = 3;          // unit of start/end/duration as a power of ten of ns: ns 0, us 3, ms 6, s 9
    std::string rootMarker = "root";   // a parent value that means "no parent" (as do empty, 0 and null)

    // Parses "trace=TraceID,span=SpanID,..." ; the error says what is wrong.
    static Result<SpanCsvMapping> parse(std::string_view spec, std::string_view timeUnit);
    // The mapping for a header that names the usual columns (TraceID, SpanID, ParentID, PodName, ...), if any.
    static std::optional<SpanCsvMapping> guess(const std::vector<std::string>& header);
};

struct ImportOptions {
    std::vector<std::string> inputs;
    InputFormat format = InputFormat::Auto;
    std::string period;  // empty: named after the first input file
    std::optional<SpanCsvMapping> spanColumns;  // spans-csv: empty = guessed from the header
    // Span formats: spans wait in memory for their traces up to about this many bytes, beyond it in a
    // temporary table of the store (slower, but bounded memory). The result is the same either way.
    std::uint64_t spanMemoryBudget = std::uint64_t(1) << 30;
    // The events of the request being read wait in memory, up to about this many bytes, to be summed (counts,
    // repeated events) when the input moves on; a bigger request is summed from the store at the end. The
    // result is the same either way.
    std::uint64_t requestMemoryBudget = std::uint64_t(128) << 20;
};

struct ImportSummary {
    std::string period;
    std::int64_t requests = 0;
    std::int64_t events = 0;
    std::int64_t renamedEvents = 0;  // repeated <task, event> numbered as EVENT#2, ...
    std::int64_t spans = 0;            // span formats: spans read
    std::int64_t tracesWithWarnings = 0;
    std::int64_t warnings = 0;
    std::vector<std::string> warningSamples;  // the first few warnings, for the user
};

// Adds the inputs to the store in one transaction. On error or cancel nothing is written and the
// message names the file and line (or byte offset) of the problem.
Result<ImportSummary> importTraces(TraceStore& store, const ImportOptions& options,
                                   const ProgressSink* progress = nullptr, const CancelToken* cancel = nullptr);

} // namespace tracelight
