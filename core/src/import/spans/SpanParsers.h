#pragma once
// Streaming parsers of the span formats; each hands over spans one by one (in file order).
#include <functional>
#include <map>
#include <string>

#include "tracelight/import/Import.h"
#include "tracelight/import/spans/Spans.h"
#include "tracelight/base/Status.h"

namespace tracelight {

using SpanSink = std::function<Status(RawSpan&&)>;
using ByteCounter = std::function<void(std::uint64_t bytes)>;

Status parseOtlpJson(const std::string& path, const SpanSink& sink, const ByteCounter& progress, const CancelToken* cancel);
Status parseOtlpProtobuf(const std::string& path, const SpanSink& sink, const ByteCounter& progress, const CancelToken* cancel);
// The first bytes of an OTLP protobuf file (a whole TracesData, or the collector's length-prefixed messages).
bool looksLikeOtlpProtobuf(std::string_view head, std::uint64_t fileSize);
Status parseJaegerJson(const std::string& path, const SpanSink& sink, const ByteCounter& progress, const CancelToken* cancel);
Status parseZipkinJson(const std::string& path, const SpanSink& sink, const ByteCounter& progress, const CancelToken* cancel);
Status parseSpansCsv(const std::string& path, const SpanCsvMapping& mapping, const SpanSink& sink, const ByteCounter& progress,
                     const CancelToken* cancel);

bool isSpanFormat(InputFormat format);
// The parser of a span format (mapping: a span table's columns).
Status parseSpanFile(InputFormat format, const std::string& path, const SpanCsvMapping& mapping, const SpanSink& sink,
                     const ByteCounter& progress, const CancelToken* cancel);

} // namespace tracelight
