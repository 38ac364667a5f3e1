#include "import/spans/SpanParsers.h"
#include "import/spans/OtlpMapping.h"
#include "import/spans/TwoCoreParse.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "tracelight/import/Csv.h"
#include "tracelight/base/Json.h"
#include "tracelight/base/JsonStream.h"
#include "tracelight/import/LineReader.h"

namespace tracelight {

namespace {

constexpr std::uint64_t kCheckEvery = 256;

// Parses each element of an opened array stream (on two cores, TwoCoreParse.h) and hands it to handle with
// its location ("file: byte N: "); handle's spans go to `into`, and reach sink in element order. handle
// runs on either thread, as readPlain does (an element read straight from its text, TwoCoreParse.h).
Status forEachElement(JsonArrayStream& stream, const std::string& path,
                      const std::function<Status(const JsonValue&, const std::string&, const SpanSink&)>& handle,
                      const SpanSink& sink, const ByteCounter& progress, const CancelToken* cancel,
                      TwoCoreParse::ReadPlain readPlain = {}) {
    TwoCoreParse parallel(
        path, [&](const JsonValue& value, const std::string& where, std::uint32_t, const SpanSink& into) { return handle(value, where, into); },
        sink, std::move(readPlain));
    std::uint64_t offset = 0, count = 0;
    while (stream.nextText(offset)) {
        if (Status s = parallel.add(stream.elementText(), offset); !s) return s;
        if (++count % 16 == 0) {
            if (cancel && cancel->isCancelled()) return Status::error("import cancelled");
            if (progress) progress(stream.bytesRead());
        }
    }
    // What was read before a broken place comes first, as it did when every element was parsed at once.
    if (Status s = parallel.finish(); !s) return s;
    if (!stream.error().empty()) return Status::error(path + ": " + stream.error());
    return Status::ok();
}

// A JSON scalar as text (strings as they are, numbers by their literal).
std::string scalar(const JsonValue* v) {
    if (!v) return {};
    switch (v->type()) {
    case JsonValue::Type::String:
    case JsonValue::Type::Number: return v->string();
    case JsonValue::Type::Bool: return v->boolean() ? "true" : "false";
    default: return {};
    }
}

// An integer given as a JSON number or a numeric string (OTLP writes 64-bit nanoseconds as strings).
bool integerOf(const JsonValue* v, std::int64_t& out) {
    if (!v || !(v->isNumber() || v->isString())) return false;
    // Exactly from the literal (1.5e18 and the like too); empty beyond 64 bits.
    const auto n = parseDecimalTime(v->string(), 0);
    if (!n) return false;
    out = *n;
    return true;
}

// A 64-bit integer that integerOf does not take (INT64_MAX, which stands for "no time", and INT64_MIN): a
// time out of range, which the span's trace is warned about. Beyond 64 bits is refused (as 1e30 is).
std::optional<std::int64_t> extremeInteger(const JsonValue* v) {
    if (!v || !(v->isNumber() || v->isString())) return std::nullopt;
    const std::string& text = v->string();
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// A time that is given must be an integer the importer can hold: 1e20 is out of range, not "no timestamp"
// (which is what an absent field means). With a duration, start + duration must be in range too.
Status checkTime(const JsonValue& object, const char* field, const std::string& where, const std::string& spanId,
                 const char* durationField = nullptr) {
    const JsonValue* v = object.find(field);
    if (!v || v->isNull()) return Status::ok();
    std::int64_t value = 0;
    if (!integerOf(v, value)) {
        double d = 0;
        const std::string& t = v->string();
        const bool numeric = (v->isNumber() || v->isString()) && !t.empty() &&
                             std::from_chars(t.data(), t.data() + t.size(), d).ptr == t.data() + t.size();
        return Status::error(where + "span " + spanId + ": " + field + " " + (v->isString() || v->isNumber() ? t : "value") +
                             (numeric ? " is out of range (beyond a 64-bit integer)" : " is not an integer"));
    }
    if (!durationField) return Status::ok();
    // A duration must be an integer too; a start + duration beyond 64-bit nanoseconds is a per-trace
    // warning (microsecondSpan), the span dropped, not an error of the whole input.
    const JsonValue* dv = object.find(durationField);
    std::int64_t duration = 0;
    if (!dv || dv->isNull() || integerOf(dv, duration) || extremeInteger(dv)) return Status::ok();
    return Status::error(where + "span " + spanId + ": " + durationField + " " + (dv->isString() || dv->isNumber() ? dv->string() : "value") +
                         " is out of range or not an integer");
}

// Jaeger and Zipkin give microseconds: start and start + duration in ns, or, beyond 64 bits, a reason
// the assembler turns into a warning for the span's trace.
void microsecondSpan(RawSpan& span, std::int64_t startUs, std::int64_t durationUs) {
    const auto start = checkedMul(startUs, kNsPerUs);
    const auto duration = checkedMul(durationUs, kNsPerUs);
    const auto end = start && duration ? checkedAdd(*start, *duration) : std::nullopt;
    if (!end) {
        span.timeError = "start " + std::to_string(startUs) + " us + duration " + std::to_string(durationUs) +
                         " us is out of range (64-bit nanoseconds)";
        return;
    }
    span.startNs = *start;
    span.endNs = *end;
}

// A Jaeger or Zipkin span's start and duration fields (microseconds), checked, into the span.
Status microsecondTimes(const JsonValue& s, const char* startField, const std::string& where, RawSpan& span) {
    if (Status st = checkTime(s, startField, where, span.spanId, "duration"); !st) return st;
    std::int64_t start = 0, duration = 0;
    span.hasTimestamp = integerOf(s.find(startField), start);
    if (!integerOf(s.find("duration"), duration))
        if (const auto extreme = extremeInteger(s.find("duration"))) {  // at the 64-bit limits: never 0 in silence
            span.timeError = "duration " + std::to_string(*extreme) + " us is out of range (64-bit nanoseconds)";
            return Status::ok();
        }
    microsecondSpan(span, start, duration);
    return Status::ok();
}

// OTLP AnyValue: {"stringValue": ...} and friends, as text.
std::string otlpValue(const JsonValue* v) {
    if (!v || !v->isObject() || v->object().empty()) return {};
    const auto& [kind, value] = v->object().front();
    if (kind == "arrayValue" || kind == "kvlistValue") return "[...]";
    return scalar(&value);
}

void otlpAttributes(const JsonValue* list, std::vector<std::pair<std::string, std::string>>& out) {
    if (!list || !list->isArray()) return;
    for (const auto& kv : list->array()) {
        const JsonValue* k = kv.find("key");
        if (k && k->isString()) out.emplace_back(k->string(), otlpValue(kv.find("value")));
    }
}

// reject: as the protobuf reader's (OtlpProtobuf.cpp).
Status parseOtlpResourceSpans(const JsonValue& rs, const std::string& where, const SpanSink& sink, const SpanReject* reject = nullptr) {
    if (!rs.isObject()) return Status::error(where + "resourceSpans element is not an object");
    std::vector<std::pair<std::string, std::string>> resource;
    if (const JsonValue* r = rs.find("resource")) otlpAttributes(r->find("attributes"), resource);
    std::string service, host;
    otlp::serviceAndHost(resource, service, host);
    const JsonValue* scopes = rs.find("scopeSpans");
    if (!scopes) scopes = rs.find("instrumentationLibrarySpans");  // older collectors
    if (!scopes) return Status::ok();
    if (!scopes->isArray()) return Status::error(where + "scopeSpans is not an array");
    for (const auto& scope : scopes->array()) {
        const JsonValue* spans = scope.find("spans");
        if (!spans) continue;
        if (!spans->isArray()) return Status::error(where + "spans is not an array");
        for (const auto& s : spans->array()) {
            // A span that cannot be read: rejected (the others go on) when the caller takes rejects, else an error.
            const auto bad = [&](const Status& why) {
                if (reject) (*reject)(why.message());
                return reject != nullptr;
            };
            if (!s.isObject()) {
                if (bad(Status::error(where + "a span is not an object"))) continue;
                return Status::error(where + "a span is not an object");
            }
            RawSpan span;
            // Ids are hex, and their case says nothing: lowercase, as the protobuf form spells them.
            span.traceId = otlp::lowercase(scalar(s.find("traceId")));
            span.spanId = otlp::lowercase(scalar(s.find("spanId")));
            span.parentId = otlp::lowercase(scalar(s.find("parentSpanId")));
            if (span.traceId.empty() || span.spanId.empty()) {
                if (bad(Status::error(where + "a span has no traceId or spanId"))) continue;
                return Status::error(where + "a span has no traceId or spanId");
            }
            span.operation = scalar(s.find("name"));
            span.service = service;
            span.host = host;
            Status times = Status::ok();
            for (const char* field : {"startTimeUnixNano", "endTimeUnixNano"})
                if (times) times = checkTime(s, field, where, span.spanId);
            if (!times) {
                if (bad(times)) continue;
                return times;
            }
            std::int64_t start = 0, end = 0;
            if (!integerOf(s.find("startTimeUnixNano"), start) || !integerOf(s.find("endTimeUnixNano"), end)) {
                span.hasTimestamp = false;
            }
            span.startNs = start;
            span.endNs = end;
            span.processAttributes = resource;
            otlpAttributes(s.find("attributes"), span.attributes);
            if (const JsonValue* kind = s.find("kind")) span.attributes.emplace_back("span.kind", scalar(kind));
            // Its status, as Jaeger keeps it: otel.status_code ERROR or OK (unset says nothing) and the message.
            if (const JsonValue* status = s.find("status"); status && status->isObject())
                otlp::addStatus(span, scalar(status->find("code")), scalar(status->find("message")));
            if (const JsonValue* links = s.find("links"); links && links->isArray())
                for (const auto& link : links->array())
                    otlp::addLink(span, otlp::lowercase(scalar(link.find("traceId"))), otlp::lowercase(scalar(link.find("spanId"))));
            Status eventTimes = Status::ok();
            if (const JsonValue* events = s.find("events"); events && events->isArray())
                for (const auto& e : events->array()) {
                    std::int64_t t = 0;
                    if (eventTimes = checkTime(e, "timeUnixNano", where, span.spanId); !eventTimes) break;
                    if (integerOf(e.find("timeUnixNano"), t)) span.events.emplace_back(scalar(e.find("name")), t);
                }
            if (!eventTimes) {
                if (bad(eventTimes)) continue;
                return eventTimes;
            }
            if (Status st = sink(std::move(span)); !st) return st;
        }
    }
    return Status::ok();
}


// OTLP attributes ([{"key": ..., "value": {"stringValue": ...}}, ...]) as otlpAttributes reads them, into `out`.
bool plainOtlpAttributes(LeanJson& in, std::vector<std::pair<std::string_view, std::string_view>>& out) {
    using Kind = LeanJson::Kind;
    if (in.peek() != Kind::Array) return in.skip();
    in.beginArray();
    while (in.element()) {
        if (in.peek() != Kind::Object) {
            if (!in.skip()) return false;
            continue;
        }
        in.beginObject();
        std::string_view key, value;
        bool haveKey = false;
        for (std::string_view k; in.member(k);) {
            if (k == "key" && in.peek() == Kind::String) {
                haveKey = in.string(key);
            } else if (k == "value" && in.peek() == Kind::Object) {
                in.beginObject();  // its first member, {"stringValue": "x"} and the like
                std::string_view type;
                for (bool first = true; in.member(type); first = false) {
                    if (!first) in.skip();
                    else if (type == "arrayValue" || type == "kvlistValue") value = "[...]", in.skip();
                    else in.scalar(value);
                }
            } else {
                in.skip();
            }
        }
        if (!in.ok()) return false;
        if (haveKey) out.emplace_back(key, value);
    }
    return in.ok();
}

// An OTLP time as checkTime and integerOf read it: absent or null is no time; a number or numeric string an
// integer that fits; anything else (false: give up) is parseOtlpResourceSpans's to word.
bool plainOtlpTime(LeanJson& in, std::optional<std::int64_t>& out) {
    using Kind = LeanJson::Kind;
    if (in.peek() == Kind::Null) return in.null();
    if (in.peek() != Kind::String && in.peek() != Kind::Number) return in.giveUp();
    std::string_view text;
    if (!in.scalar(text)) return false;
    out = parseDecimalTime(text, 0);
    return out || in.giveUp();
}

// One resourceSpans element as parseOtlpResourceSpans reads it (with no rejects), straight from its text: false
// when it is not plain (LeanJson) or anything in it is not as that reads it without a word; nothing is added to
// `into` then. Read twice: the resource (which may come after the spans) first, then the spans.
bool plainOtlpResourceSpans(LeanJson& in, std::string_view text, std::vector<RawSpan>& into) {
    using Kind = LeanJson::Kind;
    thread_local std::vector<std::pair<std::string_view, std::string_view>> resourceViews, attributes;
    struct Event {
        std::string_view name;
        std::int64_t timeNs;
    };
    thread_local std::vector<Event> events;
    thread_local std::vector<std::pair<std::string_view, std::string_view>> links;
    resourceViews.clear();
    in.reset(text);
    bool haveScopeSpans = false;
    if (in.peek() != Kind::Object || !in.beginObject()) return false;
    for (std::string_view key; in.member(key);) {
        if (key == "resource" && in.peek() == Kind::Object) {
            in.beginObject();
            for (std::string_view k; in.member(k);)
                if (k == "attributes") plainOtlpAttributes(in, resourceViews);
                else in.skip();
        } else {
            haveScopeSpans = haveScopeSpans || key == "scopeSpans";
            in.skip();
        }
        if (!in.ok()) return false;
    }
    if (!in.atEnd()) return false;
    std::vector<std::pair<std::string, std::string>> resource;
    resource.reserve(resourceViews.size());
    for (const auto& [k, v] : resourceViews) resource.emplace_back(k, v);
    std::string service, host;
    otlp::serviceAndHost(resource, service, host);

    const std::size_t before = into.size();
    const auto givenUp = [&] {
        into.erase(into.begin() + static_cast<std::ptrdiff_t>(before), into.end());
        return false;
    };
    const std::string_view scopesKey = haveScopeSpans ? "scopeSpans" : "instrumentationLibrarySpans";  // older collectors
    in.reset(text);
    in.beginObject();
    for (std::string_view key; in.member(key);) {
        if (key != scopesKey) {
            if (!in.skip()) return givenUp();
            continue;
        }
        if (in.peek() != Kind::Array) return givenUp();  // "scopeSpans is not an array"
        in.beginArray();
        while (in.element()) {
            if (in.peek() != Kind::Object) {
                if (!in.skip()) return givenUp();
                continue;
            }
            in.beginObject();
            for (std::string_view scopeKey; in.member(scopeKey);) {
                if (scopeKey != "spans") {
                    in.skip();
                    continue;
                }
                if (in.peek() != Kind::Array) return givenUp();  // "spans is not an array"
                in.beginArray();
                while (in.element()) {
                    if (in.peek() != Kind::Object) return givenUp();
                    in.beginObject();
                    std::string_view traceId, spanId, parentId, name, kind, statusCode, statusMessage;
                    std::optional<std::int64_t> start, end;
                    bool haveKind = false, haveStatus = false;
                    attributes.clear();
                    events.clear();
                    links.clear();
                    for (std::string_view k; in.member(k);) {
                        if (k == "traceId") in.scalar(traceId);
                        else if (k == "spanId") in.scalar(spanId);
                        else if (k == "parentSpanId") in.scalar(parentId);
                        else if (k == "name") in.scalar(name);
                        else if (k == "startTimeUnixNano") plainOtlpTime(in, start);
                        else if (k == "endTimeUnixNano") plainOtlpTime(in, end);
                        else if (k == "attributes") plainOtlpAttributes(in, attributes);
                        else if (k == "kind") haveKind = true, in.scalar(kind);
                        else if (k == "status" && in.peek() == Kind::Object) {
                            haveStatus = true;
                            in.beginObject();
                            for (std::string_view sk; in.member(sk);)
                                if (sk == "code") in.scalar(statusCode);
                                else if (sk == "message") in.scalar(statusMessage);
                                else in.skip();
                        } else if (k == "links" && in.peek() == Kind::Array) {
                            in.beginArray();
                            while (in.element()) {
                                if (in.peek() != Kind::Object) {
                                    in.skip();
                                    continue;
                                }
                                in.beginObject();
                                std::pair<std::string_view, std::string_view> link;
                                for (std::string_view lk; in.member(lk);)
                                    if (lk == "traceId") in.scalar(link.first);
                                    else if (lk == "spanId") in.scalar(link.second);
                                    else in.skip();
                                links.push_back(link);
                            }
                        } else if (k == "events" && in.peek() == Kind::Array) {
                            in.beginArray();
                            while (in.element()) {
                                if (in.peek() != Kind::Object) {
                                    in.skip();
                                    continue;
                                }
                                in.beginObject();
                                Event e{{}, 0};
                                std::optional<std::int64_t> time;
                                for (std::string_view ek; in.member(ek);)
                                    if (ek == "timeUnixNano") plainOtlpTime(in, time);
                                    else if (ek == "name") in.scalar(e.name);
                                    else in.skip();
                                if (time) e.timeNs = *time, events.push_back(e);
                            }
                        } else {
                            in.skip();
                        }
                        if (!in.ok()) return givenUp();
                    }
                    if (!in.ok() || traceId.empty() || spanId.empty()) return givenUp();  // "a span has no traceId or spanId"

                    RawSpan span;
                    span.traceId = otlp::lowercase(std::string(traceId));
                    span.spanId = otlp::lowercase(std::string(spanId));
                    span.parentId = otlp::lowercase(std::string(parentId));
                    span.operation.assign(name);
                    span.service = service;
                    span.host = host;
                    span.hasTimestamp = start && end;
                    span.startNs = start.value_or(0);
                    span.endNs = start ? end.value_or(0) : 0;  // as parseOtlpResourceSpans: no start, no end either
                    span.processAttributes = resource;
                    span.attributes.reserve(attributes.size() + 3);
                    for (const auto& [ak, av] : attributes) span.attributes.emplace_back(ak, av);
                    if (haveKind) span.attributes.emplace_back("span.kind", kind);
                    if (haveStatus) otlp::addStatus(span, statusCode, std::string(statusMessage));
                    for (const auto& [linkTrace, linkSpan] : links)
                        otlp::addLink(span, otlp::lowercase(std::string(linkTrace)), otlp::lowercase(std::string(linkSpan)));
                    for (const Event& e : events) span.events.emplace_back(e.name, e.timeNs);
                    into.push_back(std::move(span));
                }
                if (!in.ok()) return givenUp();
            }
            if (!in.ok()) return givenUp();
        }
        if (!in.ok()) return givenUp();
    }
    if (!in.ok()) return givenUp();
    return true;
}

// One line of the collector's file exporter ({"resourceSpans": [...]}) read plainly, or nothing added to `into`.
bool plainOtlpLine(LeanJson& line, LeanJson& element, std::string_view text, std::vector<RawSpan>& into) {
    using Kind = LeanJson::Kind;
    const std::size_t before = into.size();
    bool sawResourceSpans = false, plain = true;
    line.reset(text);
    if (line.peek() != Kind::Object || !line.beginObject()) return false;
    for (std::string_view key; plain && line.member(key);) {
        if (key != "resourceSpans") {
            plain = line.skip();
            continue;
        }
        sawResourceSpans = true;
        plain = line.peek() == Kind::Array && line.beginArray();
        while (plain && line.element()) {
            line.peek();
            const char* begin = line.position();
            plain = line.skip() && plainOtlpResourceSpans(element, std::string_view(begin, static_cast<std::size_t>(line.position() - begin)), into);
        }
        plain = plain && line.ok();
    }
    if (plain && sawResourceSpans && line.atEnd()) return true;
    into.erase(into.begin() + static_cast<std::ptrdiff_t>(before), into.end());
    return false;
}

} // namespace

Status parseOtlpJson(const std::string& path, const SpanSink& sink, const ByteCounter& progress, const CancelToken* cancel,
                     PlainSpans plain) {
    // The collector's file exporter writes one ExportTraceServiceRequest per line; a single (pretty) document
    // is streamed by its resourceSpans elements instead.
    {
        LineReader lines;
        std::string error;
        if (!lines.open(path, &error)) return Status::error(error);
        lines.setMaxLineBytes(kMaxJsonValueBytes);  // a longer first line: streamed as one document below
        std::string_view first;
        while (lines.nextLine(first) && first.find_first_not_of(" \t") == std::string_view::npos) {}
        JsonValue probe;
        if (JsonValue::parse(first, probe, nullptr, nullptr) && probe.isObject()) {
            std::uint64_t count = 0;
            std::string_view line = first;
            LeanJson lineReader, elementReader;
            std::vector<RawSpan> spans;
            do {
                if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
                spans.clear();
                if (plain == PlainSpans::WhereTheyAre && plainOtlpLine(lineReader, elementReader, line, spans)) {
                    for (RawSpan& span : spans)
                        if (Status s = sink(std::move(span)); !s) return s;
                } else {
                    JsonValue doc;
                    std::size_t offset = 0;
                    const std::string where = path + ":" + std::to_string(lines.lineNumber()) + ": ";
                    if (!JsonValue::parse(line, doc, &error, &offset))
                        return Status::error(where + "invalid JSON at column " + std::to_string(offset + 1) + ": " + error);
                    const JsonValue* rs = doc.find("resourceSpans");
                    if (!rs || !rs->isArray()) return Status::error(where + "no resourceSpans array (not OTLP JSON)");
                    for (const auto& r : rs->array())
                        if (Status s = parseOtlpResourceSpans(r, where, sink); !s) return s;
                }
                if (++count % kCheckEvery == 0) {
                    if (cancel && cancel->isCancelled()) return Status::error("import cancelled");
                    if (progress) progress(lines.bytesConsumed());
                }
            } while (lines.nextLine(line));
            if (lines.lineTooLong())
                return Status::error(path + ":" + std::to_string(lines.lineNumber()) + ": line at byte " +
                                     std::to_string(lines.lineStartOffset()) + " is longer than the limit of 64 MiB for one JSON value");
            return Status::ok();
        }
    }
    JsonArrayStream stream;
    std::string error;
    if (!stream.open(path, "resourceSpans", &error)) return Status::error(path + ": " + error + " (not OTLP JSON)");
    return forEachElement(
        stream, path, [&](const JsonValue& rs, const std::string& where, const SpanSink& into) { return parseOtlpResourceSpans(rs, where, into); },
        sink, progress, cancel,
        plain == PlainSpans::Never ? TwoCoreParse::ReadPlain{}
                                   : [](LeanJson& reader, std::string_view text, std::uint32_t, std::vector<RawSpan>& into) {
                                         return plainOtlpResourceSpans(reader, text, into);
                                     });
}

Status decodeOtlpJsonBody(std::string_view body, const SpanSink& sink, const SpanReject& reject) {
    JsonValue doc;
    std::string error;
    std::size_t offset = 0;
    if (!JsonValue::parse(body, doc, &error, &offset)) return Status::error("byte " + std::to_string(offset) + ": invalid JSON: " + error);
    if (!doc.isObject()) return Status::error("byte 0: not an OTLP ExportTraceServiceRequest (a JSON object)");
    const JsonValue* rs = doc.find("resourceSpans");
    if (!rs) return Status::ok();  // an empty request: nothing to store
    if (!rs->isArray()) return Status::error("resourceSpans is not an array");
    std::size_t i = 0;
    for (const auto& r : rs->array()) {
        const std::string where = "resourceSpans[" + std::to_string(i++) + "]: ";
        if (Status s = parseOtlpResourceSpans(r, where, sink, &reject); !s) return s;
    }
    return Status::ok();
}

namespace {
// What a Jaeger span takes from its trace: the trace id, and the process table when the trace has one
// (otherwise each span carries its own "process").
struct JaegerProcess {
    std::string service, host;
    std::vector<std::pair<std::string, std::string>> attributes;
};
struct JaegerTraceContext {
    std::string traceId;
    bool hasProcessTable = false;
    std::unordered_map<std::string, JaegerProcess> processes;
};

JaegerProcess jaegerProcess(const JsonValue& process) {
    JaegerProcess out;
    out.service = scalar(process.find("serviceName"));
    if (const JsonValue* tags = process.find("tags"); tags && tags->isArray())
        for (const auto& t : tags->array()) {
            const std::string k = scalar(t.find("key"));
            if (k == "hostname" || k == "host.name") out.host = scalar(t.find("value"));
            out.attributes.emplace_back(k, scalar(t.find("value")));
        }
    return out;
}

void setProcessTable(JaegerTraceContext& trace, const JsonValue& processes) {
    trace.hasProcessTable = processes.isObject();
    if (processes.isObject())
        for (const auto& [id, process] : processes.object())
            if (process.isObject()) trace.processes.emplace(id, jaegerProcess(process));  // the first of an id wins, as find()
}

Status jaegerSpan(const JsonValue& s, const JaegerTraceContext& trace, const std::string& where, const SpanSink& sink) {
    if (!s.isObject()) return Status::error(where + "a span is not an object");
    RawSpan span;
    span.traceId = scalar(s.find("traceID"));
    if (span.traceId.empty()) span.traceId = trace.traceId;
    span.spanId = scalar(s.find("spanID"));
    if (span.traceId.empty() || span.spanId.empty()) return Status::error(where + "a span has no traceID or spanID");
    span.operation = scalar(s.find("operationName"));
    if (Status st = microsecondTimes(s, "startTime", where, span); !st) return st;
    // Parent: the first CHILD_OF reference; FOLLOWS_FROM when there is none.
    if (const JsonValue* refs = s.find("references"); refs && refs->isArray()) {
        for (const auto& r : refs->array())
            if (scalar(r.find("refType")) == "CHILD_OF" && span.parentId.empty()) span.parentId = scalar(r.find("spanID"));
        for (const auto& r : refs->array())
            if (scalar(r.find("refType")) == "FOLLOWS_FROM") {
                if (span.parentId.empty()) {
                    span.parentId = scalar(r.find("spanID"));
                    span.parentFollowsFrom = true;
                } else {
                    span.followsFrom.push_back(scalar(r.find("spanID")));
                }
            }
    }
    if (span.parentId.empty()) span.parentId = scalar(s.find("parentSpanID"));
    auto useProcess = [&](const JaegerProcess& p) {
        span.service = p.service;
        span.host = p.host;
        span.processAttributes = p.attributes;
    };
    if (trace.hasProcessTable) {
        if (auto known = trace.processes.find(scalar(s.find("processID"))); known != trace.processes.end()) useProcess(known->second);
    } else if (const JsonValue* process = s.find("process"); process && process->isObject()) {
        useProcess(jaegerProcess(*process));
    }
    if (const JsonValue* tags = s.find("tags"); tags && tags->isArray())
        for (const auto& t : tags->array()) span.attributes.emplace_back(scalar(t.find("key")), scalar(t.find("value")));
    if (const JsonValue* logs = s.find("logs"); logs && logs->isArray())
        for (const auto& l : logs->array()) {
            std::int64_t t = 0;
            if (Status st = checkTime(l, "timestamp", where, span.spanId); !st) return st;
            if (!integerOf(l.find("timestamp"), t)) continue;
            std::string name = "log";
            if (const JsonValue* fields = l.find("fields"); fields && fields->isArray())
                for (const auto& f : fields->array())
                    if (scalar(f.find("key")) == "event" || scalar(f.find("key")) == "message") name = scalar(f.find("value"));
            if (auto ns = checkedMul(t, kNsPerUs)) span.events.emplace_back(name, *ns);
            else span.timeError = "log time " + std::to_string(t) + " us is out of range";
        }
    return sink(std::move(span));
}

// A Jaeger span as jaegerSpan reads it, straight from its text (no document, no text per value until the span's
// own): false when the text is not plain (LeanJson) or anything in it is not as jaegerSpan reads it without
// a word (times as plain integers, objects where it looks into them, a process table), and jaegerSpan reads it
// instead. Nothing is added to `into` then.
bool plainJaegerSpan(LeanJson& in, std::string_view text, const JaegerTraceContext& trace, std::vector<RawSpan>& into) {
    using Kind = LeanJson::Kind;
    in.reset(text);
    std::string_view traceId, spanId, operation, parentSpanId, processId;
    std::int64_t start = 0, duration = 0;
    bool haveStart = false, haveDuration = false;
    struct Ref {
        std::string_view type, spanId;
    };
    struct Log {
        std::int64_t timestampUs;
        std::string_view name;
    };
    // Kept from span to span by each thread that reads them (no allocation per span).
    thread_local std::vector<Ref> refs;
    thread_local std::vector<std::pair<std::string_view, std::string_view>> tags;
    thread_local std::vector<Log> logs;
    refs.clear();
    tags.clear();
    logs.clear();
    // The key and value of a {"key", "value", ...} object (tags, log fields).
    const auto keyValue = [&](std::string_view& key, std::string_view& value) {
        if (in.peek() != Kind::Object || !in.beginObject()) return in.giveUp();
        for (std::string_view k; in.member(k);) {
            if (k == "key") in.scalar(key);
            else if (k == "value") in.scalar(value);
            else in.skip();
        }
        return in.ok();
    };
    if (in.peek() != Kind::Object || !in.beginObject()) return false;
    for (std::string_view key; in.member(key);) {
        if (key == "traceID") {
            in.scalar(traceId);
        } else if (key == "spanID") {
            in.scalar(spanId);
        } else if (key == "operationName") {
            in.scalar(operation);
        } else if (key == "parentSpanID") {
            in.scalar(parentSpanId);
        } else if (key == "processID") {
            in.scalar(processId);
        } else if (key == "startTime") {
            haveStart = in.smallInteger(start);
        } else if (key == "duration") {
            haveDuration = in.smallInteger(duration);
        } else if (key == "process" && !trace.hasProcessTable) {
            return false;  // the span's own process: jaegerSpan's to read
        } else if (key == "references" && in.peek() == Kind::Array) {
            in.beginArray();
            while (in.element()) {
                if (in.peek() != Kind::Object || !in.beginObject()) return false;
                Ref r;
                for (std::string_view k; in.member(k);) {
                    if (k == "refType") in.scalar(r.type);
                    else if (k == "spanID") in.scalar(r.spanId);
                    else in.skip();
                }
                refs.push_back(r);
            }
        } else if (key == "tags" && in.peek() == Kind::Array) {
            in.beginArray();
            while (in.element()) {
                std::string_view k, v;
                if (!keyValue(k, v)) return false;
                tags.emplace_back(k, v);
            }
        } else if (key == "logs" && in.peek() == Kind::Array) {
            in.beginArray();
            while (in.element()) {
                if (in.peek() != Kind::Object || !in.beginObject()) return false;
                Log log{-1, "log"};
                for (std::string_view k; in.member(k);) {
                    if (k == "timestamp") {
                        if (in.peek() == Kind::Null) in.null();  // as if absent: the log is passed over
                        else in.smallInteger(log.timestampUs);
                    } else if (k == "fields" && in.peek() == Kind::Array) {
                        in.beginArray();
                        while (in.element()) {
                            std::string_view fk, fv;
                            if (!keyValue(fk, fv)) return false;
                            if (fk == "event" || fk == "message") log.name = fv;
                        }
                    } else {
                        in.skip();
                    }
                }
                if (log.timestampUs >= 0) logs.push_back(log);
            }
        } else {
            in.skip();
        }
        if (!in.ok()) return false;
    }
    if (!in.atEnd() || !haveStart || !haveDuration) return false;
    if (traceId.empty()) traceId = trace.traceId;
    if (traceId.empty() || spanId.empty()) return false;  // refused, in jaegerSpan's words

    RawSpan span;
    span.traceId.assign(traceId);
    span.spanId.assign(spanId);
    span.operation.assign(operation);
    microsecondSpan(span, start, duration);
    // Parent: the first CHILD_OF reference; FOLLOWS_FROM when there is none (as jaegerSpan).
    std::string_view parent;
    for (const Ref& r : refs)
        if (r.type == "CHILD_OF" && parent.empty()) parent = r.spanId;
    for (const Ref& r : refs)
        if (r.type == "FOLLOWS_FROM") {
            if (parent.empty()) {
                parent = r.spanId;
                span.parentFollowsFrom = true;
            } else {
                span.followsFrom.emplace_back(r.spanId);
            }
        }
    if (parent.empty()) parent = parentSpanId;
    span.parentId.assign(parent);
    if (trace.hasProcessTable)
        if (auto known = trace.processes.find(std::string(processId)); known != trace.processes.end()) {
            span.service = known->second.service;
            span.host = known->second.host;
            span.processAttributes = known->second.attributes;
        }
    span.attributes.reserve(tags.size());
    for (const auto& [k, v] : tags) span.attributes.emplace_back(k, v);
    for (const Log& l : logs) {
        if (auto ns = checkedMul(l.timestampUs, kNsPerUs)) span.events.emplace_back(l.name, *ns);
        else span.timeError = "log time " + std::to_string(l.timestampUs) + " us is out of range";
    }
    into.push_back(std::move(span));
    return true;
}

// One Jaeger trace object held whole: {"traceID", "spans": [...], "processes": {...}}.
Status jaegerTrace(const JsonValue& trace, const std::string& where, const SpanSink& sink) {
    if (!trace.isObject()) return Status::error(where + "a trace is not an object");
    const JsonValue* spans = trace.find("spans");
    if (!spans || !spans->isArray()) return Status::error(where + "a trace has no spans array");
    JaegerTraceContext context;
    context.traceId = scalar(trace.find("traceID"));
    if (const JsonValue* processes = trace.find("processes")) setProcessTable(context, *processes);
    for (const auto& s : spans->array())
        if (Status st = jaegerSpan(s, context, where, sink); !st) return st;
    return Status::ok();
}

// The streamed document's error, or a file that changed between the two passes.
Status streamError(const std::string& path, const JsonArrayStream& stream) {
    return Status::error(path + ": " + (stream.error().empty() ? "the file changed while it was read" : stream.error()));
}
} // namespace

Status parseJaegerJson(const std::string& path, const SpanSink& sink, const ByteCounter& progress, const CancelToken* cancel,
                       PlainSpans plain) {
    JsonArrayStream stream;
    std::string error;
    if (!stream.open(path, "data", &error)) {
        // jaeger-ui also saves a bare trace object; such a document is one trace and is read whole.
        LineReader probe;
        std::string text, openError;
        if (!probe.open(path, &openError)) return Status::error(openError);
        std::string_view line;
        while (probe.nextLine(line)) {
            // Held whole, so held to the limit of one JSON value before it grows past it.
            if (text.size() + line.size() + 1 > kMaxJsonValueBytes)
                return Status::error(path + ":" + std::to_string(probe.lineNumber()) + ": a trace object longer than the limit of 64 MiB for one JSON value");
            (text += line) += '\n';
        }
        if (probe.lineTooLong())
            return Status::error(path + ":" + std::to_string(probe.lineNumber()) + ": line at byte " +
                                 std::to_string(probe.lineStartOffset()) + " is longer than the limit of 64 MiB for one JSON value");
        JsonValue trace;
        std::size_t bad = 0;
        if (JsonValue::parse(text, trace, nullptr, &bad) && trace.isObject() && trace.find("spans"))
            return jaegerTrace(trace, path + ": ", sink);
        return Status::error(path + ": " + error + " (not Jaeger JSON)");
    }
    // Each trace is read member by member and its spans one at a time, so that one trace may be larger
    // than one JSON value may be (a million spans). The process table may follow the spans (Jaeger writes
    // it after them): a first pass reads every trace's id and processes, skipping the spans; the second
    // hands the spans over.
    using Member = JsonArrayStream::Member;
    std::vector<JaegerTraceContext> traces;
    for (;;) {
        JaegerTraceContext context;
        const bool more = stream.nextObject(
            [](std::string_view key) {
                if (key == "traceID" || key == "processes") return Member::Parse;
                return key == "spans" ? Member::SkipUnchecked : Member::Skip;  // the second pass reads the spans
            },
            [&](std::string_view key, const JsonValue& value, std::uint64_t) {
                if (key == "traceID") context.traceId = scalar(&value);
                else setProcessTable(context, value);
                return true;
            });
        if (!more) break;
        traces.push_back(std::move(context));
        if (traces.size() % 16 == 0 && cancel && cancel->isCancelled()) return Status::error("import cancelled");
    }
    if (!stream.error().empty()) return Status::error(path + ": " + stream.error());

    JsonArrayStream spans;
    if (!spans.open(path, "data", &error)) return Status::error(path + ": " + error);
    // Each span is parsed on either of two cores, with its own trace's context (the tag: its index in traces).
    TwoCoreParse parallel(
        path,
        [&](const JsonValue& span, const std::string& where, std::uint32_t trace, const SpanSink& into) {
            return jaegerSpan(span, traces[trace], where, into);
        },
        sink,
        plain == PlainSpans::Never ? TwoCoreParse::ReadPlain{}
                                   : [&](LeanJson& reader, std::string_view text, std::uint32_t trace, std::vector<RawSpan>& into) {
                                         return plainJaegerSpan(reader, text, traces[trace], into);
                                     });
    Status failed = Status::ok();
    std::uint64_t handed = 0;
    for (std::size_t t = 0; t < traces.size(); ++t) {
        bool sawSpans = false;
        const std::uint64_t traceOffset = spans.bytesRead();
        const bool read = spans.nextObject(
            [&](std::string_view key) {
                if (key != "spans") return Member::Skip;
                sawSpans = true;
                return Member::StreamText;
            },
            [&](std::string_view, const JsonValue&, std::uint64_t offset) {
                failed = parallel.add(spans.elementText(), offset, static_cast<std::uint32_t>(t));
                if (failed && ++handed % 256 == 0) {
                    if (cancel && cancel->isCancelled()) failed = Status::error("import cancelled");
                    else if (progress) progress(spans.bytesRead());
                }
                return static_cast<bool>(failed);
            });
        if (!failed) return failed;
        // What was read before a broken place comes first, as it did when every span was parsed at once.
        if (!read || !sawSpans)
            if (Status s = parallel.finish(); !s) return s;
        if (!read) return streamError(path, spans);
        if (!sawSpans) return Status::error(path + ": byte " + std::to_string(traceOffset) + ": a trace has no spans array");
        if (progress) progress(spans.bytesRead());
    }
    if (Status s = parallel.finish(); !s) return s;
    std::uint64_t offset = 0;
    JsonValue rest;
    if (spans.next(rest, offset) || !spans.error().empty()) return streamError(path, spans);
    return Status::ok();
}

namespace {
Status zipkinSpan(const JsonValue& s, const std::string& where, const SpanSink& sink) {
    if (!s.isObject()) return Status::error(where + "a span is not an object");
    RawSpan span;
    span.traceId = scalar(s.find("traceId"));
    span.spanId = scalar(s.find("id"));
    if (span.traceId.empty() || span.spanId.empty()) return Status::error(where + "a span has no traceId or id");
    // Zipkin pads 64-bit trace ids to 128 bits in places: compare on the low 16 hex digits.
    if (span.traceId.size() == 32 && span.traceId.compare(0, 16, "0000000000000000") == 0) span.traceId.erase(0, 16);
    span.parentId = scalar(s.find("parentId"));
    span.operation = scalar(s.find("name"));
    span.shared = s.find("shared") && s.find("shared")->isBool() && s.find("shared")->boolean();
    if (Status st = microsecondTimes(s, "timestamp", where, span); !st) return st;
    if (const JsonValue* local = s.find("localEndpoint"); local && local->isObject()) {
        span.service = scalar(local->find("serviceName"));
        span.host = scalar(local->find("ipv4"));
        if (span.host.empty()) span.host = scalar(local->find("ipv6"));
        if (!span.host.empty() && !span.service.empty()) span.host = span.service + "@" + span.host;
    }
    if (const JsonValue* remote = s.find("remoteEndpoint"); remote && remote->isObject())
        span.attributes.emplace_back("remote.service", scalar(remote->find("serviceName")));
    if (const JsonValue* kind = s.find("kind")) span.attributes.emplace_back("span.kind", scalar(kind));
    if (const JsonValue* tags = s.find("tags"); tags && tags->isObject())
        for (const auto& [k, v] : tags->object()) span.attributes.emplace_back(k, scalar(&v));
    if (const JsonValue* annotations = s.find("annotations"); annotations && annotations->isArray())
        for (const auto& a : annotations->array()) {
            std::int64_t t = 0;
            if (Status st = checkTime(a, "timestamp", where, span.spanId); !st) return st;
            if (!integerOf(a.find("timestamp"), t)) continue;
            if (auto ns = checkedMul(t, kNsPerUs)) span.events.emplace_back(scalar(a.find("value")), *ns);
            else span.timeError = "annotation time " + std::to_string(t) + " us is out of range";
        }
    return sink(std::move(span));
}

// One Zipkin span as zipkinSpan reads it, straight from its text: false when it is not plain (LeanJson) or
// not as zipkinSpan reads it without a word (times as plain integers, objects where it looks into them),
// and zipkinSpan reads it instead.
bool plainZipkinSpan(LeanJson& in, std::vector<RawSpan>& into) {
    using Kind = LeanJson::Kind;
    std::string_view traceId, spanId, parentId, name, service, ipv4, ipv6, remoteService, kind;
    std::int64_t start = 0, duration = 0;
    bool haveStart = false, haveDuration = false, shared = false, haveRemote = false, haveKind = false;
    struct Annotation {
        std::int64_t timestampUs;
        std::string_view value;
    };
    thread_local std::vector<std::pair<std::string_view, std::string_view>> tags;
    thread_local std::vector<Annotation> annotations;
    tags.clear();
    annotations.clear();
    if (in.peek() != Kind::Object || !in.beginObject()) return false;
    for (std::string_view key; in.member(key);) {
        if (key == "traceId") {
            in.scalar(traceId);
        } else if (key == "id") {
            in.scalar(spanId);
        } else if (key == "parentId") {
            in.scalar(parentId);
        } else if (key == "name") {
            in.scalar(name);
        } else if (key == "timestamp") {
            haveStart = in.smallInteger(start);
        } else if (key == "duration") {
            haveDuration = in.smallInteger(duration);
        } else if (key == "shared" && in.peek() == Kind::Bool) {
            in.boolean(shared);
        } else if (key == "kind") {
            haveKind = true;
            in.scalar(kind);
        } else if ((key == "localEndpoint" || key == "remoteEndpoint") && in.peek() == Kind::Object) {
            const bool local = key == "localEndpoint";
            haveRemote = haveRemote || !local;
            in.beginObject();
            for (std::string_view k; in.member(k);) {
                if (k == "serviceName") in.scalar(local ? service : remoteService);
                else if (local && k == "ipv4") in.scalar(ipv4);
                else if (local && k == "ipv6") in.scalar(ipv6);
                else in.skip();
            }
        } else if (key == "tags" && in.peek() == Kind::Object) {
            in.beginObject();
            for (std::string_view k; in.member(k);) {
                std::string_view v;
                if (!in.scalar(v)) return false;
                tags.emplace_back(k, v);
            }
        } else if (key == "annotations" && in.peek() == Kind::Array) {
            in.beginArray();
            while (in.element()) {
                if (in.peek() != Kind::Object || !in.beginObject()) return false;
                Annotation a{-1, {}};
                for (std::string_view k; in.member(k);) {
                    if (k == "timestamp") {
                        if (in.peek() == Kind::Null) in.null();  // as if absent: the annotation is passed over
                        else in.smallInteger(a.timestampUs);
                    } else if (k == "value") {
                        in.scalar(a.value);
                    } else {
                        in.skip();
                    }
                }
                if (a.timestampUs >= 0) annotations.push_back(a);
            }
        } else {
            in.skip();
        }
        if (!in.ok()) return false;
    }
    if (!in.ok() || !haveStart || !haveDuration || traceId.empty() || spanId.empty()) return false;  // zipkinSpan's to word

    RawSpan span;
    // Zipkin pads 64-bit trace ids to 128 bits in places: compare on the low 16 hex digits (as zipkinSpan).
    if (traceId.size() == 32 && traceId.substr(0, 16) == "0000000000000000") traceId.remove_prefix(16);
    span.traceId.assign(traceId);
    span.spanId.assign(spanId);
    span.parentId.assign(parentId);
    span.operation.assign(name);
    span.shared = shared;
    microsecondSpan(span, start, duration);
    span.service.assign(service);
    span.host.assign(ipv4.empty() ? ipv6 : ipv4);
    if (!span.host.empty() && !span.service.empty()) span.host = span.service + "@" + span.host;
    span.attributes.reserve(tags.size() + 2);
    if (haveRemote) span.attributes.emplace_back("remote.service", remoteService);
    if (haveKind) span.attributes.emplace_back("span.kind", kind);
    for (const auto& [k, v] : tags) span.attributes.emplace_back(k, v);
    for (const Annotation& a : annotations) {
        if (auto ns = checkedMul(a.timestampUs, kNsPerUs)) span.events.emplace_back(a.value, *ns);
        else span.timeError = "annotation time " + std::to_string(a.timestampUs) + " us is out of range";
    }
    into.push_back(std::move(span));
    return true;
}

// A Zipkin element (a span, or a list of them) read plainly, or nothing added to `into`.
bool plainZipkinElement(LeanJson& in, std::string_view text, std::vector<RawSpan>& into) {
    in.reset(text);
    const std::size_t before = into.size();
    bool plain = true;
    if (in.peek() == LeanJson::Kind::Array) {
        plain = in.beginArray();
        while (plain && in.element()) plain = plainZipkinSpan(in, into);
        plain = plain && in.ok();
    } else {
        plain = plainZipkinSpan(in, into);
    }
    if (plain && in.atEnd()) return true;
    into.erase(into.begin() + static_cast<std::ptrdiff_t>(before), into.end());
    return false;
}
} // namespace

Status parseZipkinJson(const std::string& path, const SpanSink& sink, const ByteCounter& progress, const CancelToken* cancel,
                       PlainSpans plain) {
    JsonArrayStream stream;
    std::string error;
    if (!stream.open(path, {}, &error)) return Status::error(path + ": " + error + " (not Zipkin JSON)");
    // Elements are spans, or whole traces (lists of spans).
    return forEachElement(
        stream, path,
        [](const JsonValue& v, const std::string& where, const SpanSink& into) {
            if (!v.isArray()) return zipkinSpan(v, where, into);
            for (const auto& span : v.array())
                if (Status st = zipkinSpan(span, where, into); !st) return st;
            return Status::ok();
        },
        sink, progress, cancel,
        plain == PlainSpans::Never ? TwoCoreParse::ReadPlain{}
                                   : [](LeanJson& reader, std::string_view text, std::uint32_t, std::vector<RawSpan>& into) {
                                         return plainZipkinElement(reader, text, into);
                                     });
}

Status parseSpansCsv(const std::string& path, const SpanCsvMapping& givenMapping, const SpanSink& sink,
                     const ByteCounter& progress, const CancelToken* cancel) {
    LineReader lines;
    std::string openError;
    if (!lines.open(path, &openError)) return Status::error(openError);
    CsvReader csv(lines);
    std::vector<std::string_view> fields;
    const auto first = csv.next(fields);
    if (first == CsvReader::Next::End) return Status::error(path + ": empty file (expected a header row)");
    if (first == CsvReader::Next::Error) return Status::error(path + ":1: " + csv.error());
    std::vector<std::string> header(fields.begin(), fields.end());

    SpanCsvMapping mapping = givenMapping;
    if (mapping.columns.empty()) {
        auto guessed = SpanCsvMapping::guess(header);
        if (!guessed) return Status::error(path + ":1: cannot tell which columns hold trace, span, parent, ...; give --map");
        mapping.columns = guessed->columns;
        if (givenMapping.timeUnitExponent == 3 && givenMapping.rootMarker == "root") mapping.timeUnitExponent = guessed->timeUnitExponent;
    }
    auto column = [&](const char* key) -> int {
        auto it = mapping.columns.find(key);
        if (it == mapping.columns.end()) return -1;
        for (std::size_t i = 0; i < header.size(); ++i)
            if (header[i] == it->second) return static_cast<int>(i);
        return -2;  // mapped to a column the header does not have
    };
    for (const auto& [key, name] : mapping.columns)
        if (column(key.c_str()) == -2) return Status::error(path + ":1: no column '" + name + "' (mapped from " + key + ")");
    const int cTrace = column("trace"), cSpan = column("span"), cParent = column("parent"), cService = column("service"),
              cPod = column("pod"), cOperation = column("operation"), cStart = column("start"), cEnd = column("end"),
              cDuration = column("duration"), cHost = column("host");
    if (cTrace < 0 || cSpan < 0 || cStart < 0 || (cEnd < 0 && cDuration < 0))
        return Status::error(path + ":1: the mapping needs trace, span, start and end (or duration)");
    std::vector<int> attributeColumns;
    for (std::size_t i = 0; i < header.size(); ++i) {
        const int c = static_cast<int>(i);
        if (c != cTrace && c != cSpan && c != cParent && c != cService && c != cPod && c != cOperation && c != cStart &&
            c != cEnd && c != cDuration && c != cHost)
            attributeColumns.push_back(c);
    }
    // Exactly, from the decimal text in the mapping's unit: nanosecond timestamps need all 64 bits.
    auto number = [&](std::string_view t, TimeNs& out) {
        auto ns = parseDecimalTime(t, mapping.timeUnitExponent);
        if (ns) out = *ns;
        return ns.has_value();
    };
    std::uint64_t rows = 0;
    for (;;) {
        const auto next = csv.next(fields);
        if (next == CsvReader::Next::End) break;
        const std::string where = path + ":" + std::to_string(csv.recordLine()) + ": ";
        if (next == CsvReader::Next::Error) return Status::error(where + csv.error());
        if (fields.size() == 1 && fields[0].empty()) continue;
        if (fields.size() != header.size())
            return Status::error(where + "expected " + std::to_string(header.size()) + " fields, found " + std::to_string(fields.size()));
        RawSpan span;
        span.traceId = fields[static_cast<std::size_t>(cTrace)];
        span.spanId = fields[static_cast<std::size_t>(cSpan)];
        if (span.traceId.empty() || span.spanId.empty()) return Status::error(where + "empty trace or span id");
        if (cParent >= 0) {
            span.parentId = fields[static_cast<std::size_t>(cParent)];
            if (span.parentId == mapping.rootMarker || span.parentId == "0" || span.parentId == "null") span.parentId.clear();
        }
        if (cService >= 0) span.service = fields[static_cast<std::size_t>(cService)];
        if (cPod >= 0) {
            span.host = fields[static_cast<std::size_t>(cPod)];
            if (span.service.empty()) span.service = serviceFromPodName(span.host);
        }
        if (cHost >= 0) span.host = fields[static_cast<std::size_t>(cHost)];
        if (cOperation >= 0) span.operation = fields[static_cast<std::size_t>(cOperation)];
        TimeNs start = 0, end = 0;
        if (!number(fields[static_cast<std::size_t>(cStart)], start)) return Status::error(where + "start time is not a number (or out of range)");
        if (cEnd >= 0) {
            if (!number(fields[static_cast<std::size_t>(cEnd)], end)) return Status::error(where + "end time is not a number (or out of range)");
        } else {
            TimeNs duration = 0;
            if (!number(fields[static_cast<std::size_t>(cDuration)], duration)) return Status::error(where + "duration is not a number (or out of range)");
            const auto sum = checkedAdd(start, duration);
            if (!sum) return Status::error(where + "start + duration is out of range (64-bit nanoseconds)");
            end = *sum;
        }
        span.startNs = start;
        span.endNs = end;
        for (int c : attributeColumns)
            if (!fields[static_cast<std::size_t>(c)].empty())
                span.attributes.emplace_back(header[static_cast<std::size_t>(c)], std::string(fields[static_cast<std::size_t>(c)]));
        if (Status st = sink(std::move(span)); !st) return Status::error(where + st.message());
        if (++rows % 4096 == 0) {
            if (cancel && cancel->isCancelled()) return Status::error("import cancelled");
            if (progress) progress(lines.bytesConsumed());
        }
    }
    return Status::ok();
}

Result<SpanCsvMapping> SpanCsvMapping::parse(std::string_view spec, std::string_view timeUnit) {
    SpanCsvMapping m;
    static const std::vector<std::string> known = {"trace", "span", "parent", "service", "pod", "operation", "start", "end", "duration", "host"};
    std::size_t pos = 0;
    while (pos < spec.size()) {
        const std::size_t comma = spec.find(',', pos);
        const std::string_view item = spec.substr(pos, comma == std::string_view::npos ? spec.npos : comma - pos);
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size())
            return Status::error("--map: '" + std::string(item) + "' is not key=Column");
        const std::string key(item.substr(0, eq));
        if (std::find(known.begin(), known.end(), key) == known.end())
            return Status::error("--map: unknown key '" + key + "' (trace, span, parent, service, pod, operation, start, end, duration, host)");
        m.columns[key] = std::string(item.substr(eq + 1));
        if (comma == std::string_view::npos) break;
        pos = comma + 1;
    }
    if (timeUnit == "ns") m.timeUnitExponent = 0;
    else if (timeUnit == "us" || timeUnit.empty()) m.timeUnitExponent = 3;
    else if (timeUnit == "ms") m.timeUnitExponent = 6;
    else if (timeUnit == "s") m.timeUnitExponent = 9;
    else return Status::error("--time-unit: '" + std::string(timeUnit) + "' is not ns, us, ms or s");
    return m;
}

std::optional<SpanCsvMapping> SpanCsvMapping::guess(const std::vector<std::string>& header) {
    auto has = [&](const char* name) { return std::find(header.begin(), header.end(), name) != header.end(); };
    if (has("TraceID") && has("SpanID") && has("ParentID") && has("StartTimeUnixNano") && (has("EndTimeUnixNano"))) {
        SpanCsvMapping m;
        m.columns = {{"trace", "TraceID"}, {"span", "SpanID"}, {"parent", "ParentID"}, {"start", "StartTimeUnixNano"}, {"end", "EndTimeUnixNano"}};
        if (has("PodName")) m.columns["pod"] = "PodName";
        if (has("ServiceName")) m.columns["service"] = "ServiceName";
        if (has("OperationName")) m.columns["operation"] = "OperationName";
        if (has("Duration")) m.columns["duration"] = "Duration";  // kept out of the attributes; end wins
        m.timeUnitExponent = 0;
        return m;
    }
    return std::nullopt;
}

bool isSpanFormat(InputFormat f) {
    return f == InputFormat::OtlpJson || f == InputFormat::OtlpProtobuf || f == InputFormat::JaegerJson || f == InputFormat::ZipkinJson ||
           f == InputFormat::SpansCsv;
}

Status parseSpanFile(InputFormat format, const std::string& path, const SpanCsvMapping& mapping, const SpanSink& sink,
                     const ByteCounter& progress, const CancelToken* cancel) {
    switch (format) {
    case InputFormat::OtlpJson: return parseOtlpJson(path, sink, progress, cancel);
    case InputFormat::OtlpProtobuf: return parseOtlpProtobuf(path, sink, progress, cancel);
    case InputFormat::JaegerJson: return parseJaegerJson(path, sink, progress, cancel);
    case InputFormat::ZipkinJson: return parseZipkinJson(path, sink, progress, cancel);
    case InputFormat::SpansCsv: return parseSpansCsv(path, mapping, sink, progress, cancel);
    default: return Status::error("not a span format");
    }
}

} // namespace tracelight
