#include "import/events/EventLogParsers.h"

#include <charconv>
#include <cmath>
#include <unordered_set>

#include "tracelight/import/Csv.h"
#include "tracelight/base/Json.h"
#include "tracelight/import/LineReader.h"

namespace tracelight {

namespace {

constexpr std::uint64_t kCheckEvery = 4096;  // rows between cancel checks and progress reports

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// A timestamp from its decimal text, exactly (ts_us: microseconds with up to nanosecond decimals; ts_ns:
// integer nanoseconds). The error says whether it is no number at all or one beyond the time range.
Status parseTimestamp(std::string_view text, bool nanoseconds, TimeNs& out) {
    const char* column = nanoseconds ? "ts_ns" : "ts_us";
    text = trim(text);
    const auto ns = nanoseconds ? parseNanoseconds(text) : parseMicroseconds(text);
    if (ns && isPlausibleTimestamp(*ns)) {
        out = *ns;
        return Status::ok();
    }
    std::string_view number = text;
    if (!number.empty() && number.front() == '+') number.remove_prefix(1);
    double value = 0;
    const auto result = std::from_chars(number.data(), number.data() + number.size(), value);
    if (result.ec == std::errc{} && result.ptr == number.data() + number.size() && std::isfinite(value))
        return Status::error(std::string(column) + " '" + std::string(text) +
                             "' is an absurd timestamp (not within the years 1824 to 2116)");
    return Status::error(std::string(column) + " '" + std::string(text) + "' is not a number");
}

bool parseInteger(std::string_view text, std::int64_t& out) {
    text = trim(text);
    if (text.empty()) return false;
    const auto result = std::from_chars(text.data(), text.data() + text.size(), out);
    return result.ec == std::errc() && result.ptr == text.data() + text.size();
}

Status lineError(const std::string& path, std::uint64_t line, const std::string& message) {
    return Status::error(path + ":" + std::to_string(line) + ": " + message);
}

} // namespace

Status parseEventsCsv(const std::string& path, ImportWriter& writer, const ByteProgress& progress,
                      const CancelToken* cancel) {
    LineReader lines;
    std::string openError;
    if (!lines.open(path, &openError)) return Status::error(openError);
    CsvReader csv(lines);
    std::vector<std::string_view> fields;

    auto first = csv.next(fields);
    if (first == CsvReader::Next::End) return Status::error(path + ": empty file (expected a header row)");
    if (first == CsvReader::Next::Error) return lineError(path, csv.recordLine(), csv.error());

    // Header: required columns in any order, an optional seq, everything else an attribute.
    int colRequest = -1, colHost = -1, colTask = -1, colEvent = -1, colTs = -1, colTsNs = -1, colSeq = -1;
    std::vector<std::string> attributeNames;
    std::vector<int> attributeColumns;
    std::vector<std::string> header;
    std::unordered_set<std::string_view> names;  // views into header's strings, reserved so they stay put
    header.reserve(fields.size());
    for (std::size_t i = 0; i < fields.size(); ++i) {
        std::string name(trim(fields[i]));
        if (name.empty()) return lineError(path, 1, "header column " + std::to_string(i + 1) + " has no name");
        header.push_back(name);
        if (!names.insert(header.back()).second) return lineError(path, 1, "header names column '" + name + "' twice");
        const int col = static_cast<int>(i);
        if (name == "request") colRequest = col;
        else if (name == "host") colHost = col;
        else if (name == "task") colTask = col;
        else if (name == "event") colEvent = col;
        else if (name == "ts_us") colTs = col;
        else if (name == "ts_ns") colTsNs = col;
        else if (name == "seq") colSeq = col;
        else {
            attributeNames.push_back(name);
            attributeColumns.push_back(col);
        }
    }
    if (colTs >= 0 && colTsNs >= 0) return lineError(path, 1, "header names both ts_us and ts_ns; give one");
    const bool nanoseconds = colTsNs >= 0;
    if (nanoseconds) colTs = colTsNs;
    for (const auto& [col, name] : {std::pair{colRequest, "request"}, {colHost, "host"}, {colTask, "task"},
                                    {colEvent, "event"}, {colTs, "ts_us"}})
        if (col < 0)
            return lineError(path, 1,
                             std::string("missing required column '") + name +
                                 "' (events-csv needs request,host,task,event,ts_us or ts_ns)");

    std::vector<RawAttribute> attributes(attributeNames.size());
    for (std::size_t i = 0; i < attributeNames.size(); ++i) attributes[i].key = attributeNames[i];
    const std::size_t columns = header.size();
    std::uint64_t rows = 0;

    for (;;) {
        const auto next = csv.next(fields);
        if (next == CsvReader::Next::End) break;
        const std::uint64_t line = csv.recordLine();
        if (next == CsvReader::Next::Error) return lineError(path, line, csv.error());
        if (fields.size() == 1 && trim(fields[0]).empty()) continue;  // blank line
        if (fields.size() != columns)
            return lineError(path, line, "expected " + std::to_string(columns) + " fields, found " +
                                             std::to_string(fields.size()));
        RawEvent event;
        event.request = trim(fields[colRequest]);
        event.host = trim(fields[colHost]);
        event.task = trim(fields[colTask]);
        event.event = trim(fields[colEvent]);
        if (Status s = parseTimestamp(fields[colTs], nanoseconds, event.tsNs); !s) return lineError(path, line, s.message());
        if (colSeq >= 0) {
            std::int64_t seq;
            if (!parseInteger(fields[colSeq], seq))
                return lineError(path, line, "seq '" + std::string(fields[colSeq]) + "' is not an integer");
            event.seq = seq;
        }
        for (std::size_t i = 0; i < attributeColumns.size(); ++i) attributes[i].value = trim(fields[attributeColumns[i]]);
        event.attributes = attributes;
        if (Status s = writer.addEvent(event); !s) return lineError(path, line, s.message());
        if (++rows % kCheckEvery == 0) {
            if (cancel && cancel->isCancelled()) return Status::error("import cancelled");
            if (progress) progress(lines.bytesConsumed());
        }
    }
    if (progress) progress(lines.bytesConsumed());
    return Status::ok();
}

namespace {
// A JSON scalar as the text we store: strings as they are, numbers by their literal, booleans as words.
bool scalarText(const JsonValue& v, std::string& out) {
    switch (v.type()) {
    case JsonValue::Type::String:
    case JsonValue::Type::Number: out = v.string(); return true;
    case JsonValue::Type::Bool: out = v.boolean() ? "true" : "false"; return true;
    default: return false;
    }
}
} // namespace

Status parseEventsJsonl(const std::string& path, ImportWriter& writer, const ByteProgress& progress,
                        const CancelToken* cancel) {
    LineReader lines;
    std::string openError;
    if (!lines.open(path, &openError)) return Status::error(openError);
    lines.setMaxLineBytes(kMaxJsonValueBytes);
    std::string_view text;
    JsonValue object;
    std::string request, host, task, eventName, error;
    std::vector<std::string> attrStorage;
    std::vector<RawAttribute> attributes;
    std::uint64_t rows = 0;
    bool sawAny = false;

    while (lines.nextLine(text)) {
        const std::uint64_t line = lines.lineNumber();
        if (trim(text).empty()) continue;
        sawAny = true;
        std::size_t offset = 0;
        if (!JsonValue::parse(text, object, &error, &offset))
            return lineError(path, line, "invalid JSON at column " + std::to_string(offset + 1) + ": " + error);
        if (!object.isObject()) return lineError(path, line, "expected a JSON object per line");

        auto required = [&](const char* key, std::string& out) -> Status {
            const JsonValue* v = object.find(key);
            if (!v || v->isNull()) return Status::error(std::string("missing required key '") + key + "'");
            if (!scalarText(*v, out) || (v->isString() && v->string().empty()))
                return Status::error(std::string("key '") + key + "' must be a non-empty string or number");
            return Status::ok();
        };
        RawEvent event;
        for (auto [key, target] : {std::pair{"request", &request}, {"host", &host}, {"task", &task}, {"event", &eventName}})
            if (Status s = required(key, *target); !s) return lineError(path, line, s.message());
        event.request = request;
        event.host = host;
        event.task = task;
        event.event = eventName;

        // The number's literal text (or a numeric string), never its double: decimals are kept to the ns.
        const JsonValue* ts = object.find("ts_us");
        const JsonValue* tsNs = object.find("ts_ns");
        if (ts && !ts->isNull() && tsNs && !tsNs->isNull()) return lineError(path, line, "both ts_us and ts_ns given; give one");
        const bool nanoseconds = !ts || ts->isNull();
        if (nanoseconds) ts = tsNs;
        if (!ts || ts->isNull()) return lineError(path, line, "missing required key 'ts_us' (or 'ts_ns')");
        if (!ts->isNumber() && !ts->isString())
            return lineError(path, line, std::string(nanoseconds ? "ts_ns" : "ts_us") + " is not a number");
        if (Status s = parseTimestamp(ts->string(), nanoseconds, event.tsNs); !s) return lineError(path, line, s.message());

        if (const JsonValue* seq = object.find("seq"); seq && !seq->isNull()) {
            std::int64_t value;
            if (!(seq->isNumber() || seq->isString()) || !parseInteger(seq->string(), value))
                return lineError(path, line, "seq is not an integer");
            event.seq = value;
        }

        // Attributes: the "attrs" object plus any other top-level scalar key (as CSV's extra columns).
        attrStorage.clear();
        std::vector<std::pair<std::string_view, const JsonValue*>> sources;
        for (const auto& [key, value] : object.object()) {
            if (key == "request" || key == "host" || key == "task" || key == "event" || key == "ts_us" || key == "ts_ns" || key == "seq")
                continue;
            if (key == "attrs") {
                if (value.isNull()) continue;
                if (!value.isObject()) return lineError(path, line, "attrs must be an object");
                for (const auto& [attrKey, attrValue] : value.object()) sources.emplace_back(attrKey, &attrValue);
            } else {
                sources.emplace_back(key, &value);
            }
        }
        attrStorage.reserve(sources.size());
        attributes.clear();
        for (const auto& [key, value] : sources) {
            std::string textValue;
            if (value->isNull()) continue;
            if (!scalarText(*value, textValue))
                return lineError(path, line, "attribute '" + std::string(key) + "' must be a string, number or boolean");
            attrStorage.push_back(std::move(textValue));
            attributes.push_back({key, attrStorage.back()});
        }
        event.attributes = attributes;
        if (Status s = writer.addEvent(event); !s) return lineError(path, line, s.message());
        if (++rows % kCheckEvery == 0) {
            if (cancel && cancel->isCancelled()) return Status::error("import cancelled");
            if (progress) progress(lines.bytesConsumed());
        }
    }
    if (lines.lineTooLong())
        return lineError(path, lines.lineNumber(), "line at byte " + std::to_string(lines.lineStartOffset()) +
                                                       " is longer than the limit of 64 MiB for one JSON value");
    if (!sawAny) return Status::error(path + ": empty file (no events)");
    if (progress) progress(lines.bytesConsumed());
    return Status::ok();
}

} // namespace tracelight
