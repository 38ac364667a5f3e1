#pragma once
// OTLP/HTTP as the receiver speaks it, without sockets: what a request's head and body say (POST /v1/traces,
// binary protobuf or JSON, optionally gzip), the spans in it, and the protocol's replies (success, partial
// success, and google.rpc.Status errors in the request's own encoding). The server (OtlpReceiver.h) only moves
// bytes; every decision about a request is here.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tracelight/base/Status.h"
#include "tracelight/import/spans/Spans.h"

namespace tracelight::capture {

enum class BodyKind { Protobuf, Json };

struct HttpReply {
    int status = 200;
    std::string contentType;  // of the body
    std::string body;
    int retryAfterSeconds = 0;  // > 0: a Retry-After header (429, 503)
    std::string message;        // an error's text (what a gRPC status says)
};

struct RequestHead {
    std::string_view method, target, contentType, contentEncoding;
};

// 404 for another path, 405 for another method, 415 for another content type or encoding; otherwise the kind
// of body to expect.
std::variant<BodyKind, HttpReply> checkHead(const RequestHead& head);

struct ReceivedSpans {
    std::vector<RawSpan> spans;       // those that can be stored
    std::int64_t rejected = 0;        // malformed spans left out
    std::string rejectedMessage;      // why, naming the first
};

// The body decoded (gunzipped first when contentEncoding is gzip, to at most maxBytes): the spans, or the reply
// that refuses it (400 for a body that is not a request or a broken gzip stream, 413 past maxBytes unpacked).
// Besides the decoders' checks, a span is rejected unless its ids are hex of the protocol's lengths (trace 16
// bytes, span 8) and its start and end are times the store can hold.
std::variant<ReceivedSpans, HttpReply> decodeBody(BodyKind kind, std::string_view contentEncoding, std::string_view body,
                                                  std::size_t maxBytes);

// Success: an empty ExportTraceServiceResponse, or one with partial_success (rejected_spans, error_message).
HttpReply successReply(BodyKind kind, std::int64_t rejected = 0, const std::string& message = {});
// The gRPC status code nearest an HTTP status (429: RESOURCE_EXHAUSTED, 503: UNAVAILABLE, 400: INVALID_ARGUMENT, ...).
int grpcCode(int httpStatus);
// An error status with a google.rpc.Status body (its code the nearest gRPC code), in the request's encoding; with a
// retry delay, in protobuf, the google.rpc.RetryInfo detail too.
HttpReply errorReply(BodyKind kind, int httpStatus, const std::string& message, int retryAfterSeconds = 0);
// An error for a request whose encoding is not known (its content type was refused): plain text.
HttpReply plainReply(int httpStatus, const std::string& message);

// gzip (or zlib) data unpacked; over: set when it unpacks to more than maxBytes (the error then says so).
Result<std::string> gunzip(std::string_view data, std::size_t maxBytes, bool& over);

} // namespace tracelight::capture
