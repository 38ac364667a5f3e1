#pragma once
// Streaming parsers of the span formats; each hands over spans one by one (in file order).
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "tracelight/import/Import.h"
#include "tracelight/import/spans/Spans.h"
#include "tracelight/base/Status.h"

namespace tracelight {

using SpanSink = std::function<Status(RawSpan&&)>;
using ByteCounter = std::function<void(std::uint64_t bytes)>;

Status parseOtlpProtobuf(const std::string& path, const SpanSink& sink, const ByteCounter& progress, const CancelToken* cancel);
// The first bytes of an OTLP protobuf file (a whole TracesData, or the collector's length-prefixed messages).
bool looksLikeOtlpProtobuf(std::string_view head, std::uint64_t fileSize);
// JSON spans straight from their text where it is plain JSON (LeanJson.h), else through a parsed document;
// the same spans and errors either way (PlainSpans::Never reads every span through a document, for tests).
enum class PlainSpans { WhereTheyAre, Never };
Status parseOtlpJson(const std::string& path, const SpanSink& sink, const ByteCounter& progress, const CancelToken* cancel,
                     PlainSpans plain = PlainSpans::WhereTheyAre);
Status parseJaegerJson(const std::string& path, const SpanSink& sink, const ByteCounter& progress, const CancelToken* cancel,
                       PlainSpans plain = PlainSpans::WhereTheyAre);
Status parseZipkinJson(const std::string& path, const SpanSink& sink, const ByteCounter& progress, const CancelToken* cancel,
                       PlainSpans plain = PlainSpans::WhereTheyAre);
Status parseSpansCsv(const std::string& path, const SpanCsvMapping& mapping, const SpanSink& sink, const ByteCounter& progress,
                     const CancelToken* cancel);

// A span that cannot be read (no ids, a time out of range), and why: left out of a receiver's request, whose
// other spans go on (OTLP's partial success).
using SpanReject = std::function<void(const std::string& why)>;
// One OTLP/HTTP request body held in memory (an ExportTraceServiceRequest, binary or JSON): each span to sink,
// each that cannot be read to reject. An error: the body is not such a request at all.
Status decodeOtlpProtobufBody(std::string_view body, const SpanSink& sink, const SpanReject& reject);
Status decodeOtlpJsonBody(std::string_view body, const SpanSink& sink, const SpanReject& reject);

bool isSpanFormat(InputFormat format);
// The parser of a span format (mapping: a span table's columns).
Status parseSpanFile(InputFormat format, const std::string& path, const SpanCsvMapping& mapping, const SpanSink& sink,
                     const ByteCounter& progress, const CancelToken* cancel);

} // namespace tracelight
