#pragma once
// The event model of a span request, derived from its span tree (docs/user/input-formats.md): each span
// is a task with events at its start and end and at each span event; the span that waited for a child
// gets "call" and "return" events where the child starts and returns, so its own time is split by its
// children; a client whose one remote child is its server takes that server into its task (one thread of
// control that moves there and back); the waits are known causal edges. One derivation, from what a
// span row keeps, so that the import (which sums it) and every later read agree.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "tracelight/base/Time.h"

namespace tracelight {

// A name of the event model within one trace: an index into the trace's names (or a label id), and which
// occurrence of it this is (1: the name itself; k >= 2: the k-th span of that name in the trace, "name#k").
// Kept apart so that a trace of a million spans of one operation holds one name, not a million strings.
struct TraceName {
    std::uint32_t name = 0;
    std::uint32_t occurrence = 1;
    bool operator==(const TraceName&) const = default;
};

struct AssembledEvent {
    TraceName task, event;
    std::uint32_t host = 0;  // a name
    // A span's start event carries the span's process tags, then its own: the index of that span in the
    // request's spans (not a copy of its tags per event); -1 for every other event.
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

// What the event model needs of one span, by its index in the request (parents before children, siblings
// in start order: the order of RequestSpans).
struct SpanCallShape {
    std::int32_t waitedBy = -1;  // the span that waited for it: its caller where it has one, else its parent; -1: a root
    bool moved = false;          // waitedBy is a caller that is not its parent
    bool detached = false;       // its parent did not wait for it
    bool client = false;         // its kind is client
    std::uint32_t host = 0;      // the name its events' host has (its host, else its service)
    TraceName task;              // its own task
    TimeNs startNs = 0, endNs = 0;
    std::uint32_t firstEvent = 0, eventCount = 0;  // its span events: SpanEventModelInput::events[first, first + count)
};
struct SpanEventName {
    TraceName name;
    TimeNs tsNs = 0;
};
// The names a span's task lends to the events around it: its caller's "call"/"return" events, or, when it
// is a server taken into its client's task, its own "serve"/"served" start and end.
enum class SpanVerb { Call, Return, Serve, Served };

struct SpanEventModelInput {
    std::span<const SpanCallShape> spans;
    std::span<const SpanEventName> events;
    TraceName start, end;  // a span's own start and end events
    std::function<TraceName(std::uint32_t span, SpanVerb)> verb;
    // The order the tasks' events are made in (roots first); empty: roots, then the rest, by index.
    std::span<const std::uint32_t> order;
    // false: only the links and the spans' tasks and positions (a reader of links needs no events).
    bool withEvents = true;
    // Where the events go instead of SpanEventModel::events: task by task in task order (by name, then
    // occurrence), so a reader gets them as a table keyed by task would give them, without a list of them
    // all; false stops (SpanEventModel::stopped). And where the links go instead of SpanEventModel::links.
    std::function<bool(const AssembledEvent&)> eventSink;
    std::function<void(const AssembledLink&)> linkSink;
};

struct SpanEventModel {
    std::vector<AssembledEvent> events;  // each task's events together, in position order (none without withEvents or with a sink)
    std::vector<AssembledLink> links;    // by waiting span: its calls, then its returns, each in time order
    // By span: the task its events landed in (a server taken into its client's task lands there) and the
    // positions of its start and end events within it.
    std::vector<TraceName> taskOf;
    std::vector<std::int64_t> startSeq, endSeq;
    // By span event (input.events): its name in the model, renamed where it repeats one in its task.
    std::vector<TraceName> eventNames;
    std::size_t renamedEvents = 0;  // span events numbered so
    bool stopped = false;           // the event sink said stop
};

// In time and memory linear in the spans, without recursion (any depth).
SpanEventModel deriveSpanEvents(const SpanEventModelInput& input);

} // namespace tracelight
