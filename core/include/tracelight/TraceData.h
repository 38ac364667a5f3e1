#pragma once
// Every request's events in memory, read in one ordered scan of the store: contiguous arrays, interned
// ids, segment types resolved once. The input to every analysis pass.
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "tracelight/Ids.h"
#include "tracelight/Progress.h"
#include "tracelight/Status.h"

namespace tracelight {

class TraceStore;

using SegmentTypeId = TypedId<struct SegmentTypeTag>;
using HostId = TypedId<struct HostTag>;  // dense index into TraceData::hostLabels

// A segment type is <task, start event, end event>.
struct SegmentType {
    LabelId task, startEvent, endEvent;
};

struct EventRecord {
    std::uint32_t task;         // label id
    std::uint32_t event;        // label id
    HostId host;                // dense host index
    SegmentTypeId segmentType;  // of the segment this event ends; invalid for a task's first event
    double localUs;             // the host's own clock
};

struct TraceData {
    std::vector<RequestId> requestIds;
    std::vector<std::uint64_t> requestBegin;  // events of request r: [requestBegin[r], requestBegin[r+1])
    std::vector<EventRecord> events;          // per request grouped by task, in task order
    std::vector<SegmentType> segmentTypes;
    std::vector<LabelId> hostLabels;          // HostId -> label
    std::unordered_map<std::uint32_t, std::string> labels;  // label id -> text, for the labels in use

    std::size_t requestCount() const { return requestIds.size(); }
    std::span<const EventRecord> eventsOf(std::size_t r) const {
        return {events.data() + requestBegin[r], events.data() + requestBegin[r + 1]};
    }
    std::string segmentName(SegmentTypeId id) const;  // "task:START->END"
    const std::string& label(std::uint32_t id) const;
};

// One scan of the events table in (request, task, position) order.
Result<TraceData> loadTraceData(const TraceStore& store, const ProgressSink* progress = nullptr,
                                const CancelToken* cancel = nullptr);

} // namespace tracelight
