#pragma once
// The spans of a request as the input stated them (span formats only): the tree people know from
// Jaeger, kept beside the event model so views can show one row per span and the service map can count
// calls between services. Event logs have no span records.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tracelight/base/OccurrenceName.h"
#include "tracelight/base/Time.h"

namespace tracelight {

struct SpanEventRecord {
    std::string name;
    TimeNs tsNs = 0;  // the span's host clock, as recorded
};

struct SpanRecord {
    std::string spanId;                // as in the input
    std::int32_t parent = -1;          // index into the request's spans; -1: a root
    // The span that waited for it where that is not its parent (-1: its parent): a server called from a
    // span its trace does not name as its parent (docs/concepts/critical-path-and-slack.md).
    std::int32_t caller = -1;
    std::string service, operation, host;
    std::string kind;                  // "client", "server", "producer", "consumer", "internal" or "" (unknown)
    TimeNs startNs = 0, endNs = 0;     // as recorded (the span's host clock)
    std::vector<std::pair<std::string, std::string>> attributes;  // the span's own tags, in input order
    // Its process's (Jaeger) or resource's (OpenTelemetry) tags: shared by every span of that process.
    std::vector<std::pair<std::string, std::string>> processAttributes;
    std::vector<SpanEventRecord> events;                          // its logs / events / annotations
    std::vector<std::string> links;    // span ids it follows from or links to (not its parent)
    // Its parent did not wait for it: its parent reference is FOLLOWS_FROM, or it consumes what its
    // parent (a producer) sent. It never returns into its parent, and is off the caller's critical path.
    bool detached = false;
    // Where its events live in the event model: the task they landed in (a server joined into its
    // client's task lands there) and the positions of its start and end events within that task.
    // The task is its name and occurrence (see occurrenceName): taskName() is the text the store shows.
    std::string task;
    std::uint32_t taskOccurrence = 1;
    std::int64_t startOrd = 0, endOrd = 0;

    std::string taskName() const { return occurrenceName(task, taskOccurrence); }
};

// One request's spans, parents before children (a span's parent has a smaller index).
using RequestSpans = std::vector<SpanRecord>;

// Whether a span recorded a failure: an `error` tag other than false (OpenTracing, Jaeger, Zipkin), an
// OpenTelemetry status of ERROR (`otel.status_code`), or an HTTP response status of 500 or more.
bool recordsError(const SpanRecord& span);

// What the request list shows of a span request: its entry (the first root's service and operation), the
// first call it made out of that service (the first span, depth first, of another service; -1: none), how
// many spans it has and how many recorded a failure.
struct SpanRequestSummary {
    std::uint32_t spanCount = 0, errorCount = 0;
    std::int32_t entry = -1, firstCall = -1;  // span indices
};
SpanRequestSummary summarizeSpanRequest(const RequestSpans& spans);

// A span's place in its tree, its time and where its events are, without its id, tags, events and links:
// what the service map, the bottleneck study and the profile read of every span (a third of a SpanRecord's
// memory, without its strings). Its texts view the record's, or those of the scan that read it (valid
// while that scan runs).
struct SpanShape {
    // The views first and the two 32-bit fields last, so nothing pads it: 120 bytes, a million-span tree's
    // shapes 8 MB less than in SpanRecord's order.
    std::string_view service, operation, host, kind;
    std::string_view task;  // as SpanRecord's
    TimeNs startNs = 0, endNs = 0;
    std::int64_t startOrd = 0, endOrd = 0;
    std::int32_t parent = -1;
    std::uint32_t taskOccurrence = 1;

    std::string taskName() const { return occurrenceName(task, taskOccurrence); }
};

// The texts a read of span shapes looked up, by label id, that its shapes view. Moving the map moves no
// text (its nodes stay), so the views stay valid.
using SpanTexts = std::unordered_map<std::int64_t, std::string>;
// One request's shapes with the texts they view.
struct RequestSpanShapes {
    std::vector<SpanShape> spans;
    SpanTexts texts;

    // Moved only: a copy's shapes would view the original's texts.
    RequestSpanShapes() = default;
    RequestSpanShapes(RequestSpanShapes&&) = default;
    RequestSpanShapes& operator=(RequestSpanShapes&&) = default;
    RequestSpanShapes(const RequestSpanShapes&) = delete;
    RequestSpanShapes& operator=(const RequestSpanShapes&) = delete;
};

// The shapes of records, viewing their texts.
std::vector<SpanShape> spanShapes(const RequestSpans& spans);

} // namespace tracelight
