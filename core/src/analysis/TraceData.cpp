#include "tracelight/analysis/TraceData.h"

#include <array>

#include "store/Sqlite.h"
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

void TraceDataBuilder::reserve(std::size_t requests, std::size_t events) {
    m_data.requestIds.reserve(requests);
    m_data.requestBegin.reserve(requests + 1);
    m_data.events.reserve(events);
}

void TraceDataBuilder::beginRequest(RequestId id) {
    m_data.requestIds.push_back(id);
    m_data.requestBegin.push_back(m_data.events.size());
    m_data.linkBegin.push_back(m_data.links.size());
    m_taskOpen = false;
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
    if (m_taskOpen && task == m_task) e.segmentType = segmentType(task, m_previousEvent, event);
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
    TraceDataBuilder builder;
    sqlite3* db = store.db();
    sqlite::Statement counts(db, "SELECT COUNT(*), COALESCE(SUM(event_count), 0) FROM requests");
    if (counts.step() != SQLITE_ROW) return Status::error(store.path() + ": " + sqlite3_errmsg(db));
    const auto eventCount = static_cast<std::size_t>(counts.int64(1));
    builder.reserve(static_cast<std::size_t>(counts.int64(0)), eventCount);
    sqlite::Statement labels(db, "SELECT id, text FROM labels");
    while (labels.step() == SQLITE_ROW) builder.setLabel(static_cast<std::uint32_t>(labels.int64(0)), std::string(labels.text(1)));

    // Known causal links (span imports), resolved to event indices as each request's events arrive.
    std::unordered_map<std::int64_t, std::vector<std::array<std::int64_t, 4>>> linksOf;
    {
        sqlite::Statement q(db, "SELECT request_id, from_task_id, from_ord, to_task_id, to_ord FROM causal_links");
        while (q.step() == SQLITE_ROW) linksOf[q.int64(0)].push_back({q.int64(1), q.int64(2), q.int64(3), q.int64(4)});
    }
    std::unordered_map<std::uint64_t, std::uint32_t> eventIndex;  // (task, ord) -> index, for the current request
    std::uint32_t requestEvents = 0;
    auto resolveLinks = [&](std::int64_t request) {
        auto it = linksOf.find(request);
        if (it == linksOf.end()) return;
        auto key = [](std::int64_t task, std::int64_t ord) { return (std::uint64_t(task) << 32) ^ std::uint64_t(ord); };
        for (const auto& l : it->second) {
            auto from = eventIndex.find(key(l[0], l[1]));
            auto to = eventIndex.find(key(l[2], l[3]));
            if (from != eventIndex.end() && to != eventIndex.end()) builder.addLink(from->second, to->second);
        }
    };

    sqlite::Statement scan(db,
                           "SELECT request_id, task_id, event_id, host_id, ts_ns, ord FROM events "
                           "ORDER BY request_id, task_id, ord");
    ThrottledProgress reporter(progress);
    std::int64_t currentRequest = -1;
    bool currentHasLinks = false;
    for (int rc = scan.step(); rc == SQLITE_ROW; rc = scan.step()) {
        const auto request = scan.int64(0);
        if (request != currentRequest) {
            if (currentHasLinks) resolveLinks(currentRequest);
            builder.beginRequest(RequestId(static_cast<std::uint32_t>(request)));
            currentRequest = request;
            currentHasLinks = !linksOf.empty() && linksOf.count(request);
            eventIndex.clear();
            requestEvents = 0;
        }
        if (currentHasLinks)
            eventIndex[(std::uint64_t(scan.int64(1)) << 32) ^ std::uint64_t(scan.int64(5))] = requestEvents;
        ++requestEvents;
        builder.addEvent(static_cast<std::uint32_t>(scan.int64(1)), static_cast<std::uint32_t>(scan.int64(2)),
                         static_cast<std::uint32_t>(scan.int64(3)), scan.int64(4));
        if ((builder.eventCount() & 0xFFFF) == 0) {
            if (cancel && cancel->isCancelled()) return Status::error("cancelled");
            reporter.report(eventCount ? double(builder.eventCount()) / double(eventCount) : 1.0, "reading events");
        }
    }
    if (currentHasLinks) resolveLinks(currentRequest);
    return builder.finish();
}

} // namespace tracelight
