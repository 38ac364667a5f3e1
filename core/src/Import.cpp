#include "tracelight/Import.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "EventLogParsers.h"
#include "ImportWriter.h"
#include "tracelight/Csv.h"
#include "tracelight/TraceStore.h"

namespace tracelight {

namespace {
struct FormatName {
    InputFormat format;
    std::string_view name;
};
constexpr FormatName kFormats[] = {
    {InputFormat::Auto, "auto"},
    {InputFormat::EventsCsv, "events-csv"},
    {InputFormat::EventsJsonl, "events-jsonl"},
};
} // namespace

std::optional<InputFormat> inputFormatFromName(std::string_view name) {
    for (const auto& f : kFormats)
        if (f.name == name) return f.format;
    return std::nullopt;
}

std::string_view inputFormatName(InputFormat format) {
    for (const auto& f : kFormats)
        if (f.format == format) return f.name;
    return "unknown";
}

std::vector<std::string_view> inputFormatNames() {
    std::vector<std::string_view> names;
    for (const auto& f : kFormats) names.push_back(f.name);
    return names;
}

Result<InputFormat> detectInputFormat(const std::string& path) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (!file) return Status::error(path + ": cannot open");
    char buffer[65536];
    const std::size_t got = std::fread(buffer, 1, sizeof buffer, file);
    std::fclose(file);
    std::string_view head(buffer, got);
    if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
    std::size_t first = head.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return Status::error(path + ": empty file, nothing to import");

    if (head[first] == '{') {
        // One JSON object per line with the event-log keys.
        const std::size_t end = head.find('\n', first);
        const std::string_view line = head.substr(first, end == std::string_view::npos ? head.npos : end - first);
        if (line.find("\"request\"") != line.npos && line.find("\"ts_us\"") != line.npos) return InputFormat::EventsJsonl;
        return Status::error(path + ": byte " + std::to_string(first) +
                             ": JSON that is not an events-jsonl log (no \"request\" and \"ts_us\" keys on the first line)");
    }
    // A CSV header with the required event-log columns.
    const std::size_t end = head.find('\n');
    std::vector<std::string_view> fields;
    std::deque<std::string> storage;
    std::string_view headerLine = head.substr(0, end);
    if (!headerLine.empty() && headerLine.back() == '\r') headerLine.remove_suffix(1);
    if (splitCsvRecord(headerLine, fields, storage, nullptr)) {
        // Most of the required columns: an events-csv file, whose parser then names what is missing.
        int found = 0;
        for (std::string_view need : {"request", "host", "task", "event", "ts_us"})
            if (std::find(fields.begin(), fields.end(), need) != fields.end()) ++found;
        if (found >= 3) return InputFormat::EventsCsv;
    }
    return Status::error(path + ": byte 0: unrecognised format (not events-csv or events-jsonl); name it with --format");
}

Result<ImportSummary> importTraces(TraceStore& store, const ImportOptions& options, const ProgressSink* progress,
                                   const CancelToken* cancel) {
    namespace fs = std::filesystem;
    if (options.inputs.empty()) return Status::error("no input files given");

    // Resolve formats and sizes first, so a bad file is reported before anything is written.
    std::vector<InputFormat> formats;
    std::uint64_t totalBytes = 0;
    std::string inputList;
    for (const auto& input : options.inputs) {
        std::error_code ec;
        if (!fs::is_regular_file(input, ec)) return Status::error(input + ": no such file");
        totalBytes += fs::file_size(input, ec);
        InputFormat format = options.format;
        if (format == InputFormat::Auto) {
            auto detected = detectInputFormat(input);
            if (!detected) return detected.status();
            format = detected.value();
        }
        formats.push_back(format);
        if (!inputList.empty()) inputList += ';';
        inputList += input;
    }
    std::string period = options.period;
    if (period.empty()) period = fs::path(options.inputs.front()).stem().string();

    if (Status s = store.begin(); !s) return s;
    ImportWriter writer(store);
    ImportSummary summary;
    summary.period = period;
    auto fail = [&](const Status& status) -> Result<ImportSummary> {
        store.rollback();
        return status;
    };
    std::string formatList;
    for (auto f : formats) {
        if (formatList.find(inputFormatName(f)) == std::string::npos) {
            if (!formatList.empty()) formatList += ',';
            formatList += inputFormatName(f);
        }
    }
    if (Status s = writer.start(period, formatList, inputList); !s) return fail(Status::error(store.path() + ": " + s.message()));

    ThrottledProgress reporter(progress);
    std::uint64_t bytesBefore = 0;
    // Reading is ~90% of the work; the summary pass takes the rest.
    constexpr double kReadShare = 0.9;
    for (std::size_t i = 0; i < options.inputs.size(); ++i) {
        const std::string& input = options.inputs[i];
        const std::string stage = "reading " + fs::path(input).filename().string();
        ByteProgress onBytes = [&](std::uint64_t bytes) {
            if (totalBytes) reporter.report(kReadShare * double(bytesBefore + bytes) / double(totalBytes), stage);
        };
        const std::int64_t eventsBefore = writer.eventCount();
        Status s = formats[i] == InputFormat::EventsJsonl ? parseEventsJsonl(input, writer, onBytes, cancel)
                                                          : parseEventsCsv(input, writer, onBytes, cancel);
        if (!s) return fail(s);
        if (writer.eventCount() == eventsBefore) {
            ++summary.warnings;
            summary.warningSamples.push_back(input + ": no events (header only)");
        }
        std::error_code ec;
        bytesBefore += fs::file_size(input, ec);
    }
    if (writer.eventCount() == 0) return fail(Status::error(options.inputs.front() + ": no events to import"));

    ProgressSink finishing = [&](double fraction, std::string_view stage) {
        if (progress && *progress) (*progress)(kReadShare + (1 - kReadShare) * fraction, stage);
    };
    const std::int64_t fileWarnings = summary.warnings;
    auto fileSamples = summary.warningSamples;
    if (Status s = writer.finish(summary, &finishing, cancel); !s) return fail(s);
    summary.warnings += fileWarnings;
    summary.warningSamples.insert(summary.warningSamples.begin(), fileSamples.begin(), fileSamples.end());
    if (cancel && cancel->isCancelled()) return fail(Status::error("import cancelled"));
    if (Status s = store.commit(); !s) return s;
    return summary;
}

} // namespace tracelight
