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
#include "store/StagingTable.h"
#include "import/spans/SpanParsers.h"
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

bool isSpanFormat(InputFormat f) {
    return f == InputFormat::OtlpJson || f == InputFormat::OtlpProtobuf || f == InputFormat::JaegerJson || f == InputFormat::ZipkinJson || f == InputFormat::SpansCsv;
}

// Spans wait until every input is read, because a trace's spans may be scattered through a file (or
// over several files); then each trace is assembled on its own. They wait in memory, as they came,
// up to a budget of bytes; past it every span goes to a temporary table (as compact JSON) instead, and
// the traces are read back from it in trace-id order. Either way a trace's spans come in the order read.
class SpanStager {
public:
    SpanStager(TraceStore& store, std::uint64_t budgetBytes) : m_table(store), m_budget(budgetBytes) {}

    // source: the index of the input file the span came from, so errors about its trace can name the file.
    Status add(RawSpan&& s, std::size_t source) {
        ++m_count;
        if (!m_spilled) {
            m_bytes += footprint(s);
            m_spans.push_back(std::move(s));
            m_sources.push_back(source);
            if (m_bytes <= m_budget) return Status::ok();
            return spill();
        }
        return stage(s, source);
    }

    std::int64_t count() const { return m_count; }
    bool spilled() const { return m_spilled; }

    // Calls f(spans, sources) once per trace, in trace-id order; sources: the input files it came from.
    template <typename F>
    Status forEachTrace(F&& f, const CancelToken* cancel, const std::function<void(double)>& progress) {
        return m_spilled ? forEachStagedTrace(f, cancel, progress) : forEachMemoryTrace(f, cancel, progress);
    }

private:
    // Roughly what a span holds on the heap and in the vector (the budget need not be exact).
    static std::uint64_t footprint(const RawSpan& s) {
        auto text = [](const std::string& t) -> std::uint64_t { return t.size() > 15 ? t.capacity() + 1 : 0; };
        std::uint64_t bytes = sizeof(RawSpan) + sizeof(std::size_t) + text(s.traceId) + text(s.spanId) + text(s.parentId) + text(s.service) +
                              text(s.host) + text(s.operation) + text(s.timeError);
        for (const auto* attrs : {&s.attributes, &s.processAttributes})
            for (const auto& [k, v] : *attrs) bytes += sizeof(k) + sizeof(v) + text(k) + text(v);
        for (const auto& [name, ts] : s.events) bytes += sizeof(name) + sizeof(ts) + text(name);
        for (const auto& id : s.followsFrom) bytes += sizeof(id) + text(id);
        return bytes;
    }

    // Over budget: everything held so far goes to the table, in the order read, and so does every later span.
    Status spill() {
        m_spilled = true;
        if (Status s = m_table.start(); !s) return s;
        for (std::size_t i = 0; i < m_spans.size(); ++i)
            if (Status s = stage(m_spans[i], m_sources[i], static_cast<std::int64_t>(i)); !s) return s;
        m_spans.clear();
        std::vector<std::size_t>().swap(m_sources);
        m_bytes = 0;
        return Status::ok();
    }

    Status stage(const RawSpan& s, std::size_t source) { return stage(s, source, m_count - 1); }
    Status stage(const RawSpan& s, std::size_t source, std::int64_t seq) {
        JsonWriter w;
        w.beginObject().key("s").value(s.spanId).key("p").value(s.parentId).key("sv").value(s.service).key("h").value(s.host)
            .key("o").value(s.operation).key("b").value(s.startNs).key("e").value(s.endNs).key("sh").value(s.shared)
            .key("t").value(s.hasTimestamp).key("te").value(s.timeError).key("a").beginArray();
        for (const auto& [k, v] : s.attributes) w.beginArray().value(k).value(v).endArray();
        w.endArray().key("pa").beginArray();
        for (const auto& [k, v] : s.processAttributes) w.beginArray().value(k).value(v).endArray();
        w.endArray().key("ev").beginArray();
        for (const auto& [name, ts] : s.events) w.beginArray().value(name).value(ts).endArray();
        w.endArray().key("ff").beginArray();
        for (const auto& id : s.followsFrom) w.value(id);
        w.endArray().key("pf").value(s.parentFollowsFrom).endObject();
        return m_table.add(s.traceId, seq, static_cast<std::int64_t>(source), w.text());
    }

    bool tick(std::int64_t& done, const CancelToken* cancel, const std::function<void(double)>& progress) const {
        if ((++done & 0xFFF) == 0) {
            if (cancel && cancel->isCancelled()) return false;
            if (progress) progress(double(done) / double(std::max<std::int64_t>(1, m_count)));
        }
        return true;
    }

    template <typename F>
    Status forEachMemoryTrace(F& f, const CancelToken* cancel, const std::function<void(double)>& progress) {
        // One trace (a single large trace, often): its spans go on as they are, not copied, so a trace of a
        // million spans is not held twice while it is assembled.
        bool oneTrace = true;
        for (std::size_t i = 1; i < m_spans.size() && oneTrace; ++i) oneTrace = m_spans[i].traceId == m_spans[0].traceId;
        if (oneTrace) {
            std::vector<std::size_t> sources;
            for (auto source : m_sources)
                if (std::find(sources.begin(), sources.end(), source) == sources.end()) sources.push_back(source);
            std::vector<std::size_t>().swap(m_sources);
            if (cancel && cancel->isCancelled()) return Status::error("import cancelled");
            if (progress) progress(1.0);
            return m_spans.empty() ? Status::ok() : f(std::exchange(m_spans, {}), sources);
        }
        // Trace-id order (the table's: bytewise), the order read within a trace: a stable sort of positions.
        std::vector<std::uint32_t> order(m_spans.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return m_spans[a].traceId < m_spans[b].traceId; });
        SpanBlocks trace;
        std::vector<std::size_t> sources;
        std::int64_t done = 0;
        for (std::size_t i = 0; i < order.size();) {
            const std::string id = m_spans[order[i]].traceId;
            trace.clear();
            sources.clear();
            for (; i < order.size() && m_spans[order[i]].traceId == id; ++i) {
                const std::size_t source = m_sources[order[i]];
                if (std::find(sources.begin(), sources.end(), source) == sources.end()) sources.push_back(source);
                trace.push_back(std::move(m_spans[order[i]]));
                if (!tick(done, cancel, progress)) return Status::error("import cancelled");
            }
            if (Status s = f(std::move(trace), sources); !s) return s;
        }
        m_spans.clear();
        std::vector<std::size_t>().swap(m_sources);
        return Status::ok();
    }

    template <typename F>
    Status forEachStagedTrace(F& f, const CancelToken* cancel, const std::function<void(double)>& progress) {
        SpanBlocks trace;
        std::vector<std::size_t> sources;
        std::string current;
        std::int64_t done = 0;
        const Status walked = m_table.forEach([&](std::string_view id, std::string_view data, std::int64_t from) -> Status {
            if (!trace.empty() && id != current) {
                if (Status s = f(std::move(trace), sources); !s) return s;
                trace.clear();
                sources.clear();
            }
            if (const auto source = static_cast<std::size_t>(from); std::find(sources.begin(), sources.end(), source) == sources.end())
                sources.push_back(source);
            current = id;
            JsonValue v;
            if (!JsonValue::parse(data, v, nullptr, nullptr)) return Status::error("damaged staged span");
            RawSpan s;
            s.traceId = current;
            s.spanId = v.find("s")->string();
            s.parentId = v.find("p")->string();
            s.service = v.find("sv")->string();
            s.host = v.find("h")->string();
            s.operation = v.find("o")->string();
            // Integers from their literal text: a double would round nanoseconds at today's epoch.
            auto integer = [](const JsonValue* n) { return parseNanoseconds(n->string()).value_or(0); };
            s.startNs = integer(v.find("b"));
            s.endNs = integer(v.find("e"));
            s.shared = v.find("sh")->boolean();
            s.hasTimestamp = v.find("t")->boolean();
            s.timeError = v.find("te")->string();
            for (const auto& a : v.find("a")->array()) s.attributes.emplace_back(a.array()[0].string(), a.array()[1].string());
            if (const JsonValue* pa = v.find("pa"))
                for (const auto& a : pa->array()) s.processAttributes.emplace_back(a.array()[0].string(), a.array()[1].string());
            for (const auto& e : v.find("ev")->array()) s.events.emplace_back(e.array()[0].string(), integer(&e.array()[1]));
            if (const JsonValue* ff = v.find("ff"))
                for (const auto& id : ff->array()) s.followsFrom.push_back(id.string());
            if (const JsonValue* pf = v.find("pf")) s.parentFollowsFrom = pf->boolean();
            trace.push_back(std::move(s));
            if (!tick(done, cancel, progress)) return Status::error("import cancelled");
            return Status::ok();
        });
        if (!walked) return walked;
        if (!trace.empty()) return f(std::move(trace), sources);
        return Status::ok();
    }

    StagingTable m_table;
    std::uint64_t m_budget;
    SpanBlocks m_spans;                  // held in memory, in the order read (until spilled)
    std::vector<std::size_t> m_sources;  // the input file of each
    std::uint64_t m_bytes = 0;
    bool m_spilled = false;
    std::int64_t m_count = 0;
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
    SpanStager stager(store, options.spanMemoryBudget);
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
        case InputFormat::OtlpJson: s = parseOtlpJson(input, stageSpan, onBytes, cancel); break;
        case InputFormat::OtlpProtobuf: s = parseOtlpProtobuf(input, stageSpan, onBytes, cancel); break;
        case InputFormat::JaegerJson: s = parseJaegerJson(input, stageSpan, onBytes, cancel); break;
        case InputFormat::ZipkinJson: s = parseZipkinJson(input, stageSpan, onBytes, cancel); break;
        case InputFormat::SpansCsv: s = parseSpansCsv(input, options.spanColumns.value_or(SpanCsvMapping{}), stageSpan, onBytes, cancel); break;
        default: s = parseEventsCsv(input, writer, onBytes, cancel); break;
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
            AssembledTrace trace = assembleTrace(std::move(spans));
            // Errors name the file(s) the trace came from and the trace: "a.json: trace t1: ...".
            const auto where = [&] {
                std::string files;
                for (auto source : sources) files += (files.empty() ? "" : ", ") + options.inputs[source];
                return files + ": trace " + trace.traceId + ": ";
            };
            // Each of the trace's names interned once per role and occurrence in use, not once per event
            // (a trace of 100,000 spans names a task per span and four events per task).
            std::vector<std::uint32_t> byRole[3];  // host, task, event: label id + 1 of the name (0: not yet)
            auto labelOf = [&](TraceName n, LabelRole role) -> Result<std::uint32_t> {
                const int slot = role == LabelRole::Host ? 0 : role == LabelRole::Task ? 1 : 2;
                auto& ids = byRole[slot];
                if (ids.empty()) ids.assign(trace.names.size(), 0);
                if (ids[n.name] == 0) {
                    auto id = writer.label(trace.names[n.name], 1, role);
                    if (!id) return id;
                    ids[n.name] = id.value() + 1;
                }
                return writer.occurrenceLabel(ids[n.name] - 1, n.occurrence, role);
            };
            std::vector<RawAttribute> attrs;
            for (const auto& e : trace.events) {
                attrs.clear();
                if (e.tagsOf >= 0) {
                    const SpanRecord& span = trace.spans[static_cast<std::size_t>(e.tagsOf)];
                    for (const auto* tags : {&span.processAttributes, &span.attributes})
                        for (const auto& [k, v] : *tags) attrs.push_back({k, v});
                }
                auto host = labelOf({e.host, 1}, LabelRole::Host);
                auto task = host ? labelOf(e.task, LabelRole::Task) : host;
                auto event = task ? labelOf(e.event, LabelRole::Event) : task;
                if (!event) return Status::error(where() + event.message());
                const InternedEvent interned{trace.traceId, host.value(), task.value(), event.value(), e.tsNs, e.seq, attrs,
                                             trace.names[e.task.name]};
                if (Status s = writer.addEvent(interned); !s) return Status::error(where() + s.message());
            }
            // Written: a trace of a million spans frees its four million events before its spans go.
            std::vector<AssembledEvent>().swap(trace.events);
            // Its links are not stored: a read derives them from the spans, as it does the events.
            std::vector<AssembledLink>().swap(trace.links);
            // What the store derives the events from again when it reads the request, by label id.
            std::vector<ImportWriter::SpanModelIds> modelIds(trace.modelNames.size());
            for (std::size_t k = 0; k < modelIds.size(); ++k) {
                const auto& names = trace.modelNames[k];
                auto host = labelOf({names.host, 1}, LabelRole::Host);
                if (!host) return Status::error(where() + host.message());
                modelIds[k].host = host.value();
                for (auto [name, id] : {std::pair{&names.enter, &modelIds[k].enter}, std::pair{&names.leave, &modelIds[k].leave}}) {
                    if (!*name) continue;
                    auto label = labelOf(**name, LabelRole::Event);
                    if (!label) return Status::error(where() + label.message());
                    *id = label.value();
                }
            }
            std::vector<std::uint32_t> spanEventIds;
            spanEventIds.reserve(trace.spanEventNames.size());
            for (const TraceName& name : trace.spanEventNames) {
                auto label = labelOf(name, LabelRole::Event);
                if (!label) return Status::error(where() + label.message());
                spanEventIds.push_back(label.value());
            }
            if (Status s = writer.addSpans(trace.traceId, trace.spans, modelIds, spanEventIds); !s) return Status::error(where() + s.message());
            writer.addRenamedEvents(static_cast<std::int64_t>(trace.renamedEvents));
            if (!trace.warnings.empty()) ++summary.tracesWithWarnings;
            for (const auto& w : trace.warnings)
                if (Status s = writer.addWarning(trace.traceId, w); !s) return Status::error(where() + s.message());
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
