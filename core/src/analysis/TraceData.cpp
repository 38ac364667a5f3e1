#include "tracelight/analysis/TraceData.h"

#include <algorithm>

#include "tracelight/store/TraceStore.h"

namespace tracelight {

std::string TraceData::segmentName(SegmentTypeId id) const {
    const SegmentType& t = segmentTypes[id.value];
    return label(t.task.value) + ":" + label(t.startEvent.value) + "->" + label(t.endEvent.value);
}

const std::string& TraceData::label(std::uint32_t id) const {
    static const std::string unknown = "?";
    auto it = labels.find(id);
    return it == labels.end() ? unknown : it->second;
}

std::string_view operationName(std::string_view label) {
    const auto hash = label.rfind('#');
    if (hash == std::string_view::npos || hash == 0 || hash + 1 == label.size()) return label;
    for (std::size_t i = hash + 1; i < label.size(); ++i)
        if (label[i] < '0' || label[i] > '9') return label;
    return label.substr(0, hash);
}

std::uint32_t TraceDataBuilder::operationLabel(std::uint32_t label) {
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

void TraceDataBuilder::reserve(std::size_t requests, std::size_t events) {
    m_data.requestIds.reserve(requests);
    m_data.requestBegin.reserve(requests + 1);
    m_data.events.reserve(events);
}

void TraceDataBuilder::beginRequest(RequestId id, bool fromSpans) {
    m_data.requestIds.push_back(id);
    m_data.fromSpans.push_back(fromSpans ? 1 : 0);
    m_data.requestBegin.push_back(m_data.events.size());
    m_data.linkBegin.push_back(m_data.links.size());
    m_taskOpen = false;
    m_currentFromSpans = fromSpans;
}

void TraceDataBuilder::addLink(std::uint32_t fromEvent, std::uint32_t toEvent) { m_data.links.push_back({fromEvent, toEvent}); }

SegmentTypeId TraceDataBuilder::segmentType(std::uint32_t task, std::uint32_t start, std::uint32_t end) {
    // Packed key; label ids beyond 21 bits could collide, so a hit is verified and a miss searched.
    const std::uint64_t key = (std::uint64_t(task) << 42) ^ (std::uint64_t(start) << 21) ^ end;
    auto matches = [&](std::uint32_t i) {
        const SegmentType& t = m_data.segmentTypes[i];
        return t.task.value == task && t.startEvent.value == start && t.endEvent.value == end;
    };
    auto it = m_typeIndex.find(key);
    if (it != m_typeIndex.end()) {
        if (matches(it->second)) return SegmentTypeId(it->second);
        for (std::uint32_t i = 0; i < m_data.segmentTypes.size(); ++i)
            if (matches(i)) return SegmentTypeId(i);
    }
    const auto id = static_cast<std::uint32_t>(m_data.segmentTypes.size());
    m_data.segmentTypes.push_back({LabelId(task), LabelId(start), LabelId(end)});
    if (it == m_typeIndex.end()) m_typeIndex.emplace(key, id);
    return SegmentTypeId(id);
}

void TraceDataBuilder::addEvent(std::uint32_t task, std::uint32_t event, std::uint32_t hostLabel, TimeNs localNs) {
    EventRecord e{task, event, HostId(), SegmentTypeId(), localNs};
    auto [h, fresh] = m_hostIndex.emplace(hostLabel, static_cast<std::uint32_t>(m_data.hostLabels.size()));
    if (fresh) m_data.hostLabels.emplace_back(hostLabel);
    e.host = HostId(h->second);
    if (m_taskOpen && task == m_task) {
        if (m_currentFromSpans)
            e.segmentType = segmentType(operationLabel(task), operationLabel(m_previousEvent), operationLabel(event));
        else
            e.segmentType = segmentType(task, m_previousEvent, event);
    }
    m_taskOpen = true;
    m_task = task;
    m_previousEvent = event;
    m_data.events.push_back(e);
}

TraceData TraceDataBuilder::finish() {
    m_data.requestBegin.push_back(m_data.events.size());
    m_data.linkBegin.push_back(m_data.links.size());
    return std::move(m_data);
}

Result<TraceData> loadTraceData(const TraceStore& store, const ProgressSink* progress, const CancelToken* cancel) {
    return loadTraceData(store, RequestIdRange{}, progress, cancel);
}

Result<TraceData> loadTraceData(const TraceStore& store, RequestIdRange range, const ProgressSink* progress, const CancelToken* cancel) {
    TraceDataBuilder builder;
    const bool whole = range.first == RequestIdRange{}.first && range.end == RequestIdRange{}.end;
    const auto [requestCount, eventTotal] =
        whole ? std::pair{store.requestCount(), store.eventCount()} : store.requestAndEventCount(range.first, range.end);
    const auto eventCount = static_cast<std::size_t>(eventTotal);
    builder.reserve(static_cast<std::size_t>(requestCount), eventCount);
    for (auto& [id, text] : store.labels()) builder.setLabel(id, std::move(text));
    for (auto [id, name] : store.labelOccurrences()) builder.setOperationOf(id, name);

    // Known causal links (span imports), resolved to event indices as each request's events arrive.
    std::unordered_map<std::int64_t, std::vector<LinkRow>> linksOf;
    for (const LinkRow& l : store.causalLinks())
        if (l.request >= range.first && l.request < range.end) linksOf[l.request].push_back(l);
    // Requests imported from spans keep their clocks unless there is evidence of skew.
    std::vector<std::uint32_t> spanRequests = store.spanRequestIds();  // sorted
    std::unordered_map<std::uint64_t, std::uint32_t> eventIndex;  // (task, ord) -> index, for the current request
    std::uint32_t requestEvents = 0;
    auto key = [](std::uint32_t task, std::int64_t ord) { return (std::uint64_t(task) << 32) ^ std::uint64_t(ord); };
    auto resolveLinks = [&](std::int64_t request) {
        auto it = linksOf.find(request);
        if (it == linksOf.end()) return;
        for (const auto& l : it->second) {
            auto from = eventIndex.find(key(l.fromTask, l.fromOrd));
            auto to = eventIndex.find(key(l.toTask, l.toOrd));
            if (from != eventIndex.end() && to != eventIndex.end()) builder.addLink(from->second, to->second);
        }
    };

    ThrottledProgress reporter(progress);
    std::int64_t currentRequest = -1;
    bool currentHasLinks = false;
    const Status scanned = store.scanEvents([&](const EventRow& e) {
        if (e.request != currentRequest) {
            if (currentHasLinks) resolveLinks(currentRequest);
            builder.beginRequest(RequestId(static_cast<std::uint32_t>(e.request)),
                                 std::binary_search(spanRequests.begin(), spanRequests.end(), static_cast<std::uint32_t>(e.request)));
            currentRequest = e.request;
            currentHasLinks = !linksOf.empty() && linksOf.count(e.request);
            eventIndex.clear();
            requestEvents = 0;
        }
        if (currentHasLinks) eventIndex[key(e.task, e.ord)] = requestEvents;
        ++requestEvents;
        builder.addEvent(e.task, e.event, e.host, e.localNs);
        if ((builder.eventCount() & 0xFFFF) == 0) {
            if (cancel && cancel->isCancelled()) return false;
            reporter.report(eventCount ? double(builder.eventCount()) / double(eventCount) : 1.0, "reading events");
        }
        return true;
    }, range.first, range.end);
    if (!scanned) return scanned;
    if (currentHasLinks) resolveLinks(currentRequest);
    return builder.finish();
}

} // namespace tracelight
