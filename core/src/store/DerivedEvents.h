#pragma once
// The events, causal links and event attributes of a span request stored as its spans (schema 13,
// requests.events_from_spans): derived from its span rows when read, by the import's own derivation
// (SpanEventModel.h), so that readers see what an event-log request has in the events table.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "store/Sqlite.h"
#include "tracelight/base/Status.h"
#include "tracelight/import/spans/SpanEventModel.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/SpanReads.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

class DerivedEvents {
public:
    // Statements prepared once for every request read with this object.
    explicit DerivedEvents(sqlite3* db);

    // The requests with ids in [firstId, endId) whose events are derived, in id order.
    Result<std::vector<std::int64_t>> requests(std::int64_t firstId, std::int64_t endId);
    bool isDerived(std::int64_t request);

    // The request's events in (task, position) order, one by one, as the events table would hold them (ord 0
    // without withOrder; f returns false to stop: "cancelled"); its causal links, by waiting span; its span
    // tags as event attributes.
    Status events(std::int64_t request, const std::function<bool(const EventRow&)>& f, bool withOrder = true);
    Status links(std::int64_t request, std::vector<LinkRow>& out);
    Result<std::vector<EventAttribute>> attributes(std::int64_t request);

private:
    // The derivation from the request's span rows; with sinks, its events and links go there instead.
    Result<SpanEventModel> model(std::int64_t request, bool withEvents = true,
                                 const std::function<bool(const AssembledEvent&)>& eventSink = {},
                                 const std::function<void(const AssembledLink&)>& linkSink = {});
    std::uint32_t labelId(const char* text);  // 0: none

    sqlite3* m_db;
    sqlite::Statement m_spans, m_spanEvents, m_isDerived;
    std::uint32_t m_start = 0, m_end = 0, m_client = 0;
    std::vector<SpanCallShape> m_shapes;
    std::vector<SpanEventName> m_events;
    std::vector<std::uint32_t> m_enter, m_leave;
};

} // namespace tracelight
