// OTLP protobuf trace files: one TracesData (or ExportTraceServiceRequest: the same wire format) as a whole
// file, or the OpenTelemetry Collector's file exporter's `format: proto`, a sequence of such messages each
// after its length as 4 bytes big-endian. Read one ResourceSpans at a time, so memory stays bounded by the
// largest one (at most the one limit of every format, 64 MiB), and mapped as OTLP JSON is (OtlpMapping.h).
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "import/spans/OtlpMapping.h"
#include "import/spans/SpanParsers.h"
#include "opentelemetry/proto/trace/v1/trace.pb.h"
#include "tracelight/base/Json.h"
#include "tracelight/base/Progress.h"

namespace tracelight {

namespace {

namespace pb = opentelemetry::proto;

constexpr std::uint64_t kCheckEvery = 64;  // ResourceSpans between cancel checks and progress

// Buffered reads of a file with the byte offset of what comes next, for error places.
class ByteReader {
public:
    ~ByteReader() {
        if (m_file) std::fclose(m_file);
    }
    bool open(const std::string& path) { return (m_file = std::fopen(path.c_str(), "rb")) != nullptr; }
    std::uint64_t offset() const { return m_offset; }
    // Reads n bytes into out; false at the end of the file (out then holds what there was).
    bool read(std::size_t n, std::string& out) {
        out.resize(n);
        const std::size_t got = n ? std::fread(out.data(), 1, n, m_file) : 0;
        out.resize(got);
        m_offset += got;
        return got == n;
    }
    int byte() {
        const int c = std::fgetc(m_file);
        if (c != EOF) ++m_offset;
        return c;
    }
    int peek() {
        const int c = std::fgetc(m_file);
        if (c != EOF) std::ungetc(c, m_file);
        return c;
    }
    bool atEnd() { return peek() == EOF; }
    // A base-128 varint; false at the end of the file or past 64 bits.
    bool varint(std::uint64_t& value) {
        value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            const int c = byte();
            if (c == EOF) return false;
            value |= std::uint64_t(c & 0x7F) << shift;
            if (!(c & 0x80)) return true;
        }
        return false;
    }

private:
    std::FILE* m_file = nullptr;
    std::uint64_t m_offset = 0;
};

std::string hex(const std::string& bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * bytes.size());
    for (const unsigned char b : bytes) {
        out += kDigits[b >> 4];
        out += kDigits[b & 0xF];
    }
    return out;
}

std::string base64(const std::string& bytes) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const std::uint32_t v = std::uint32_t(std::uint8_t(bytes[i])) << 16 | std::uint32_t(std::uint8_t(bytes[i + 1])) << 8 |
                                std::uint8_t(bytes[i + 2]);
        for (int k = 18; k >= 0; k -= 6) out += kAlphabet[(v >> k) & 0x3F];
    }
    if (i < bytes.size()) {
        std::uint32_t v = std::uint32_t(std::uint8_t(bytes[i])) << 16;
        if (i + 1 < bytes.size()) v |= std::uint32_t(std::uint8_t(bytes[i + 1])) << 8;
        out += kAlphabet[(v >> 18) & 0x3F];
        out += kAlphabet[(v >> 12) & 0x3F];
        out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 0x3F] : '=';
        out += '=';
    }
    return out;
}

// An AnyValue as text, as the JSON reader gives it: strings as they are, numbers in decimal, a list or map "[...]".
std::string text(const pb::common::v1::AnyValue& v) {
    using V = pb::common::v1::AnyValue;
    switch (v.value_case()) {
    case V::kStringValue: return v.string_value();
    case V::kBoolValue: return v.bool_value() ? "true" : "false";
    case V::kIntValue: return std::to_string(v.int_value());
    case V::kDoubleValue: {
        char buffer[32];
        const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v.double_value());
        return ec == std::errc{} ? std::string(buffer, end) : std::string();
    }
    case V::kBytesValue: return base64(v.bytes_value());
    case V::kArrayValue:
    case V::kKvlistValue: return "[...]";
    default: return {};
    }
}

template <class KeyValues>
void attributes(const KeyValues& list, std::vector<std::pair<std::string, std::string>>& out) {
    for (const auto& kv : list) out.emplace_back(kv.key(), text(kv.value()));
}

// A fixed64 time as signed nanoseconds; beyond 64-bit signed is out of range, as in JSON.
Status time(std::uint64_t value, const char* field, const std::string& where, const std::string& spanId, std::int64_t& out) {
    if (value > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
        return Status::error(where + "span " + spanId + ": " + field + " " + std::to_string(value) + " is out of range (beyond a 64-bit integer)");
    out = static_cast<std::int64_t>(value);
    return Status::ok();
}

// reject: given, a span that cannot be read goes there with why, and the rest go on (a receiver's partial
// success); not given, it fails the whole input.
Status resourceSpans(const pb::trace::v1::ResourceSpans& rs, const std::string& where, const SpanSink& sink,
                     const SpanReject* reject = nullptr) {
    std::vector<std::pair<std::string, std::string>> resource;
    attributes(rs.resource().attributes(), resource);
    std::string service, host;
    otlp::serviceAndHost(resource, service, host);
    for (const auto& scope : rs.scope_spans())
        for (const auto& s : scope.spans()) {
            RawSpan span;
            span.traceId = hex(s.trace_id());
            span.spanId = hex(s.span_id());
            span.parentId = hex(s.parent_span_id());
            const auto bad = [&](const Status& why) {
                if (!reject) return false;
                (*reject)(why.message());
                return true;
            };
            if (span.traceId.empty() || span.spanId.empty()) {
                if (bad(Status::error(where + "a span has no traceId or spanId"))) continue;
                return Status::error(where + "a span has no traceId or spanId");
            }
            span.operation = s.name();
            span.service = service;
            span.host = host;
            if (Status st = time(s.start_time_unix_nano(), "startTimeUnixNano", where, span.spanId, span.startNs); !st) {
                if (bad(st)) continue;
                return st;
            }
            if (Status st = time(s.end_time_unix_nano(), "endTimeUnixNano", where, span.spanId, span.endNs); !st) {
                if (bad(st)) continue;
                return st;
            }
            span.hasTimestamp = s.start_time_unix_nano() != 0;  // protobuf writes no field for 0: not given
            span.processAttributes = resource;
            attributes(s.attributes(), span.attributes);
            if (s.kind() != pb::trace::v1::Span::SPAN_KIND_UNSPECIFIED) span.attributes.emplace_back("span.kind", std::to_string(s.kind()));
            if (s.has_status()) otlp::addStatus(span, std::to_string(s.status().code()), s.status().message());
            for (const auto& link : s.links()) otlp::addLink(span, hex(link.trace_id()), hex(link.span_id()));
            Status eventTimes = Status::ok();
            for (const auto& e : s.events()) {
                std::int64_t t = 0;
                if (eventTimes = time(e.time_unix_nano(), "timeUnixNano", where, span.spanId, t); !eventTimes) break;
                span.events.emplace_back(e.name(), t);
            }
            if (!eventTimes) {
                if (bad(eventTimes)) continue;
                return eventTimes;
            }
            if (Status st = sink(std::move(span)); !st) return st;
        }
    return Status::ok();
}

// The fields of one TracesData message of `length` bytes (the rest of the file when length is absent):
// each resource_spans (field 1) read and handed on; any other field skipped.
Status tracesData(ByteReader& in, const std::string& path, std::optional<std::uint64_t> length, const SpanSink& sink,
                  const ByteCounter& progress, const CancelToken* cancel, std::uint64_t& count) {
    const std::uint64_t end = length ? in.offset() + *length : std::numeric_limits<std::uint64_t>::max();
    std::string bytes;
    pb::trace::v1::ResourceSpans rs;
    while (in.offset() < end && !(length ? false : in.atEnd())) {
        const std::uint64_t at = in.offset();
        const std::string where = path + ": byte " + std::to_string(at) + ": ";
        std::uint64_t tag = 0, size = 0;
        if (!in.varint(tag)) return Status::error(where + "truncated or not OTLP protobuf (a field's tag)");
        const auto wire = tag & 7;
        if (wire == 0) {
            if (!in.varint(size)) return Status::error(where + "truncated (a varint field)");
            continue;
        }
        if (wire == 1 || wire == 5) {
            if (!in.read(wire == 1 ? 8 : 4, bytes)) return Status::error(where + "truncated (a fixed-size field)");
            continue;
        }
        if (wire != 2) return Status::error(where + "not OTLP protobuf (a field of wire type " + std::to_string(wire) + ")");
        if (!in.varint(size)) return Status::error(where + "truncated (a field's length)");
        if (size > kMaxJsonValueBytes)
            return Status::error(where + "a message of " + std::to_string(size) + " bytes is longer than the limit of 64 MiB for one value");
        if (in.offset() + size > end) return Status::error(where + "a message of " + std::to_string(size) + " bytes runs past its end");
        if (!in.read(static_cast<std::size_t>(size), bytes))
            return Status::error(where + "truncated: a message of " + std::to_string(size) + " bytes ends past the end of the file");
        if ((tag >> 3) != 1) continue;
        if (!rs.ParseFromString(bytes)) return Status::error(where + "not a valid OTLP ResourceSpans message");
        if (Status s = resourceSpans(rs, where, sink); !s) return s;
        if (++count % kCheckEvery == 0) {
            if (cancel && cancel->isCancelled()) return Status::error("import cancelled");
            if (progress) progress(in.offset());
        }
    }
    return Status::ok();
}

} // namespace

bool looksLikeOtlpProtobuf(std::string_view head, std::uint64_t fileSize) {
    // Binary: a control character that no text format holds (ids and short lengths give them at once).
    const bool binary = std::any_of(head.begin(), head.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20 && u != '\t' && u != '\n' && u != '\r';
    });
    if (!binary) return false;
    // A TracesData's field 1 (resource_spans) whose own first field is one of ResourceSpans' (resource,
    // scope_spans, schema_url). Its length may run past the file: a truncated file is the parser's to report.
    auto resourceSpansAt = [&](std::size_t at) {
        if (at >= head.size() || head[at] != 0x0A) return false;
        std::uint64_t length = 0;
        std::size_t i = at + 1;
        for (int shift = 0;; shift += 7, ++i) {
            if (i >= head.size() || shift >= 64) return false;
            length |= std::uint64_t(static_cast<unsigned char>(head[i]) & 0x7F) << shift;
            if (!(static_cast<unsigned char>(head[i]) & 0x80)) break;
        }
        if (length == 0) return true;
        const auto inner = i + 1 < head.size() ? static_cast<unsigned char>(head[i + 1]) : 0;
        return inner == 0x0A || inner == 0x12 || inner == 0x1A;
    };
    if (resourceSpansAt(0)) return true;
    // The collector's file exporter: a 4-byte big-endian length (so a first byte of 0 for anything under
    // 16 MiB), then such a message.
    return fileSize >= 5 && head.size() >= 5 && resourceSpansAt(4);
}

Status decodeOtlpProtobufBody(std::string_view body, const SpanSink& sink, const SpanReject& reject) {
    GOOGLE_PROTOBUF_VERIFY_VERSION;
    // ExportTraceServiceRequest: the wire format of TracesData (field 1, resource_spans).
    pb::trace::v1::TracesData request;
    if (body.size() > std::size_t(std::numeric_limits<int>::max()) || !request.ParseFromArray(body.data(), static_cast<int>(body.size())))
        return Status::error("byte 0: not an OTLP ExportTraceServiceRequest (invalid protobuf)");
    for (int i = 0; i < request.resource_spans_size(); ++i) {
        const std::string where = "resourceSpans[" + std::to_string(i) + "]: ";
        if (Status s = resourceSpans(request.resource_spans(i), where, sink, &reject); !s) return s;
    }
    return Status::ok();
}

Status parseOtlpProtobuf(const std::string& path, const SpanSink& sink, const ByteCounter& progress, const CancelToken* cancel) {
    GOOGLE_PROTOBUF_VERIFY_VERSION;
    ByteReader framed;
    if (!framed.open(path)) return Status::error(path + ": cannot open: " + std::strerror(errno));
    std::uint64_t count = 0;
    // A whole TracesData starts with its field 1's tag; the exporter's frames with a length's high byte.
    if (framed.peek() == 0x0A) return tracesData(framed, path, std::nullopt, sink, progress, cancel, count);
    std::string lengthBytes;
    while (!framed.atEnd()) {
        const std::uint64_t at = framed.offset();
        if (!framed.read(4, lengthBytes))
            return Status::error(path + ": byte " + std::to_string(at) + ": truncated (a message's 4-byte length)");
        const std::uint64_t length = std::uint64_t(static_cast<unsigned char>(lengthBytes[0])) << 24 |
                                     std::uint64_t(static_cast<unsigned char>(lengthBytes[1])) << 16 |
                                     std::uint64_t(static_cast<unsigned char>(lengthBytes[2])) << 8 |
                                     static_cast<unsigned char>(lengthBytes[3]);
        if (Status s = tracesData(framed, path, length, sink, progress, cancel, count); !s) return s;
    }
    return Status::ok();
}

} // namespace tracelight
