#pragma once
// Span formats (OpenTelemetry, Jaeger, Zipkin, span tables) mapped onto the event model (docs/user/input-formats.md):
// a span becomes a task (service:operation, numbered op#2 when repeated in a trace) with events at
// its start and end and at each span event; its parent's task gets "call" and "return" events where
// the child starts and returns, so the parent's own time is split by its children; the parent/child
// links are kept as known causal edges (and feed clock-skew correction as RPC patterns).
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tracelight/base/OccurrenceName.h"
#include "tracelight/base/Time.h"
#include "tracelight/import/spans/SpanEventModel.h"
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
    bool parentFollowsFrom = false;           // its parent is a FOLLOWS_FROM reference: work the parent started, not waited for
};

// Spans in blocks of up to kBlock (45 MB of RawSpans, so each is its own mapping, given back when freed).
// Growing never moves what is there, and a reader that goes through them in order can free each block
// behind it: a trace of a million spans is then not held twice while it becomes span records.
class SpanBlocks {
public:
    static constexpr std::size_t kBlock = std::size_t(1) << 17;

    SpanBlocks() = default;
    // For tests and small inputs: a list of up to kBlock spans becomes the one block as it is, a longer one
    // is moved into blocks while the list still holds its memory (the stager pushes its spans instead).
    SpanBlocks(std::vector<RawSpan> spans);  // NOLINT: implicit, so tests pass a list of spans
    SpanBlocks(std::initializer_list<RawSpan> spans) : SpanBlocks(std::vector<RawSpan>(spans)) {}
    SpanBlocks(SpanBlocks&& other) noexcept : m_blocks(std::move(other.m_blocks)), m_size(std::exchange(other.m_size, 0)) {
        other.m_blocks.clear();
    }
    SpanBlocks& operator=(SpanBlocks&& other) noexcept {
        if (this == &other) return *this;
        m_blocks = std::move(other.m_blocks);
        m_size = std::exchange(other.m_size, 0);
        other.m_blocks.clear();
        return *this;
    }

    void push_back(RawSpan&& span) {
        if (m_blocks.empty() || m_blocks.back().size() == kBlock) {
            m_blocks.emplace_back();
            if (m_blocks.size() > 1) m_blocks.back().reserve(kBlock);  // the first grows as needed: most traces are small
        }
        m_blocks.back().push_back(std::move(span));
        ++m_size;
    }
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    RawSpan& operator[](std::size_t i) { return m_blocks[i / kBlock][i % kBlock]; }
    const RawSpan& operator[](std::size_t i) const { return m_blocks[i / kBlock][i % kBlock]; }
    // Removes the spans pred holds for, keeping the others in order.
    template <typename Pred>
    void eraseIf(Pred pred) {
        std::size_t kept = 0;
        for (std::size_t i = 0; i < m_size; ++i) {
            if (pred(std::as_const((*this)[i]))) continue;
            if (kept != i) (*this)[kept] = std::move((*this)[i]);
            ++kept;
        }
        while (m_size > kept) {
            m_blocks.back().pop_back();
            if (m_blocks.back().empty()) m_blocks.pop_back();
            --m_size;
        }
    }
    // Frees the blocks wholly before span i (which must not be read again).
    void releaseBefore(std::size_t i) {
        for (std::size_t b = 0; b < i / kBlock && b < m_blocks.size(); ++b) std::vector<RawSpan>().swap(m_blocks[b]);
    }
    void clear() {
        m_blocks.clear();
        m_size = 0;
    }

private:
    std::vector<std::vector<RawSpan>> m_blocks;
    std::size_t m_size = 0;
};

// What a trace became, plus what was wrong with it.
struct AssembledTrace {
    std::string traceId;
    std::vector<std::string> names;  // the distinct task, event and host names the events use
    std::vector<AssembledEvent> events;
    std::vector<AssembledLink> links;
    std::vector<std::string> warnings;  // one per problem found in this trace
    // The spans as the input stated them (after the repairs above), parents before children, depth
    // first with siblings in start order; each says where its start and end events landed.
    RequestSpans spans;
    // What the store keeps of each span (by index) to derive these events again when it reads the request:
    // the names of the events its waiting span's call and return have at it (or, for a server taken into its
    // client's task, its own serve and served: see SpanVerb), none where it has no such event; the host its
    // events run on; and each span event's name as the events have it, in span then position order.
    struct SpanModelNames {
        std::optional<TraceName> enter, leave;
        std::uint32_t host = 0;
    };
    std::vector<SpanModelNames> modelNames;
    std::vector<TraceName> spanEventNames;
    std::size_t renamedEvents = 0;  // span events that repeated a name in their task, numbered

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
AssembledTrace assembleTrace(SpanBlocks spans);

// "frontend-579b9bff58-t2dbm" -> "frontend": a Kubernetes pod name without its last two parts.
std::string serviceFromPodName(const std::string& pod);

} // namespace tracelight
