#include "tracelight/TraceData.h"

#include "Sqlite.h"
#include "tracelight/TraceStore.h"

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

Result<TraceData> loadTraceData(const TraceStore& store, const ProgressSink* progress, const CancelToken* cancel) {
    TraceData data;
    sqlite3* db = store.db();
    sqlite::Statement counts(db, "SELECT COUNT(*), COALESCE(SUM(event_count), 0) FROM requests");
    if (counts.step() != SQLITE_ROW) return Status::error(store.path() + ": " + sqlite3_errmsg(db));
    const auto requestCount = static_cast<std::size_t>(counts.int64(0));
    const auto eventCount = static_cast<std::size_t>(counts.int64(1));
    data.requestIds.reserve(requestCount);
    data.requestBegin.reserve(requestCount + 1);
    data.events.reserve(eventCount);

    sqlite::Statement labels(db, "SELECT id, text FROM labels");
    while (labels.step() == SQLITE_ROW) data.labels.emplace(static_cast<std::uint32_t>(labels.int64(0)), std::string(labels.text(1)));

    std::unordered_map<std::uint32_t, std::uint32_t> hostIndex;
    std::unordered_map<std::uint64_t, std::uint32_t> typeIndex;  // (task, start, end) packed -> dense id
    auto typeOf = [&](std::uint32_t task, std::uint32_t start, std::uint32_t end) {
        // Label ids fit in 21 bits for any realistic vocabulary; beyond that fall back to a wider key.
        const std::uint64_t key = (std::uint64_t(task) << 42) ^ (std::uint64_t(start) << 21) ^ end;
        auto [it, fresh] = typeIndex.emplace(key, static_cast<std::uint32_t>(data.segmentTypes.size()));
        if (fresh) data.segmentTypes.push_back({LabelId(task), LabelId(start), LabelId(end)});
        else {
            const SegmentType& t = data.segmentTypes[it->second];
            if (t.task.value != task || t.startEvent.value != start || t.endEvent.value != end) {
                // Packed-key collision (only with label ids >= 2^21): search linearly, rare by construction.
                for (std::uint32_t i = 0; i < data.segmentTypes.size(); ++i) {
                    const SegmentType& s = data.segmentTypes[i];
                    if (s.task.value == task && s.startEvent.value == start && s.endEvent.value == end) return SegmentTypeId(i);
                }
                data.segmentTypes.push_back({LabelId(task), LabelId(start), LabelId(end)});
                return SegmentTypeId(static_cast<std::uint32_t>(data.segmentTypes.size() - 1));
            }
        }
        return SegmentTypeId(it->second);
    };

    sqlite::Statement scan(db,
                           "SELECT request_id, task_id, event_id, host_id, ts_local_us FROM events "
                           "ORDER BY request_id, task_id, ord");
    ThrottledProgress reporter(progress);
    std::int64_t currentRequest = -1;
    std::uint32_t currentTask = 0;
    std::uint32_t previousEvent = 0;
    for (int rc = scan.step(); rc == SQLITE_ROW; rc = scan.step()) {
        const auto request = scan.int64(0);
        const auto task = static_cast<std::uint32_t>(scan.int64(1));
        const auto event = static_cast<std::uint32_t>(scan.int64(2));
        const auto hostLabel = static_cast<std::uint32_t>(scan.int64(3));
        EventRecord e{task, event, HostId(), SegmentTypeId(), scan.real(4)};
        auto [h, freshHost] = hostIndex.emplace(hostLabel, static_cast<std::uint32_t>(data.hostLabels.size()));
        if (freshHost) data.hostLabels.emplace_back(hostLabel);
        e.host = HostId(h->second);
        const bool newRequest = request != currentRequest;
        if (newRequest) {
            data.requestIds.emplace_back(static_cast<std::uint32_t>(request));
            data.requestBegin.push_back(data.events.size());
            currentRequest = request;
        }
        if (!newRequest && task == currentTask) e.segmentType = typeOf(task, previousEvent, event);
        currentTask = task;
        previousEvent = event;
        data.events.push_back(e);
        if ((data.events.size() & 0xFFFF) == 0) {
            if (cancel && cancel->isCancelled()) return Status::error("cancelled");
            reporter.report(eventCount ? double(data.events.size()) / double(eventCount) : 1.0, "reading events");
        }
    }
    data.requestBegin.push_back(data.events.size());
    return data;
}

} // namespace tracelight
