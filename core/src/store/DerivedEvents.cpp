#include "store/DerivedEvents.h"

#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "store/PackedSpanParts.h"
#include "store/ProcessTags.h"

namespace tracelight {

DerivedEvents::DerivedEvents(sqlite3* db)
    : m_db(db),
      m_spans(db, "SELECT parent, caller, detached, kind_id, event_host_id, task_id, enter_id, leave_id, start_ns, end_ns, idx "
                  "FROM spans WHERE request_id=?1 ORDER BY idx"),
      m_spanEvents(db, "SELECT idx, events FROM spans WHERE request_id=?1 AND events IS NOT NULL ORDER BY idx"),
      m_isDerived(db, "SELECT events_from_spans FROM requests WHERE id=?1") {
    m_start = labelId("start");
    m_end = labelId("end");
    m_client = labelId("client");
}

std::uint32_t DerivedEvents::labelId(const char* text) {
    sqlite::Statement q(m_db, "SELECT id FROM labels WHERE text=?1");
    q.bind(1, std::string_view(text));
    return q.step() == SQLITE_ROW ? static_cast<std::uint32_t>(q.int64(0)) : 0;
}

Result<std::vector<std::int64_t>> DerivedEvents::requests(std::int64_t firstId, std::int64_t endId) {
    std::vector<std::int64_t> out;
    sqlite::Statement q(m_db, "SELECT id FROM requests WHERE events_from_spans=1 AND id >= ?1 AND id < ?2 ORDER BY id");
    q.bind(1, firstId).bind(2, endId);
    int rc = SQLITE_ROW;
    while ((rc = q.step()) == SQLITE_ROW) out.push_back(q.int64(0));
    if (rc != SQLITE_DONE) return Status::error(std::string("cannot read requests: ") + sqlite3_errmsg(m_db));
    return out;
}

bool DerivedEvents::isDerived(std::int64_t request) {
    m_isDerived.bind(1, request);
    const bool derived = m_isDerived.step() == SQLITE_ROW && m_isDerived.int64(0) != 0;
    m_isDerived.reset();
    return derived;
}

Result<SpanEventModel> DerivedEvents::model(std::int64_t request, bool withEvents,
                                            const std::function<bool(const AssembledEvent&)>& eventSink,
                                            const std::function<void(const AssembledLink&)>& linkSink) {
    m_shapes.clear();
    m_events.clear();
    m_enter.clear();
    m_leave.clear();
    m_spans.bind(1, request);
    int rc = SQLITE_ROW;
    while ((rc = m_spans.step()) == SQLITE_ROW) {
        if (m_spans.int64(10) != static_cast<std::int64_t>(m_shapes.size())) {
            m_spans.reset();
            return Status::error("request " + std::to_string(request) + ": span " + std::to_string(m_shapes.size()) +
                                 " is missing (a damaged database): its events cannot be derived");
        }
        SpanCallShape shape;
        const auto parent = m_spans.int64(0), caller = m_spans.int64(1);
        shape.waitedBy = static_cast<std::int32_t>(caller >= 0 ? caller : parent);
        shape.moved = caller >= 0;
        shape.detached = m_spans.int64(2) != 0;
        shape.client = m_client != 0 && static_cast<std::uint32_t>(m_spans.int64(3)) == m_client;
        shape.host = static_cast<std::uint32_t>(m_spans.int64(4));
        // The task its events landed in: its own where it is not a server taken into its client's task,
        // and the derivation reads a span's own task only there.
        shape.task = {static_cast<std::uint32_t>(m_spans.int64(5)), 1};
        shape.startNs = m_spans.int64(8);
        shape.endNs = m_spans.int64(9);
        m_shapes.push_back(shape);
        m_enter.push_back(static_cast<std::uint32_t>(m_spans.int64(6)));
        m_leave.push_back(static_cast<std::uint32_t>(m_spans.int64(7)));
    }
    m_spans.reset();
    if (rc != SQLITE_DONE) return Status::error(std::string("cannot read spans: ") + sqlite3_errmsg(m_db));
    // A span that waits for another always comes before it; anything else is not what the import wrote.
    for (std::size_t i = 0; i < m_shapes.size(); ++i)
        if (m_shapes[i].waitedBy >= static_cast<std::int32_t>(i) || m_shapes[i].waitedBy < -1)
            return Status::error("request " + std::to_string(request) + ": span " + std::to_string(i) +
                                 " is waited for by a span that is not before it (a damaged database): its events cannot be derived");
    m_spanEvents.bind(1, request);
    while ((rc = m_spanEvents.step()) == SQLITE_ROW) {
        const std::int64_t idx = m_spanEvents.int64(0);
        if (idx < 0 || static_cast<std::uint64_t>(idx) >= m_shapes.size()) continue;
        SpanCallShape& shape = m_shapes[static_cast<std::size_t>(idx)];
        const bool whole = packed::forEachEvent(m_spanEvents.blob(1), [&](std::uint32_t, std::uint32_t event, std::int64_t tsNs) {
            if (shape.eventCount == 0) shape.firstEvent = static_cast<std::uint32_t>(m_events.size());
            ++shape.eventCount;
            m_events.push_back({{event, 1}, tsNs});
        });
        if (!whole) {
            m_spanEvents.reset();
            return Status::error("cannot read span events: span " + std::to_string(idx) + "'s are damaged");
        }
    }
    m_spanEvents.reset();
    if (rc != SQLITE_DONE) return Status::error(std::string("cannot read span events: ") + sqlite3_errmsg(m_db));
    const auto verb = [&](std::uint32_t span, SpanVerb v) {
        return TraceName{v == SpanVerb::Call || v == SpanVerb::Serve ? m_enter[span] : m_leave[span], 1};
    };
    return deriveSpanEvents({m_shapes, m_events, {m_start, 1}, {m_end, 1}, verb, {}, withEvents, eventSink, linkSink});
}

Status DerivedEvents::events(std::int64_t request, const std::function<bool(const EventRow&)>& f, bool withOrder) {
    // Task by task in task id order (a task id is one task's in a request), each in position order: as the
    // events table gives them, and without a list of them all.
    auto derived = model(request, true, [&](const AssembledEvent& e) {
        return f({request, e.task.name, e.event.name, e.host, withOrder ? e.seq : 0, e.tsNs});
    });
    if (!derived) return derived.status();
    return derived.value().stopped ? Status::error("cancelled") : Status::ok();
}

Status DerivedEvents::links(std::int64_t request, std::vector<LinkRow>& out) {
    auto derived = model(request, false, {}, [&](const AssembledLink& l) {
        out.push_back({request, l.fromTask.name, l.fromSeq, l.toTask.name, l.toSeq});
    });
    return derived ? Status::ok() : derived.status();
}

Result<std::vector<EventAttribute>> DerivedEvents::attributes(std::int64_t request) {
    auto derived = model(request);
    if (!derived) return derived.status();
    const SpanEventModel& m = derived.value();
    // Each span's start event: its task, position and name.
    struct Start {
        std::uint32_t task = 0, event = 0;
        std::int64_t ord = 0;
        bool found = false;
    };
    std::vector<Start> starts(m_shapes.size());
    for (const AssembledEvent& e : m.events)
        if (e.tagsOf >= 0 && static_cast<std::size_t>(e.tagsOf) < starts.size())
            starts[static_cast<std::size_t>(e.tagsOf)] = {e.task.name, e.event.name, e.seq, true};
    // As the import stored an event-log request's: a tag whose value differs from the request's (its first
    // value), the span's own tags over its process's.
    std::map<std::uint32_t, std::uint32_t> requestValues;
    {
        sqlite::Statement q(m_db, "SELECT key_id, value_id FROM request_attrs WHERE request_id=?1");
        q.bind(1, request);
        while (q.step() == SQLITE_ROW) requestValues[static_cast<std::uint32_t>(q.int64(0))] = static_cast<std::uint32_t>(q.int64(1));
    }
    struct Row {
        std::uint32_t task;
        std::int64_t ord;
        std::uint32_t event, key, value;
    };
    std::vector<Row> rows;
    {
        // Each span's process's tags first, then its own, which win; an empty value is no value.
        sqlite::Statement spans(m_db, "SELECT idx, process_id, tags FROM spans WHERE request_id=?1 ORDER BY idx");
        ProcessTagIds processTags(m_db);
        sqlite::Statement isEmpty(m_db, "SELECT text = '' FROM labels WHERE id=?1");
        std::map<std::uint32_t, bool> emptyValue;
        const auto empty = [&](std::uint32_t value) {
            auto [at, fresh] = emptyValue.try_emplace(value, false);
            if (fresh) {
                isEmpty.bind(1, std::int64_t(value));
                at->second = isEmpty.step() == SQLITE_ROW && isEmpty.int64(0) != 0;
                isEmpty.reset();
            }
            return at->second;
        };
        std::map<std::uint32_t, std::size_t> rowOfKey;  // the current span's
        spans.bind(1, request);
        int rc = SQLITE_ROW;
        while ((rc = spans.step()) == SQLITE_ROW) {
            const std::int64_t idx = spans.int64(0);
            if (idx < 0 || static_cast<std::uint64_t>(idx) >= starts.size()) continue;
            const Start& start = starts[static_cast<std::size_t>(idx)];
            if (!start.found) continue;
            rowOfKey.clear();
            const auto add = [&](std::uint32_t key, std::uint32_t value) {
                if (empty(value)) return;
                auto known = requestValues.find(key);
                if (known != requestValues.end() && known->second == value) return;
                // A later value of the key at the same event replaces the earlier.
                if (auto [at, fresh] = rowOfKey.emplace(key, rows.size()); !fresh) {
                    rows[at->second].value = value;
                    return;
                }
                rows.push_back({start.task, start.ord, start.event, key, value});
            };
            for (const auto& [key, value] : processTags.of(spans.int64(1))) add(key, value);
            if (!packed::forEachTag(spans.blob(2), add))
                return Status::error("cannot read span attributes: span " + std::to_string(idx) + "'s are damaged");
        }
        if (rc != SQLITE_DONE) return Status::error(std::string("cannot read span attributes: ") + sqlite3_errmsg(m_db));
    }
    sqlite::Statement text(m_db, "SELECT text FROM label_text WHERE id=?1");
    auto textOf = [&](std::uint32_t id) {
        text.bind(1, std::int64_t(id));
        std::string t = text.step() == SQLITE_ROW ? std::string(text.text(0)) : std::string();
        text.reset();
        return t;
    };
    std::vector<std::pair<std::tuple<std::uint32_t, std::int64_t, std::string>, EventAttribute>> sorted;
    for (const Row& r : rows) {
        std::string key = textOf(r.key);
        sorted.push_back({{r.task, r.ord, key}, {textOf(r.event), key, textOf(r.value)}});
    }
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<EventAttribute> out;
    out.reserve(sorted.size());
    for (auto& [order, attribute] : sorted) out.push_back(std::move(attribute));
    return out;
}

} // namespace tracelight
