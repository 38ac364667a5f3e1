#pragma once
// Every request's events in memory, read in one ordered scan of the store: contiguous arrays, interned
// ids, segment types resolved once. The input to every analysis pass.
#include <cstdint>
#include <iterator>
#include <limits>
#include <span>
#include <string_view>
#include <string>
#include <unordered_map>
#include <vector>

#include "tracelight/analysis/SpanTreeCriticalPath.h"  // SpanWait
#include "tracelight/base/Ids.h"
#include "tracelight/base/OccurrenceName.h"
#include "tracelight/base/Progress.h"
#include "tracelight/base/Status.h"
#include "tracelight/base/Time.h"
#include "tracelight/base/TripleIndex.h"
#include "tracelight/base/UninitializedAllocator.h"

namespace tracelight {

class TraceStore;

using SegmentTypeId = TypedId<struct SegmentTypeTag>;
using HostId = TypedId<struct HostTag>;  // dense index into TraceData::hostLabels

// A segment type is <task, start event, end event>. For requests imported from spans the type is the
// operation's: occurrence numbers (`svc:op#3`, `call svc:op#3`) stay on the events, where they keep
// <task, event> unique within a request, and are removed from the labels a type is interned by, so every
// call of one operation is one type (see operationName). Event logs keep their labels as written.
struct SegmentType {
    LabelId task, startEvent, endEvent;
};

struct EventRecord {
    std::uint32_t task;         // label id
    std::uint32_t event;        // label id
    HostId host;                // dense host index
    SegmentTypeId segmentType;  // of the segment this event ends; invalid for a task's first event
    TimeNs localNs;             // the host's own clock
};

// Every request's events end to end. Sized without writing them: in a parallel read each run populates its
// own slice's pages in one call and then writes each record of it once.
using EventArray = std::vector<EventRecord, UninitializedAllocator<EventRecord>>;

// A known causal edge between two events of one request (from span parent/child links), as indices
// into the request's own events.
struct EventLink {
    std::uint32_t from, to;
};

// A span of a span request, by indices into the request's own events (eventsOf(r)); kNoEvent: its event
// was not found (a damaged store): the span is then left out of the span tree.
struct SpanRef {
    static constexpr std::uint32_t kNoEvent = ~0u;
    std::int32_t parent = -1;   // index of its parent in the request's spans (spans table `idx`); -1: a root
    std::uint32_t startEvent = kNoEvent, endEvent = kNoEvent;
    SpanWait wait = SpanWait::Waited;
};

struct TraceData {
    std::vector<RequestId> requestIds;
    std::vector<std::uint64_t> requestBegin;  // events of request r: [requestBegin[r], requestBegin[r+1])
    EventArray events;                        // per request grouped by task, in task order
    std::vector<SegmentType> segmentTypes;
    std::vector<LabelId> hostLabels;          // HostId -> label
    // Label id -> text: the store's names, and labels made here (operations, a model's types). The store's
    // occurrence labels are kept as name and k and spelt out by label(): a million-span trace has three
    // million of them, 12 bytes each here instead of a string each.
    std::unordered_map<std::uint32_t, std::string> labels;
    std::vector<LabelOccurrence> occurrences;  // sorted by id
    std::vector<EventLink> links;             // per request: [linkBegin[r], linkBegin[r+1])
    std::vector<std::uint64_t> linkBegin;
    // Span requests' spans, span i of request r at spans[spanBegin[r] + i]: per request
    // [spanBegin[r], spanBegin[r+1]); event logs have none.
    std::vector<SpanRef> spans;
    std::vector<std::uint64_t> spanBegin;
    std::vector<std::uint8_t> fromSpans;      // per request: 1 when it was imported from spans

    bool isFromSpans(std::size_t r) const { return r < fromSpans.size() && fromSpans[r]; }

    std::size_t requestCount() const { return requestIds.size(); }
    std::span<const EventRecord> eventsOf(std::size_t r) const {
        return {events.data() + requestBegin[r], events.data() + requestBegin[r + 1]};
    }
    std::span<const EventLink> linksOf(std::size_t r) const {
        if (linkBegin.size() <= r + 1) return {};
        return {links.data() + linkBegin[r], links.data() + linkBegin[r + 1]};
    }
    std::span<const SpanRef> spansOf(std::size_t r) const {
        if (spanBegin.size() <= r + 1) return {};
        return {spans.data() + spanBegin[r], spans.data() + spanBegin[r + 1]};
    }
    std::string segmentName(SegmentTypeId id) const;  // "task:START->END"
    std::string label(std::uint32_t id) const;         // "?" for an id it does not know
    const LabelOccurrence* occurrence(std::uint32_t id) const;  // null: not one of the store's occurrences
};

// The requests at `rows` (indices, in the order given) of data, with every label, host and segment type of the
// whole (ids stay valid): a study over part of the requests — a period, a time window — on its own.
TraceData restrictTraceData(const TraceData& data, const std::vector<std::uint32_t>& rows);

// One request's span rows (the spans table's, in idx order) as its SpanRefs, each at its idx: add(SpanRef)
// takes them in turn, indexOf(task, ord) is the request's event of that key if there is one. A missing idx
// (a damaged store) becomes a SpanRef without events, so the others keep their indices; padding goes no
// further than twice the rows, so one damaged idx far past the rest is dropped instead.
template <typename Rows, typename IndexOf, typename Add>
void resolveSpanRefs(const Rows& rows, IndexOf&& indexOf, Add&& add) {
    const std::int64_t limit = 2 * static_cast<std::int64_t>(std::size(rows));
    std::int64_t next = 0;
    for (const auto& row : rows) {
        if (row.idx < next || row.idx >= limit) continue;
        for (; next < row.idx; ++next) add(SpanRef{});
        SpanRef span;
        span.parent = row.parent;
        span.wait = row.detached ? SpanWait::Detached : SpanWait::Waited;
        if (const auto e = indexOf(row.task, row.startOrd)) span.startEvent = *e;
        if (const auto e = indexOf(row.task, row.endOrd)) span.endEvent = *e;
        add(span);
        ++next;
    }
}

// A label without its occurrence number: "svc:op#3" -> "svc:op", "call svc:op#12" -> "call svc:op";
// a label with no trailing "#digits" is returned whole.
std::string_view operationName(std::string_view label);

// The requests with ids in [first, end): one process's share of a distributed run.
struct RequestIdRange {
    std::int64_t first = std::numeric_limits<std::int64_t>::min();
    std::int64_t end = std::numeric_limits<std::int64_t>::max();
};
// A big store read inside a read snapshot (TraceStore::beginRead) is read in runs of requests, one per
// thread, each on its own connection that must see the same snapshot (an import committed in between makes
// it one run); the result is the same as one run's, id for id.
struct ReadRuns {
    unsigned runs = 0;                          // 0: one per hardware thread; at most 4 either way
    std::int64_t minEventsPerRun = 1'000'000;   // smaller stores are read in one run
};
// Appends requests event by event, interning hosts and segment types. Events must come grouped by
// request, and within a request grouped by task in task order.
class TraceDataBuilder {
public:
    void setLabel(std::uint32_t id, std::string text) { m_data.labels[id] = std::move(text); }
    // The store's occurrence labels (sorted by id): each is its name's operation, without spelling it out.
    void setOccurrences(std::vector<LabelOccurrence> occurrences) { m_data.occurrences = std::move(occurrences); }
    void beginRequest(RequestId id, bool fromSpans = false);
    void addEvent(std::uint32_t task, std::uint32_t event, std::uint32_t hostLabel, TimeNs localNs);
    // A link of the current request, by indices into its events (call after its events are added).
    void addLink(std::uint32_t fromEvent, std::uint32_t toEvent);
    // The current request's next span (its spans in index order, after its events are added).
    void addSpan(SpanRef span) { m_data.spans.push_back(span); }
    std::size_t eventCount() const { return m_external ? m_written : m_data.events.size(); }
    void reserve(std::size_t requests, std::size_t events);
    TraceData finish();

    // Every numbered label's operation interned now, in label-id order (call after every setLabel and
    // setOccurrences): what span requests then intern is the same however the requests are read.
    void resolveAllOperations();

private:
    // Reading runs of requests in parallel (loadTraceData only): a builder for another run shares this
    // one's resolved operations and writes its events into `out`, the slice right after this builder's own
    // `out` in the same array; append() takes that run's requests after this one's. Adding more events
    // than `out` holds fails (eventCount stops growing and overflowed() is true).
    friend Result<TraceData> loadTraceData(const TraceStore&, RequestIdRange, const ProgressSink*, const CancelToken*, ReadRuns);
    void writeEventsTo(std::span<EventRecord> out);
    TraceDataBuilder sibling(std::span<EventRecord> out);
    void append(TraceDataBuilder&& run, unsigned threads);  // threads: for renumbering the run's events
    bool overflowed() const { return m_overflowed; }

    SegmentTypeId segmentType(std::uint32_t task, std::uint32_t start, std::uint32_t end);
    std::uint32_t operationLabel(std::uint32_t label);  // the label id of operationName(label's text)
    HostId hostIndex(std::uint32_t hostLabel);
    TraceData m_data;
    bool m_external = false, m_overflowed = false;
    std::span<EventRecord> m_out;  // external event storage
    std::size_t m_written = 0;
    bool m_currentFromSpans = false;
    std::unordered_map<std::uint32_t, std::uint32_t> m_operationOf;  // label -> operation label, for labels stored as "name#k" text
    // Every label's operation label + 1 once asked (0: not yet), by id below kDirectHostLabels: three lookups per
    // event of a span request, each a binary search over a million-span trace's occurrences, were 5 % of reading it.
    std::vector<std::uint32_t> m_operationByLabel;
    std::uint32_t resolveOperationLabel(std::uint32_t label);
    const std::vector<LabelOccurrence>* m_sharedOccurrences = nullptr;  // a sibling's: its parent's table
    std::unordered_map<std::string, std::uint32_t> m_labelByText;    // filled on first need
    std::uint32_t m_nextSyntheticLabel = 0x80000000u;                 // operation labels the store never held
    // Host label -> host index, by label id (the import gives ids densely from 1): a hash lookup per event
    // was 8 % of the corpus's read. Ids past kDirectHostLabels (a damaged store) go to the map instead,
    // so the table stays within 16 MB.
    static constexpr std::uint32_t kDirectHostLabels = 1u << 22;
    std::vector<std::uint32_t> m_hostByLabel;                          // kNoHost: not seen yet
    std::unordered_map<std::uint32_t, std::uint32_t> m_farHostIndex;
    bool m_hasLastHost = false;
    std::uint32_t m_lastHostLabel = 0;
    HostId m_lastHost;
    TripleIndex m_typeIndex;  // (task, start, end) -> segment type
    bool m_inRequest = false;
    std::uint32_t m_task = 0, m_previousEvent = 0;
    bool m_taskOpen = false;
};

// One scan of the events table in (request, task, position) order.
Result<TraceData> loadTraceData(const TraceStore& store, const ProgressSink* progress = nullptr,
                                const CancelToken* cancel = nullptr);

Result<TraceData> loadTraceData(const TraceStore& store, RequestIdRange range, const ProgressSink* progress = nullptr,
                                const CancelToken* cancel = nullptr, ReadRuns how = {});

} // namespace tracelight
