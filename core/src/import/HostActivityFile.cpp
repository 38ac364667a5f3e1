#include "tracelight/import/HostActivityFile.h"

#include <algorithm>
#include <array>
#include <deque>
#include <optional>

#include "tracelight/base/Json.h"
#include "tracelight/import/Csv.h"
#include "tracelight/import/LineReader.h"

namespace tracelight {

namespace {

// The fields of one record by name, as text (a JSON number as its literal), before they are checked.
enum Field { kHost, kWhat, kStartUs, kStartNs, kEndUs, kEndNs, kDurationUs, kDurationNs, kRequest, kSpan, kFieldCount };
constexpr std::array<const char*, kFieldCount> kFieldNames = {"host",  "what",        "start_us",    "start_ns", "end_us",
                                                              "end_ns", "duration_us", "duration_ns", "request",  "span"};
using RawRecord = std::array<std::optional<std::string_view>, kFieldCount>;

std::optional<Field> fieldNamed(std::string_view name) {
    for (int f = 0; f < kFieldCount; ++f)
        if (name == kFieldNames[static_cast<std::size_t>(f)]) return static_cast<Field>(f);
    // What kernel-trace converters and span exporters call the same marker.
    if (name == "trace_id") return kRequest;
    if (name == "span_id") return kSpan;
    return std::nullopt;
}

// A time field in its unit; error names the field.
Result<std::optional<TimeNs>> timeOf(const RawRecord& raw, Field us, Field ns) {
    if (raw[us] && raw[ns]) return Status::error(std::string("both ") + kFieldNames[us] + " and " + kFieldNames[ns] + " given");
    const Field f = raw[us] ? us : ns;
    if (!raw[f] || raw[f]->empty()) return std::optional<TimeNs>{};
    const auto t = f == us ? parseMicroseconds(*raw[f]) : parseNanoseconds(*raw[f]);
    if (!t) return Status::error(std::string(kFieldNames[f]) + " '" + std::string(*raw[f]) + "' is not a number");
    return std::optional<TimeNs>{*t};
}

Result<HostActivityInput> recordOf(const RawRecord& raw) {
    HostActivityInput r;
    if (!raw[kHost] || raw[kHost]->empty()) return Status::error("no host");
    if (!raw[kWhat] || raw[kWhat]->empty()) return Status::error("no what (what ran: gc, compaction, ...)");
    r.host = std::string(*raw[kHost]);
    r.what = std::string(*raw[kWhat]);
    if (raw[kRequest]) r.request = std::string(*raw[kRequest]);
    if (raw[kSpan]) r.span = std::string(*raw[kSpan]);
    if (!r.span.empty() && r.request.empty()) return Status::error("a span without its request");
    auto start = timeOf(raw, kStartUs, kStartNs);
    if (!start) return start.status();
    if (!start.value()) return Status::error("no start (start_us or start_ns)");
    auto end = timeOf(raw, kEndUs, kEndNs);
    if (!end) return end.status();
    auto duration = timeOf(raw, kDurationUs, kDurationNs);
    if (!duration) return duration.status();
    if (end.value() && duration.value()) return Status::error("both an end and a duration given");
    if (!end.value() && !duration.value()) return Status::error("no end (end_us, end_ns, duration_us or duration_ns)");
    r.startNs = *start.value();
    if (end.value()) {
        r.endNs = *end.value();
    } else {
        const auto sum = checkedAdd(r.startNs, *duration.value());
        if (!sum) return Status::error("start plus duration does not fit in 64-bit nanoseconds");
        r.endNs = *sum;
    }
    if (!isPlausibleTimestamp(r.startNs) || !isPlausibleTimestamp(r.endNs)) return Status::error("time out of range");
    if (r.endNs < r.startNs) return Status::error("ends before it starts");
    return r;
}

Status atLine(const std::string& path, std::uint64_t line, const std::string& message) {
    return Status::error(path + ":" + std::to_string(line) + ": " + message);
}

Result<std::vector<HostActivityInput>> readJsonLines(const std::string& path, LineReader& lines) {
    std::vector<HostActivityInput> out;
    JsonValue doc;
    std::string error;
    std::string_view line;
    while (lines.nextLine(line)) {
        if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
        std::size_t offset = 0;
        if (!JsonValue::parse(line, doc, &error, &offset))
            return atLine(path, lines.lineNumber(), "not JSON (" + error + " at byte " + std::to_string(offset + 1) + ")");
        if (!doc.isObject()) return atLine(path, lines.lineNumber(), "not a JSON object");
        RawRecord raw;
        for (const JsonMember& m : doc.object()) {
            const auto f = fieldNamed(m.first);
            if (!f) continue;  // other keys: ignored
            if (!m.second.isString() && !m.second.isNumber() && !m.second.isNull())
                return atLine(path, lines.lineNumber(), std::string(std::string_view(m.first)) + " is neither a string nor a number");
            if (!m.second.isNull()) raw[*f] = m.second.text();
        }
        auto r = recordOf(raw);
        if (!r) return atLine(path, lines.lineNumber(), r.message());
        out.push_back(std::move(r.value()));
    }
    if (lines.lineTooLong()) return atLine(path, lines.lineNumber(), "line too long");
    return out;
}

Result<std::vector<HostActivityInput>> readCsv(const std::string& path, LineReader& lines) {
    std::vector<HostActivityInput> out;
    CsvReader csv(lines);
    std::vector<std::string_view> fields;
    std::vector<std::optional<Field>> columns;
    for (;;) {
        const auto next = csv.next(fields);
        if (next == CsvReader::Next::End) break;
        if (next == CsvReader::Next::Error) return atLine(path, csv.recordLine(), csv.error());
        if (fields.size() == 1 && fields[0].empty()) continue;  // a blank line
        if (columns.empty()) {
            for (const auto name : fields) columns.push_back(fieldNamed(name));
            const auto has = [&](Field f) { return std::find(columns.begin(), columns.end(), std::optional<Field>(f)) != columns.end(); };
            if (!has(kHost) || !has(kWhat) || (!has(kStartUs) && !has(kStartNs)))
                return atLine(path, csv.recordLine(),
                              "the header needs host, what, start_us (or start_ns) and end_us, end_ns, duration_us or duration_ns");
            continue;
        }
        if (fields.size() != columns.size())
            return atLine(path, csv.recordLine(), std::to_string(fields.size()) + " fields, the header has " + std::to_string(columns.size()));
        RawRecord raw;
        for (std::size_t i = 0; i < fields.size(); ++i)
            if (columns[i] && !fields[i].empty()) raw[*columns[i]] = fields[i];
        auto r = recordOf(raw);
        if (!r) return atLine(path, csv.recordLine(), r.message());
        out.push_back(std::move(r.value()));
    }
    if (columns.empty()) return Status::error(path + ": empty, no header");
    return out;
}

} // namespace

Result<std::vector<HostActivityInput>> readHostActivityFile(const std::string& path) {
    std::string error;
    // The first non-blank character decides: '{' is JSON lines, anything else a CSV header.
    char first = 0;
    {
        LineReader probe;
        if (!probe.open(path, &error)) return Status::error(path + ": " + error);
        std::string_view line;
        while (!first && probe.nextLine(line))
            if (const auto at = line.find_first_not_of(" \t"); at != std::string_view::npos) first = line[at];
    }
    LineReader lines;
    if (!lines.open(path, &error)) return Status::error(path + ": " + error);
    return first == '{' ? readJsonLines(path, lines) : readCsv(path, lines);
}

} // namespace tracelight
