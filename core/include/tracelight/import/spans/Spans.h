#pragma once
// Span formats (OpenTelemetry, Jaeger, Zipkin, span tables) mapped onto the event model (DESIGN.md):
// a span becomes a task (service:operation, numbered op#2 when repeated in a trace) with events at
// its start and end and at each span event; its parent's task gets "call" and "return" events where
// the child starts and returns, so the parent's own time is split by its children; the parent/child
// links are kept as known causal edges (and feed clock-skew correction as RPC patterns).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tracelight/base/OccurrenceName.h"
#include "tracelight/base/Time.h"
#include "tracelight/store/SpanRecords.h"

namespace tracelight {

struct RawSpan {
    std::string traceId, spanId, parentId;  // parentId empty: a root
    std::string service, host, operation;
    TimeNs startNs = 0, endNs = 0;
    bool shared = false;                     // Zipkin: the server half of a client/server pair with the same id
    bool hasTimestamp = true;                // false: the source gave no start time
    std::string timeError;                   // why its times cannot be used (e.g. beyond the 64-bit range)
    std::vector<std::pair<std::string, std::string>> attributes;         // the span's own tags
    std::vector<std::pair<std::string, std::string>> processAttributes;  // its process's / resource's tags
    std::vector<std::pair<std::string, TimeNs>> events;  // span events, logs, annotations: (name, time)
    std::vector<std::string> followsFrom;     // other spans this one was caused by (not its parent)
};

// A name of the event model within one trace: an index into AssembledTrace::names, and which occurrence
// of it this is (1: the name itself; k >= 2: the k-th span of that name in the trace, "name#k"). Kept
// apart so that a trace of a million spans of one operation holds one name, not a million strings.
struct TraceName {
    std::uint32_t name = 0;
    std::uint32_t occurrence = 1;
    bool operator==(const TraceName&) const = default;
};

// What a trace became, plus what was wrong with it.
struct AssembledEvent {
    TraceName task, event;
    std::uint32_t host = 0;  // index into AssembledTrace::names
    // A span's start event carries the span's process tags, then its own: the index of that span in
    // AssembledTrace::spans (not a copy of its tags per event); -1 for every other event.
    std::int32_t tagsOf = -1;
    TimeNs tsNs;  // after the 32-bit fields, so an event is 40 bytes, not 48 (a million spans: four million)
    std::int64_t seq;
};
struct AssembledLink {
    TraceName fromTask;
    std::int64_t fromSeq;
    TraceName toTask;
    std::int64_t toSeq;
};
struct AssembledTrace {
    std::string traceId;
    std::vector<std::string> names;  // the distinct task, event and host names the events use
    std::vector<AssembledEvent> events;
    std::vector<AssembledLink> links;
    std::vector<std::string> warnings;  // one per problem found in this trace
    // The spans as the input stated them (after the repairs above), parents before children, depth
    // first with siblings in start order; each says where its start and end events landed.
    RequestSpans spans;

    // As the store shows it: "name", or "name#k" for a later occurrence.
    std::string text(TraceName n) const { return occurrenceName(names[n.name], n.occurrence); }
};

// Builds one trace's events from its spans (all of them, in any order), in time and memory linear in
// the spans (no recursion, so any depth). What it repairs, each with a warning for the trace:
//   no timestamp                 the span is dropped (a time out of range is an error of the parser)
//   ends before it starts        its end is set to its start
//   a day from the trace         the span is dropped
//   duplicate span id            the pieces become one span over their union (attributes and events
//                                of all; the first piece's parent, else a later one's)
//   missing parent               the span becomes a root
//   its own parent               the span becomes a root
//   parent cycle (A -> B -> A)   the cycle's earliest-starting span becomes a root; the others keep
//                                their parents, so the cycle imports as a chain from that span
AssembledTrace assembleTrace(std::vector<RawSpan> spans);

// "frontend-579b9bff58-t2dbm" -> "frontend": a Kubernetes pod name without its last two parts.
std::string serviceFromPodName(const std::string& pod);

} // namespace tracelight
