#pragma once
// The span tree of span requests in a trace database (span imports only; event logs and databases before
// version 6 have none): each request's span records or only their shapes, the span ids as the input wrote
// them, and the references the analysis reads to derive a request's events.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tracelight/base/Ids.h"
#include "tracelight/base/Status.h"
#include "tracelight/store/SpanRecords.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

class CancelToken;

// A span of a span request (spans table): its index and its parent's in the request, and where its start
// and end events are, by task and position (as a LinkRow names them).
struct SpanRefRow {
    std::int64_t request;
    std::int64_t idx;
    std::int32_t parent;  // -1: a root
    std::uint32_t task;
    std::int64_t startOrd, endOrd;
    bool detached = false;  // its parent did not wait for it (FOLLOWS_FROM, a consumer under its producer)
};

// One request's spans, parents before children; empty when it has none.
RequestSpans requestSpans(const TraceStore& store, RequestId request);
// Its shapes only (what a tree of a million spans draws: a third of the records' memory), and one
// whole record, by index (what a view shows of the span selected). Cancelled: empty.
RequestSpanShapes requestSpanShapes(const TraceStore& store, RequestId request, const CancelToken* cancel = nullptr);
std::optional<SpanRecord> requestSpan(const TraceStore& store, RequestId request, std::uint32_t index);
// Every request's spans in request order, in one streaming scan (requests without spans are not
// visited); f returns false to stop (then "cancelled").
Status scanSpans(const TraceStore& store, const std::function<bool(RequestId, const RequestSpans&)>& f);
// The same scan of the spans' shapes only (no ids, tags, events or links). Their texts live until it
// ends: beforeEnd, when given, is called after the last request while they still do (a caller that
// batches requests finishes its batch there).
Status scanSpanShapes(const TraceStore& store, const std::function<bool(RequestId, const std::vector<SpanShape>&)>& f,
                      const std::function<void()>& beforeEnd = {});
// The spans of the requests in [firstId, endId), in (request, idx) order; or of one request. None for
// event-log requests.
Result<std::vector<SpanRefRow>> spanRefs(const TraceStore& store, std::int64_t firstId, std::int64_t endId);
Result<std::vector<SpanRefRow>> spanRefs(const TraceStore& store, RequestId request);
// A request's span ids as its input wrote them, by span index (an index with no row: empty).
Result<std::vector<std::string>> spanIds(const TraceStore& store, RequestId request);
// Ids of the requests imported from spans (OTLP, Jaeger, Zipkin, span tables).
std::vector<std::uint32_t> spanRequestIds(const TraceStore& store);

} // namespace tracelight
