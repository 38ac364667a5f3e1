#include "tracelight/capture/OtlpHttp.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>

#include "import/spans/SpanParsers.h"
#include "opentelemetry/proto/collector/trace/v1/trace_service.pb.h"
#include "tracelight/base/Json.h"
#include "tracelight/base/Time.h"

namespace tracelight::capture {

namespace {

constexpr std::string_view kProtobufType = "application/x-protobuf";
constexpr std::string_view kJsonType = "application/json";

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
}

bool isHex(std::string_view id, std::size_t digits) {
    return id.size() == digits && std::all_of(id.begin(), id.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

void varint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out += static_cast<char>((v & 0x7F) | 0x80);
        v >>= 7;
    }
    out += static_cast<char>(v);
}

// Why the receiver leaves a span out beyond what the decoders check; empty when it can be stored.
std::string receiverCheck(const RawSpan& s) {
    const std::string name = "span " + s.spanId + ": ";
    if (!isHex(s.traceId, 32)) return name + "traceId " + s.traceId + " is not 16 bytes of hex";
    if (!isHex(s.spanId, 16)) return "span " + s.spanId + ": spanId is not 8 bytes of hex";
    if (!s.parentId.empty() && !isHex(s.parentId, 16)) return name + "parentSpanId " + s.parentId + " is not 8 bytes of hex";
    if (!s.hasTimestamp) return name + "no startTimeUnixNano";
    if (!isPlausibleTimestamp(s.startNs) || s.startNs <= 0) return name + "startTimeUnixNano " + std::to_string(s.startNs) + " is not a time";
    if (!isPlausibleTimestamp(s.endNs) || s.endNs <= 0) return name + "endTimeUnixNano " + std::to_string(s.endNs) + " is not a time";
    for (const auto& [event, ts] : s.events)
        if (!isPlausibleTimestamp(ts) || ts <= 0) return name + "event " + event + ": timeUnixNano " + std::to_string(ts) + " is not a time";
    return {};
}

} // namespace

std::variant<BodyKind, HttpReply> checkHead(const RequestHead& head) {
    std::string_view target = head.target;
    if (const auto query = target.find('?'); query != std::string_view::npos) target = target.substr(0, query);
    if (target != "/v1/traces") return plainReply(404, "no such endpoint: " + std::string(target) + " (OTLP/HTTP traces: POST /v1/traces)");
    if (head.method != "POST") return plainReply(405, std::string(head.method) + " " + std::string(target) + ": only POST");
    // "application/json; charset=utf-8" is JSON.
    std::string_view type = head.contentType.substr(0, head.contentType.find(';'));
    const std::string kind = lower(trimmed(type));
    BodyKind body;
    if (kind == kProtobufType) body = BodyKind::Protobuf;
    else if (kind == kJsonType) body = BodyKind::Json;
    else return plainReply(415, "unsupported Content-Type '" + std::string(head.contentType) + "' (application/x-protobuf or application/json)");
    const std::string encoding = lower(trimmed(head.contentEncoding));
    if (!encoding.empty() && encoding != "gzip" && encoding != "identity")
        return errorReply(body, 415, "unsupported Content-Encoding '" + std::string(head.contentEncoding) + "' (gzip or none)");
    return body;
}

Result<std::string> gunzip(std::string_view data, std::size_t maxBytes, bool& over) {
    over = false;
    z_stream z{};
    // 32 + MAX_WBITS: gzip or zlib, told apart by the header.
    if (inflateInit2(&z, 32 + MAX_WBITS) != Z_OK) return Status::error("cannot start gzip decoding");
    std::string out;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    int rc = Z_OK;
    char buffer[1 << 16];
    while (rc != Z_STREAM_END) {
        z.next_out = reinterpret_cast<Bytef*>(buffer);
        z.avail_out = sizeof buffer;
        rc = inflate(&z, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END) {
            const std::size_t at = z.total_in;
            inflateEnd(&z);
            if (rc == Z_BUF_ERROR) return Status::error("truncated gzip body (ends at byte " + std::to_string(data.size()) + " inside the stream)");
            return Status::error("byte " + std::to_string(at) + ": damaged gzip body");
        }
        out.append(buffer, sizeof buffer - z.avail_out);
        if (out.size() > maxBytes) {
            inflateEnd(&z);
            over = true;
            return Status::error("the gzip body unpacks to more than the limit of " + std::to_string(maxBytes) + " bytes");
        }
        if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) {
            inflateEnd(&z);
            return Status::error("truncated gzip body (ends at byte " + std::to_string(data.size()) + " inside the stream)");
        }
    }
    inflateEnd(&z);
    return out;
}

std::variant<ReceivedSpans, HttpReply> decodeBody(BodyKind kind, std::string_view contentEncoding, std::string_view body,
                                                  std::size_t maxBytes) {
    if (body.size() > maxBytes)
        return errorReply(kind, 413, "the body of " + std::to_string(body.size()) + " bytes is over the limit of " + std::to_string(maxBytes));
    std::string unpacked;
    if (lower(trimmed(contentEncoding)) == "gzip") {
        bool over = false;
        auto inflated = gunzip(body, maxBytes, over);
        if (!inflated) return errorReply(kind, over ? 413 : 400, inflated.message());
        unpacked = std::move(inflated.value());
        body = unpacked;
    }
    ReceivedSpans received;
    const SpanSink keep = [&](RawSpan&& span) {
        if (std::string why = receiverCheck(span); !why.empty()) {
            if (received.rejected++ == 0) received.rejectedMessage = why;
            return Status::ok();
        }
        received.spans.push_back(std::move(span));
        return Status::ok();
    };
    const SpanReject reject = [&](const std::string& why) {
        if (received.rejected++ == 0) received.rejectedMessage = why;
    };
    const Status decoded = kind == BodyKind::Protobuf ? decodeOtlpProtobufBody(body, keep, reject) : decodeOtlpJsonBody(body, keep, reject);
    if (!decoded) return errorReply(kind, 400, decoded.message());
    if (received.rejected > 0)
        received.rejectedMessage = std::to_string(received.rejected) + (received.rejected == 1 ? " span" : " spans") +
                                   " rejected; the first: " + received.rejectedMessage;
    return received;
}

HttpReply successReply(BodyKind kind, std::int64_t rejected, const std::string& message) {
    HttpReply reply;
    if (kind == BodyKind::Protobuf) {
        opentelemetry::proto::collector::trace::v1::ExportTraceServiceResponse response;
        if (rejected > 0 || !message.empty()) {
            response.mutable_partial_success()->set_rejected_spans(rejected);
            response.mutable_partial_success()->set_error_message(message);
        }
        reply.contentType = kProtobufType;
        reply.body = response.SerializeAsString();
        return reply;
    }
    JsonWriter w;
    w.beginObject();
    if (rejected > 0 || !message.empty())
        // int64 as a JSON string, as the protocol's JSON mapping writes it.
        w.key("partialSuccess").beginObject().key("rejectedSpans").value(std::to_string(rejected)).key("errorMessage").value(message).endObject();
    w.endObject();
    reply.contentType = kJsonType;
    reply.body = w.text();
    return reply;
}

int grpcCode(int httpStatus) {
    switch (httpStatus) {
    case 400: case 413: case 415: return 3;  // INVALID_ARGUMENT
    case 404: return 5;                      // NOT_FOUND
    case 405: return 12;                     // UNIMPLEMENTED
    case 408: return 4;                      // DEADLINE_EXCEEDED
    case 429: return 8;                      // RESOURCE_EXHAUSTED
    case 503: return 14;                     // UNAVAILABLE
    default: return 13;                      // INTERNAL
    }
}

HttpReply errorReply(BodyKind kind, int httpStatus, const std::string& message, int retryAfterSeconds) {
    HttpReply reply;
    reply.status = httpStatus;
    reply.retryAfterSeconds = retryAfterSeconds;
    reply.message = message;
    const int code = grpcCode(httpStatus);
    if (kind == BodyKind::Protobuf) {
        // google.rpc.Status: code (1, varint), message (2, string), details (3, Any); a retry delay as the
        // google.rpc.RetryInfo detail that OTLP/gRPC clients wait for before they retry RESOURCE_EXHAUSTED.
        reply.contentType = kProtobufType;
        reply.body += '\x08';
        varint(reply.body, static_cast<std::uint64_t>(code));
        reply.body += '\x12';
        varint(reply.body, message.size());
        reply.body += message;
        if (retryAfterSeconds > 0) {
            std::string duration("\x08");  // google.protobuf.Duration: seconds (1, varint)
            varint(duration, static_cast<std::uint64_t>(retryAfterSeconds));
            std::string retryInfo("\x0a");  // RetryInfo: retry_delay (1, Duration)
            varint(retryInfo, duration.size());
            retryInfo += duration;
            const std::string url = "type.googleapis.com/google.rpc.RetryInfo";
            std::string any("\x0a");  // Any: type_url (1), value (2)
            varint(any, url.size());
            any += url;
            any += '\x12';
            varint(any, retryInfo.size());
            any += retryInfo;
            reply.body += '\x1a';
            varint(reply.body, any.size());
            reply.body += any;
        }
        return reply;
    }
    JsonWriter w;
    w.beginObject().key("code").value(code).key("message").value(message).endObject();
    reply.contentType = kJsonType;
    reply.body = w.text();
    return reply;
}

HttpReply plainReply(int httpStatus, const std::string& message) {
    HttpReply reply;
    reply.status = httpStatus;
    reply.contentType = "text/plain; charset=utf-8";
    reply.body = message + "\n";
    return reply;
}

} // namespace tracelight::capture
