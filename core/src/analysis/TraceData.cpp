#include "tracelight/analysis/TraceData.h"
#include "tracelight/base/PagePopulate.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "tracelight/base/Parallel.h"
#include "tracelight/store/SpanReads.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

std::string TraceData::segmentName(SegmentTypeId id) const {
    const SegmentType& t = segmentTypes[id.value];
    return label(t.task.value) + ":" + label(t.startEvent.value) + "->" + label(t.endEvent.value);
}

TraceData restrictTraceData(const TraceData& data, const std::vector<std::uint32_t>& rows) {
    TraceData out;
    out.segmentTypes = data.segmentTypes;
    out.hostLabels = data.hostLabels;
    out.labels = data.labels;
    out.occurrences = data.occurrences;
    std::size_t events = 0;
    for (auto r : rows) events += data.eventsOf(r).size();
    out.events.reserve(events);
    out.requestBegin.push_back(0);
    out.linkBegin.push_back(0);
    out.spanBegin.push_back(0);
    for (auto r : rows) {
        out.requestIds.push_back(data.requestIds[r]);
        for (const EventRecord& e : data.eventsOf(r)) out.events.push_back(e);
        out.requestBegin.push_back(out.events.size());
        for (const EventLink& l : data.linksOf(r)) out.links.push_back(l);  // request-relative event indices
        out.linkBegin.push_back(out.links.size());
        for (const SpanRef& sp : data.spansOf(r)) out.spans.push_back(sp);
        out.spanBegin.push_back(out.spans.size());
        out.fromSpans.push_back(data.isFromSpans(r) ? 1 : 0);
    }
    return out;
}

std::string TraceData::label(std::uint32_t id) const {
    if (auto it = labels.find(id); it != labels.end()) return it->second;
    if (const LabelOccurrence* o = occurrence(id))
        if (auto name = labels.find(o->name); name != labels.end()) return occurrenceName(name->second, o->occurrence);
    return "?";
}

const LabelOccurrence* TraceData::occurrence(std::uint32_t id) const { return findOccurrence(occurrences, id); }

std::string_view operationName(std::string_view label) {
    const auto hash = label.rfind('#');
    if (hash == std::string_view::npos || hash == 0 || hash + 1 == label.size()) return label;
    for (std::size_t i = hash + 1; i < label.size(); ++i)
        if (label[i] < '0' || label[i] > '9') return label;
    return label.substr(0, hash);
}

std::uint32_t TraceDataBuilder::operationLabel(std::uint32_t label) {
    if (label < m_operationByLabel.size() && m_operationByLabel[label] != 0) return m_operationByLabel[label] - 1;
    const std::uint32_t op = resolveOperationLabel(label);
    if (label < kDirectHostLabels) {
        if (label >= m_operationByLabel.size())
            m_operationByLabel.resize(std::min<std::size_t>(kDirectHostLabels, std::max<std::size_t>(std::size_t(label) + 1, 2 * m_operationByLabel.size())), 0);
        m_operationByLabel[label] = op + 1;
    }
    return op;
}

std::uint32_t TraceDataBuilder::resolveOperationLabel(std::uint32_t label) {
    if (const LabelOccurrence* stored = findOccurrence(m_sharedOccurrences ? *m_sharedOccurrences : m_data.occurrences, label))
        return stored->name;
    if (auto it = m_operationOf.find(label); it != m_operationOf.end()) return it->second;
    std::uint32_t op = label;
    auto text = m_data.labels.find(label);
    if (text != m_data.labels.end()) {
        const std::string_view name = operationName(text->second);
        if (name.size() != text->second.size()) {
            if (m_labelByText.empty())
                for (const auto& [id, t] : m_data.labels) m_labelByText.emplace(t, id);
            auto [it, fresh] = m_labelByText.emplace(std::string(name), m_nextSyntheticLabel);
            if (fresh) {
                m_data.labels.emplace(m_nextSyntheticLabel, std::string(name));
                ++m_nextSyntheticLabel;
            }
            op = it->second;
        }
    }
    m_operationOf.emplace(label, op);
    return op;
}

void TraceDataBuilder::resolveAllOperations() {
    std::vector<std::uint32_t> numbered;  // collected first (resolving adds labels), then in id order
    for (const auto& [id, text] : m_data.labels)
        if (!m_operationOf.count(id) && operationName(text).size() != text.size()) numbered.push_back(id);
    std::sort(numbered.begin(), numbered.end());
    for (std::uint32_t id : numbered) operationLabel(id);
}

void TraceDataBuilder::reserve(std::size_t requests, std::size_t events) {
    m_data.requestIds.reserve(requests);
    m_data.requestBegin.reserve(requests + 1);
    if (!m_external) m_data.events.reserve(events);
}

void TraceDataBuilder::writeEventsTo(std::span<EventRecord> out) {
    m_external = true;
    m_out = out;
    m_written = 0;
}

TraceDataBuilder TraceDataBuilder::sibling(std::span<EventRecord> out) {
    TraceDataBuilder run;
    run.m_operationOf = m_operationOf;
    run.m_sharedOccurrences = &m_data.occurrences;  // this builder outlives its siblings and finishes after them
    run.writeEventsTo(out);
    return run;
}

void TraceDataBuilder::append(TraceDataBuilder&& run, unsigned threads) {
    TraceData& other = run.m_data;
    std::vector<HostId> hostOf(other.hostLabels.size());
    for (std::size_t h = 0; h < hostOf.size(); ++h) hostOf[h] = hostIndex(other.hostLabels[h].value);
    std::vector<SegmentTypeId> typeOf(other.segmentTypes.size());
    for (std::size_t t = 0; t < typeOf.size(); ++t) {
        const SegmentType& type = other.segmentTypes[t];
        typeOf[t] = segmentType(type.task.value, type.startEvent.value, type.endEvent.value);
    }
    const std::size_t eventBase = eventCount(), linkBase = m_data.links.size(), spanBase = m_data.spans.size();
    if (!m_external || !run.m_external || run.m_out.data() < m_out.data() + eventBase)
        throw std::logic_error("TraceDataBuilder::append: the run's events must follow this builder's in one array");
    // Moved down over any gap this builder left in its slice (the target never lies after the source). In
    // place (no gap, the usual case) the events are renumbered on every core: tens of millions of them.
    EventRecord* to = m_out.data() + eventBase;
    auto renumber = [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            EventRecord e = run.m_out[i];
            e.host = hostOf[e.host.value];
            if (e.segmentType.isValid()) e.segmentType = typeOf[e.segmentType.value];
            to[i] = e;
        }
    };
    if (to == run.m_out.data())
        forEachShard(run.eventCount(), std::max(1u, threads), [&](unsigned, std::size_t begin, std::size_t end) { renumber(begin, end); });
    else
        renumber(0, run.eventCount());
    m_written += run.eventCount();
    m_out = std::span<EventRecord>(m_out.data(), std::max(m_out.size(), m_written));
    for (std::size_t r = 0; r < other.requestIds.size(); ++r) {
        m_data.requestIds.push_back(other.requestIds[r]);
        m_data.fromSpans.push_back(other.fromSpans[r]);
        m_data.requestBegin.push_back(eventBase + other.requestBegin[r]);
        m_data.linkBegin.push_back(linkBase + other.linkBegin[r]);
        m_data.spanBegin.push_back(spanBase + other.spanBegin[r]);  // its spans' event indices are request-relative
    }
    m_data.links.insert(m_data.links.end(), other.links.begin(), other.links.end());
    m_data.spans.insert(m_data.spans.end(), other.spans.begin(), other.spans.end());
    m_taskOpen = false;
}

void TraceDataBuilder::beginRequest(RequestId id, bool fromSpans) {
    m_data.requestIds.push_back(id);
    m_data.fromSpans.push_back(fromSpans ? 1 : 0);
    m_data.requestBegin.push_back(eventCount());
    m_data.linkBegin.push_back(m_data.links.size());
    m_data.spanBegin.push_back(m_data.spans.size());
    m_taskOpen = false;
    m_currentFromSpans = fromSpans;
}

void TraceDataBuilder::addLink(std::uint32_t fromEvent, std::uint32_t toEvent) { m_data.links.push_back({fromEvent, toEvent}); }

SegmentTypeId TraceDataBuilder::segmentType(std::uint32_t task, std::uint32_t start, std::uint32_t end) {
    const auto next = static_cast<std::uint32_t>(m_data.segmentTypes.size());
    const auto [id, fresh] = m_typeIndex.emplace(task, start, end, next);
    if (fresh) m_data.segmentTypes.push_back({LabelId(task), LabelId(start), LabelId(end)});
    return SegmentTypeId(id);
}

HostId TraceDataBuilder::hostIndex(std::uint32_t hostLabel) {
    // A task's events share its host, so one lookup per run of a host.
    if (m_hasLastHost && hostLabel == m_lastHostLabel) return m_lastHost;
    constexpr std::uint32_t kNoHost = UINT32_MAX;
    const auto next = static_cast<std::uint32_t>(m_data.hostLabels.size());
    std::uint32_t host = next;
    if (hostLabel < kDirectHostLabels) {
        if (hostLabel >= m_hostByLabel.size())
            m_hostByLabel.resize(std::min<std::size_t>(kDirectHostLabels, std::max<std::size_t>(std::size_t(hostLabel) + 1, 2 * m_hostByLabel.size())),
                                 kNoHost);
        std::uint32_t& slot = m_hostByLabel[hostLabel];
        if (slot == kNoHost) slot = next;
        host = slot;
    } else {
        host = m_farHostIndex.emplace(hostLabel, next).first->second;
    }
    if (host == next) m_data.hostLabels.emplace_back(hostLabel);
    m_lastHostLabel = hostLabel;
    m_lastHost = HostId(host);
    m_hasLastHost = true;
    return m_lastHost;
}

void TraceDataBuilder::addEvent(std::uint32_t task, std::uint32_t event, std::uint32_t hostLabel, TimeNs localNs) {
    EventRecord e{task, event, hostIndex(hostLabel), SegmentTypeId(), localNs};
    if (m_taskOpen && task == m_task) {
        if (m_currentFromSpans)
            e.segmentType = segmentType(operationLabel(task), operationLabel(m_previousEvent), operationLabel(event));
        else
            e.segmentType = segmentType(task, m_previousEvent, event);
    }
    m_taskOpen = true;
    m_task = task;
    m_previousEvent = event;
    if (!m_external) {
        m_data.events.push_back(e);
    } else if (m_written < m_out.size()) {
        m_out[m_written++] = e;
    } else {
        m_overflowed = true;
    }
}

TraceData TraceDataBuilder::finish() {
    m_data.requestBegin.push_back(eventCount());
    m_data.linkBegin.push_back(m_data.links.size());
    m_data.spanBegin.push_back(m_data.spans.size());
    return std::move(m_data);
}

Result<TraceData> loadTraceData(const TraceStore& store, const ProgressSink* progress, const CancelToken* cancel) {
    return loadTraceData(store, RequestIdRange{}, progress, cancel);
}

namespace {

// What every run of one read shares: the links, the spans and the span requests, read once.
struct ReadContext {
    std::vector<LinkRow> links;     // in request order: read once, not copied into a list per request
    std::vector<SpanRefRow> spans;  // in (request, idx) order, likewise
    std::span<const LinkRow> linksOf(std::int64_t request) const { return rowsOf(links, request); }
    std::span<const SpanRefRow> spansOf(std::int64_t request) const { return rowsOf(spans, request); }
    template <typename Row>
    static std::span<const Row> rowsOf(const std::vector<Row>& rows, std::int64_t request) {
        const auto [from, to] = std::equal_range(rows.begin(), rows.end(), request, ByRequest{});
        return {from, to};
    }
    struct ByRequest {
        template <typename Row>
        bool operator()(const Row& l, std::int64_t r) const { return l.request < r; }
        template <typename Row>
        bool operator()(std::int64_t r, const Row& l) const { return r < l.request; }
    };
    std::vector<std::uint32_t> spanRequests;                         // sorted
    std::size_t eventTotal = 0;
    std::atomic<std::size_t> eventsRead{0};
    std::atomic<bool> failed{false};  // a run failed: the others stop early
    const CancelToken* cancel = nullptr;
};

// One scan of the requests in [first, end) through `store` into `builder`.
Status readRun(const TraceStore& store, std::int64_t first, std::int64_t end, TraceDataBuilder& builder, ReadContext& context,
               ThrottledProgress* reporter) {
    // The current request's (task, ord) keys in the scan's order, which is key order: a key's position is
    // its event's index in the request, found by binary search (a hash map of them was a tenth of the read).
    std::vector<std::pair<std::uint32_t, std::int64_t>> eventKeys;
    auto indexOf = [&](std::uint32_t task, std::int64_t ord) -> std::optional<std::uint32_t> {
        const std::pair key{task, ord};
        auto it = std::lower_bound(eventKeys.begin(), eventKeys.end(), key);
        if (it == eventKeys.end() || *it != key) return std::nullopt;
        return static_cast<std::uint32_t>(it - eventKeys.begin());
    };
    auto resolveLinks = [&](std::int64_t request) {
        for (const LinkRow& l : context.linksOf(request)) {
            auto from = indexOf(l.fromTask, l.fromOrd);
            auto to = indexOf(l.toTask, l.toOrd);
            if (from && to) builder.addLink(*from, *to);
        }
    };
    auto resolveSpans = [&](std::int64_t request) {
        resolveSpanRefs(context.spansOf(request), indexOf, [&](SpanRef s) { builder.addSpan(s); });
    };
    std::int64_t currentRequest = -1;
    bool currentHasLinks = false, currentHasSpans = false;
    // Both after the request's events: the links, then the spans.
    auto endRequest = [&] {
        if (currentHasLinks) resolveLinks(currentRequest);
        if (currentHasSpans) resolveSpans(currentRequest);
    };
    std::uint32_t sinceReport = 0;
    const Status scanned = store.scanEvents([&](const EventRow& e) {
        if (e.request != currentRequest) {
            endRequest();
            builder.beginRequest(RequestId(static_cast<std::uint32_t>(e.request)),
                                 std::binary_search(context.spanRequests.begin(), context.spanRequests.end(),
                                                    static_cast<std::uint32_t>(e.request)));
            currentRequest = e.request;
            currentHasLinks = !context.links.empty() && !context.linksOf(e.request).empty();
            currentHasSpans = !context.spans.empty() && !context.spansOf(e.request).empty();
            eventKeys.clear();
        }
        if (currentHasLinks || currentHasSpans) eventKeys.emplace_back(e.task, e.ord);
        builder.addEvent(e.task, e.event, e.host, e.localNs);
        if (++sinceReport == 0x10000) {
            sinceReport = 0;
            if ((context.cancel && context.cancel->isCancelled()) || context.failed.load(std::memory_order_relaxed)) return false;
            const std::size_t read = context.eventsRead.fetch_add(0x10000) + 0x10000;
            if (reporter)
                reporter->report(context.eventTotal ? std::min(1.0, double(read) / double(context.eventTotal)) : 1.0, "reading events");
        }
        return true;
    }, first, end, !context.links.empty() || !context.spans.empty());  // positions only to resolve links and spans
    if (!scanned) return scanned;
    endRequest();
    return Status::ok();
}

// The request-id cuts of [first, end) into about equal runs, each read on its own connection, and each
// run's event count; one run when the store is small, in memory, or cannot be opened a second time with
// the same contents.
std::vector<std::unique_ptr<TraceStore>> runConnections(const TraceStore& store, RequestIdRange range, std::int64_t requests,
                                                        std::int64_t events, const ReadRuns& how, std::vector<std::int64_t>& cuts,
                                                        std::vector<std::int64_t>& runEvents) {
    std::vector<std::unique_ptr<TraceStore>> extra;
    const unsigned runs = std::min(how.runs ? how.runs : resolveThreads(0), 4u);
    cuts = {range.first, range.end};
    runEvents = {events};
    // Without the caller's snapshot there is none for the other connections to match.
    if (runs < 2 || events < 2 * how.minEventsPerRun || requests < 2 * std::int64_t(runs) || store.path().empty() ||
        store.path() == ":memory:" || !store.holdsReadSnapshot())
        return extra;
    std::vector<std::int64_t> candidate = store.requestIdCuts(static_cast<int>(runs), range.first, range.end, requests);
    std::vector<std::int64_t> counted(candidate.size() - 1, 0);
    for (std::size_t p = 1; p + 1 < candidate.size(); ++p) {
        auto opened = TraceStore::open(store.path(), TraceStore::Mode::ReadOnly);
        if (!opened) return {};
        TraceStore& other = *opened.value();
        // Its own snapshot must hold what this one's does: an import committed in between would not.
        const auto here = store.requestAndEventCount(candidate[p], candidate[p + 1]);
        if (!other.beginRead() || other.lastImportId() != store.lastImportId() ||
            other.requestAndEventCount(candidate[p], candidate[p + 1]) != here)
            return {};
        counted[p] = here.second;
        extra.push_back(std::move(opened.value()));
    }
    counted[0] = events;  // the first run holds what the others do not
    for (std::size_t p = 1; p < counted.size(); ++p) counted[0] -= counted[p];
    cuts = std::move(candidate);
    runEvents = std::move(counted);
    return extra;
}

} // namespace

Result<TraceData> loadTraceData(const TraceStore& store, RequestIdRange range, const ProgressSink* progress, const CancelToken* cancel,
                                ReadRuns how) {
    const bool whole = range.first == RequestIdRange{}.first && range.end == RequestIdRange{}.end;
    // Every event was read (which checked each page of the table) only when none lay past the scan's end.
    auto noteIfReadInFull = [&] {
        if (whole && !store.holdsEventsPastEveryScan()) store.noteEventsReadInFull();
    };
    const auto [requestCount, eventTotal] = store.requestAndEventCount(range.first, range.end);
    ReadContext context;
    context.spanRequests = spanRequestIds(store);  // span requests keep their clocks unless there is evidence of skew
    auto withLabels = [&](TraceDataBuilder& b) {
        for (auto& [id, text] : store.labelNames()) b.setLabel(id, std::move(text));
        b.setOccurrences(store.labelOccurrences());
        if (!context.spanRequests.empty()) b.resolveAllOperations();
    };
    TraceDataBuilder builder;
    withLabels(builder);
    auto links = store.causalLinks(range.first, range.end);
    if (!links) return links.status();
    context.links = std::move(links.value());
    auto spans = spanRefs(store, range.first, range.end);
    if (!spans) return spans.status();
    context.spans = std::move(spans.value());
    context.eventTotal = static_cast<std::size_t>(eventTotal);
    context.cancel = cancel;
    ThrottledProgress reporter(progress);

    // A big store is read in runs of requests, one per core, each on its own connection and straight into
    // its part of one event array; the runs' hosts and segment types are merged after.
    std::vector<std::int64_t> cuts, runEventCounts;
    std::vector<std::unique_ptr<TraceStore>> connections =
        runConnections(store, range, requestCount, eventTotal, how, cuts, runEventCounts);
    const std::size_t runs = cuts.size() - 1;
    if (runs == 1) {
        builder.reserve(static_cast<std::size_t>(requestCount), context.eventTotal);
        if (Status s = readRun(store, range.first, range.end, builder, context, &reporter); !s) return s;
        noteIfReadInFull();
        return builder.finish();
    }
    std::vector<std::size_t> runEvents(runs);
    for (std::size_t p = 0; p < runs; ++p) runEvents[p] = static_cast<std::size_t>(std::max<std::int64_t>(0, runEventCounts[p]));
    EventArray events(context.eventTotal);  // written by the runs, each in its own slice
    std::vector<TraceDataBuilder> runBuilders;
    std::vector<std::span<EventRecord>> slices;
    std::size_t offset = 0;
    for (std::size_t p = 0; p < runs; ++p) {
        const std::span<EventRecord> slice(events.data() + offset, std::min(runEvents[p], events.size() - offset));
        slices.push_back(slice);
        if (p == 0) builder.writeEventsTo(slice);
        else runBuilders.push_back(builder.sibling(slice));
        offset += slice.size();
    }
    std::vector<Status> statuses(runs, Status::ok());
    forEachShard(runs, static_cast<unsigned>(runs), [&](unsigned run, std::size_t, std::size_t) {
        // Each run its own slice's pages, at once (a fresh 1.4 GB costs seconds where a hypervisor backs
        // memory on first touch; two cores share that).
        populatePagesForWriting(slices[run].data(), slices[run].size_bytes());
        TraceDataBuilder& b = run == 0 ? builder : runBuilders[run - 1];
        const TraceStore& connection = run == 0 ? store : *connections[run - 1];
        statuses[run] = readRun(connection, cuts[run], cuts[run + 1], b, context, run == 0 ? &reporter : nullptr);
        if (!statuses[run]) context.failed = true;
    });
    for (const Status& s : statuses)
        if (!s) return s;
    // A run whose events disagree with the requests' counts (a damaged store) is read again on its own.
    bool overflowed = builder.overflowed();
    for (const auto& b : runBuilders) overflowed = overflowed || b.overflowed();
    if (overflowed) {
        // Memory first: this happens on a damaged store, which must not cost twice the events.
        EventArray().swap(events);
        runBuilders.clear();
        connections.clear();
        TraceDataBuilder serial;
        withLabels(serial);
        serial.reserve(static_cast<std::size_t>(requestCount), context.eventTotal);
        context.eventsRead = 0;
        if (Status s = readRun(store, range.first, range.end, serial, context, &reporter); !s) return s;
        noteIfReadInFull();
        return serial.finish();
    }
    for (auto& b : runBuilders) builder.append(std::move(b), static_cast<unsigned>(runs));
    const std::size_t written = builder.eventCount();
    TraceData data = builder.finish();
    events.resize(written);
    data.events = std::move(events);
    noteIfReadInFull();
    return data;
}

} // namespace tracelight
