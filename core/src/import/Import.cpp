#include "tracelight/import/Import.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <functional>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "import/events/EventLogParsers.h"
#include "store/ImportWriter.h"
#include "import/spans/SpanParsers.h"
#include "import/spans/SpanStager.h"
#include "import/spans/SpanTraceWriter.h"
#include "tracelight/import/Csv.h"
#include "tracelight/base/Json.h"
#include "tracelight/store/TraceStore.h"

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
    {InputFormat::OtlpJson, "otlp-json"},
    {InputFormat::OtlpProtobuf, "otlp-protobuf"},
    {InputFormat::JaegerJson, "jaeger-json"},
    {InputFormat::ZipkinJson, "zipkin-json"},
    {InputFormat::SpansCsv, "spans-csv"},
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
    std::error_code sizeError;
    if (const auto size = std::filesystem::file_size(path, sizeError); !sizeError && looksLikeOtlpProtobuf(head, size))
        return InputFormat::OtlpProtobuf;
    if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
    std::size_t first = head.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return Status::error(path + ": empty file, nothing to import");

    const std::string_view body = head.substr(first);
    if (head[first] == '{') {
        // OTLP, Jaeger, or one event-log object per line: told apart by their keys.
        if (body.find("\"resourceSpans\"") != std::string_view::npos) return InputFormat::OtlpJson;
        if (body.find("\"spans\"") != std::string_view::npos &&
            (body.find("\"traceID\"") != std::string_view::npos || body.find("\"data\"") != std::string_view::npos))
            return InputFormat::JaegerJson;
        const std::size_t end = head.find_first_of("\r\n", first);
        const std::string_view line = head.substr(first, end == std::string_view::npos ? head.npos : end - first);
        if (line.find("\"request\"") != line.npos &&
            (line.find("\"ts_us\"") != line.npos || line.find("\"ts_ns\"") != line.npos))
            return InputFormat::EventsJsonl;
        // A Jaeger trace may list more processes than the first 64 KiB hold before its spans.
        if (body.find("\"data\"") != std::string_view::npos && body.find("\"traceID\"") != std::string_view::npos)
            return InputFormat::JaegerJson;
        return Status::error(path + ": byte " + std::to_string(first) +
                             ": JSON that is neither OTLP (resourceSpans), Jaeger (data/spans) nor an events-jsonl log");
    }
    if (head[first] == '[') {
        if (body.find("\"traceId\"") != std::string_view::npos && body.find("\"id\"") != std::string_view::npos)
            return InputFormat::ZipkinJson;
        return Status::error(path + ": byte " + std::to_string(first) + ": a JSON array that is not Zipkin v2 spans (traceId, id)");
    }
    // A CSV header: the event-log columns, or a span table.
    const std::size_t end = head.find_first_of("\r\n");  // a lone CR ends a line too (LineReader)
    std::vector<std::string_view> fields;
    std::deque<std::string> storage;
    std::string_view headerLine = head.substr(0, end);
    if (splitCsvRecord(headerLine, fields, storage, nullptr)) {
        // Most of the required columns: an events-csv file, whose parser then names what is missing.
        int found = 0;
        for (std::string_view need : {"request", "host", "task", "event", "ts_us"})
            if (std::find(fields.begin(), fields.end(), need) != fields.end()) ++found;
        if (found >= 3) return InputFormat::EventsCsv;
        auto lower = [](std::string_view f) {
            std::string l(f);
            for (auto& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            return l;
        };
        bool trace = false, span = false;
        for (auto f : fields) {
            const std::string l = lower(f);
            trace |= l == "traceid" || l == "trace_id" || l == "trace";
            span |= l == "spanid" || l == "span_id" || l == "span";
        }
        if (trace && span) return InputFormat::SpansCsv;
    }
    return Status::error(path + ": byte 0: unrecognised format (not an event log, OTLP, Jaeger, Zipkin or a span table); "
                                "name it with --format");
}

namespace {
// A pipe given as an input (a FIFO, /dev/stdin, a process substitution, or "-" for standard input) is read
// once, as it comes, into a temporary file that has no name (O_TMPFILE, or unlinked at once) beside the
// database: the parsers then read it as they read a file (Jaeger reads its input twice, detection its first
// bytes), memory stays bounded whatever the pipe holds, and nothing of it outlives the import, not even
// a kill -9. Errors name the input as the user gave it.
class SpooledPipe {
public:
    SpooledPipe() = default;
    SpooledPipe(const SpooledPipe&) = delete;
    SpooledPipe& operator=(const SpooledPipe&) = delete;
    ~SpooledPipe() {
        if (m_fd >= 0) ::close(m_fd);
    }

    Status spool(const std::string& input, const std::string& nextToDatabase, const CancelToken* cancel) {
        const bool standardInput = input == "-";
        int in = standardInput ? STDIN_FILENO : -1;
        while (in < 0) {
            // Not blocking: a FIFO's open would wait here for its writer, past any cancel; poll() in copy waits
            // for it instead (it reports no end before a writer has come and gone).
            in = ::open(input.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
            if (in < 0 && errno != EINTR) return Status::error(input + ": cannot open: " + std::strerror(errno));
            if (in < 0 && cancel && cancel->isCancelled()) return Status::error("import cancelled");
        }
        const Status copied = copy(in, input, nextToDatabase, cancel);
        if (!standardInput) ::close(in);
        return copied;
    }
    // What the parsers open: the spooled copy.
    std::string path() const { return "/dev/fd/" + std::to_string(m_fd); }

private:
    Status copy(int in, const std::string& input, const std::string& nextToDatabase, const CancelToken* cancel) {
        const std::string dir = std::filesystem::path(nextToDatabase).parent_path().string();
        const std::string where = dir.empty() ? "." : dir;
#ifdef O_TMPFILE
        m_fd = ::open(where.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
        if (m_fd < 0) {  // a file system without O_TMPFILE: a named file, unlinked at once
            std::string name = where + "/.tracelight-pipe-XXXXXX";
            m_fd = ::mkostemp(name.data(), O_CLOEXEC);
            if (m_fd >= 0) ::unlink(name.c_str());
        }
        if (m_fd < 0) return Status::error(input + ": cannot make a temporary copy of the pipe in " + where + ": " + std::strerror(errno));
        std::vector<char> buffer(1 << 20);
        for (;;) {
            if (cancel && cancel->isCancelled()) return Status::error("import cancelled");
            // A pipe whose writer keeps it open may have nothing to read for a long time: it is waited for in
            // slices of 100 ms, so that a cancel with no signal behind it (the app's) is not held up.
            pollfd ready{in, POLLIN, 0};
            const int polled = ::poll(&ready, 1, 100);
            if (polled == 0 || (polled < 0 && errno == EINTR)) continue;
            const ssize_t got = ::read(in, buffer.data(), buffer.size());
            if (got == 0) return Status::ok();
            if (got < 0) {
                if (errno == EINTR || errno == EAGAIN) continue;  // a signal (cancel is checked above)
                return Status::error(input + ": cannot read: " + std::strerror(errno));
            }
            for (ssize_t done = 0; done < got;) {
                const ssize_t put = ::write(m_fd, buffer.data() + done, static_cast<std::size_t>(got - done));
                if (put < 0 && errno == EINTR) continue;
                if (put < 0) return Status::error(input + ": cannot copy the pipe beside the database: " + std::strerror(errno));
                done += put;
            }
        }
    }

    int m_fd = -1;
};

bool isPipe(const std::string& input) {
    if (input == "-") return true;
    std::error_code ec;
    const auto status = std::filesystem::status(input, ec);
    return std::filesystem::is_fifo(status) || std::filesystem::is_character_file(status) || std::filesystem::is_socket(status);
}

// A message about the spooled copy, with the input's own name in its place.
Status namedAs(const Status& status, const std::string& readPath, const std::string& input) {
    if (status || readPath == input) return status;
    std::string message = status.message();
    for (std::size_t at = 0; (at = message.find(readPath, at)) != std::string::npos; at += input.size())
        message.replace(at, readPath.size(), input);
    return Status::error(message);
}
} // namespace

Result<ImportSummary> importTraces(TraceStore& store, const ImportOptions& options, const ProgressSink* progress,
                                   const CancelToken* cancel) {
    namespace fs = std::filesystem;
    if (options.inputs.empty()) return Status::error("no input files given");
    if (std::count(options.inputs.begin(), options.inputs.end(), "-") > 1) return Status::error("-: standard input given twice");

    // Resolve formats and sizes first, so a bad file is reported before anything is written.
    std::vector<InputFormat> formats;
    std::vector<std::string> readPaths;  // what each input is read from: itself, or its pipe's spooled copy
    std::vector<std::unique_ptr<SpooledPipe>> pipes;
    std::uint64_t totalBytes = 0;
    std::string inputList;
    for (const auto& input : options.inputs) {
        std::error_code ec;
        if (fs::is_directory(input, ec)) return Status::error(input + ": is a directory, not a trace file (name the files in it)");
        std::string readPath = input;
        if (isPipe(input)) {
            pipes.push_back(std::make_unique<SpooledPipe>());
            if (Status s = pipes.back()->spool(input, store.path(), cancel); !s) return s;
            readPath = pipes.back()->path();
        } else if (!fs::is_regular_file(input, ec)) {
            return Status::error(input + ": no such file");
        }
        readPaths.push_back(readPath);
        totalBytes += fs::file_size(readPath, ec);
        InputFormat format = options.format;
        if (format == InputFormat::Auto) {
            auto detected = detectInputFormat(readPath);
            if (!detected) return namedAs(detected.status(), readPath, input);
            format = detected.value();
        }
        formats.push_back(format);
        if (!inputList.empty()) inputList += ';';
        inputList += input;
    }
    std::string period = options.period;
    if (period.empty()) period = options.inputs.front() == "-" ? "stdin" : fs::path(options.inputs.front()).stem().string();

    if (Status s = store.beginBulkLoad(); !s) return s;
    // Before the writer, so destroyed after it: the writer's thread is done before the staging table goes.
    SpanStager stager(&store, options.spanMemoryBudget);
    ImportWriter writer(store);
    writer.setHeldEventBudget(options.requestMemoryBudget);
    ImportSummary summary;
    summary.period = period;
    auto fail = [&](const Status& status) -> Result<ImportSummary> {
        writer.abandon();  // nothing of it may still be writing when the transaction ends
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
    bool anySpans = false;
    for (auto f : formats) anySpans |= isSpanFormat(f);
    std::size_t currentInput = 0;
    const SpanSink stageSpan = [&](RawSpan&& span) { return stager.add(std::move(span), currentInput); };
    // Reading is ~90% of the work; the summary pass takes the rest.
    constexpr double kReadShare = 0.9;
    for (std::size_t i = 0; i < options.inputs.size(); ++i) {
        const std::string& input = readPaths[i];
        currentInput = i;
        const std::string stage = "reading " + fs::path(options.inputs[i]).filename().string();
        ByteProgress onBytes = [&](std::uint64_t bytes) {
            if (totalBytes) reporter.report(kReadShare * double(bytesBefore + bytes) / double(totalBytes), stage);
        };
        const std::int64_t eventsBefore = writer.eventCount();
        const std::int64_t spansBefore = stager.count();
        // Event logs are written as they are read, on a thread of their own; span files are only read (and
        // staged, on the connection, when they are larger than memory), so everything written is done first.
        Status s = writer.writeInBackground(!isSpanFormat(formats[i]));
        if (s) switch (formats[i]) {
        case InputFormat::EventsJsonl: s = parseEventsJsonl(input, writer, onBytes, cancel); break;
        case InputFormat::EventsCsv: s = parseEventsCsv(input, writer, onBytes, cancel); break;
        default: s = parseSpanFile(formats[i], input, options.spanColumns.value_or(SpanCsvMapping{}), stageSpan, onBytes, cancel); break;
        }
        if (!s) return fail(namedAs(s, input, options.inputs[i]));
        if (writer.eventCount() == eventsBefore && stager.count() == spansBefore) {
            ++summary.warnings;
            summary.warningSamples.push_back(options.inputs[i] + ": no events (header only)");
        }
        std::error_code ec;
        bytesBefore += fs::file_size(input, ec);
    }
    // Each staged trace becomes one request: events, known causal links and its warnings.
    summary.spans = stager.count();
    if (anySpans) {
        writer.setFromSpans(true);
        const auto assemble = [&](SpanBlocks&& spans, const std::vector<std::size_t>& sources) -> Status {
            // Errors name the file(s) the trace came from and the trace: "a.json: trace t1: ...".
            const auto where = [&](const std::string& traceId) {
                std::string files;
                for (auto source : sources) files += (files.empty() ? "" : ", ") + options.inputs[source];
                return files + ": trace " + traceId + ": ";
            };
            bool warned = false;
            if (Status s = writeSpanTrace(writer, std::move(spans), where, warned); !s) return s;
            if (warned) ++summary.tracesWithWarnings;
            return Status::ok();
        };
        const std::function<void(double)> traceProgress = [&](double f) { reporter.report(kReadShare * (0.8 + 0.2 * f), "assembling traces"); };
        // Staged spans are read back on the connection while the traces are written: then on this thread.
        if (Status s = writer.writeInBackground(!stager.spilled()); !s) return fail(s);
        if (Status s = stager.forEachTrace(assemble, cancel, traceProgress); !s) return fail(s);
    }
    if (writer.eventCount() == 0) {
        // Say why, when the spans were there but could not be placed (say, times out of range).
        const auto& why = writer.warningSamples();
        return fail(Status::error(options.inputs.front() + ": no events to import" + (why.empty() ? "" : " (" + why.front() + ")")));
    }

    ProgressSink finishing = [&](double fraction, std::string_view stage) {
        if (progress && *progress) (*progress)(kReadShare + (1 - kReadShare) * fraction, stage);
    };
    const std::int64_t fileWarnings = summary.warnings;
    auto fileSamples = summary.warningSamples;
    const std::int64_t spans = summary.spans, tracesWithWarnings = summary.tracesWithWarnings;
    if (Status s = writer.finish(summary, &finishing, cancel); !s) return fail(s);
    summary.spans = spans;
    summary.tracesWithWarnings = tracesWithWarnings;
    summary.warnings += fileWarnings;
    summary.warningSamples.insert(summary.warningSamples.begin(), fileSamples.begin(), fileSamples.end());
    // Each sample once (the same file given twice, the same problem in several places).
    std::vector<std::string> distinct;
    for (auto& w : summary.warningSamples)
        if (std::find(distinct.begin(), distinct.end(), w) == distinct.end()) distinct.push_back(std::move(w));
    summary.warningSamples = std::move(distinct);
    if (cancel && cancel->isCancelled()) return fail(Status::error("import cancelled"));
    if (Status s = store.commit(); !s) return s;
    return summary;
}

} // namespace tracelight
