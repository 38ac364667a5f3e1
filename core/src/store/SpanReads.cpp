// The span tree of span requests (schema 6 on): its records, shapes, ids and the references the analysis reads.
#include "tracelight/store/SpanReads.h"

#include <sqlite3.h>

#include <limits>
#include <unordered_map>

#include "store/PackedSpanParts.h"
#include "store/ProcessTags.h"
#include "store/Sqlite.h"
#include "store/StoreConnection.h"
#include "tracelight/base/Progress.h"

namespace tracelight {

namespace {
// Label texts by id, each looked up once (through label_text, which spells an occurrence label too). A
// text's reference stays valid while the cache lives.
class LabelTextCache {
public:
    explicit LabelTextCache(sqlite3* db) : m_lookup(db, "SELECT text FROM label_text WHERE id=?1") {}
    bool isValid() { return m_lookup.isValid(); }
    const std::string& operator()(std::int64_t id) {
        auto [it, fresh] = m_texts.try_emplace(id);
        if (fresh) {
            m_lookup.bind(1, id);
            if (m_lookup.step() == SQLITE_ROW) it->second = std::string(m_lookup.text(0));
            m_lookup.reset();
        }
        return it->second;
    }

    // The texts read so far; their nodes do not move with the map, so views into them stay valid.
    SpanTexts takeTexts() { return std::move(m_texts); }

private:
    sqlite::Statement m_lookup;
    SpanTexts m_texts;
};
// Requests [first, last] in request order: one pass over their spans' rows (no query per span or per request).
// The callback may take the request's spans (requestSpans moves them out; a million spans were copied).
// expectedSpans: room made at once (one request's count), so a million spans are not held one and a half
// times over while the list doubles.
// Spans [firstIdx, lastIdx] of each (one span: requestSpan).
Status readSpans(sqlite3* db, const std::string& path, std::int64_t first, std::int64_t last,
                 const std::function<bool(RequestId, RequestSpans&)>& f, std::size_t expectedSpans = 0, std::int64_t firstIdx = 0,
                 std::int64_t lastIdx = std::numeric_limits<std::int64_t>::max()) {
    // Services, operations, hosts, kinds, tag keys and values and event names repeat across a trace's
    // spans: their texts are looked up once per label id here (through label_text, which spells an
    // occurrence label too), not joined for every row (a million spans made ten million label lookups).
    // A task is the span's own occurrence of its name and is joined.
    sqlite::Statement spans(db,
        "SELECT s.request_id, s.idx, s.span_id, s.parent, s.service_id, s.operation_id, s.host_id, s.kind_id, s.start_ns, s.end_ns, "
        "t.text, s.start_ord, s.end_ord, COALESCE(o.occurrence, 1), s.detached, s.caller, s.process_id, s.tags, s.events, s.links "
        "FROM spans s "
        "LEFT JOIN label_occurrences o ON o.id=s.task_id JOIN labels t ON t.id=COALESCE(o.name_id, s.task_id) "
        "WHERE s.request_id BETWEEN ?1 AND ?2 AND s.idx BETWEEN ?3 AND ?4 ORDER BY s.request_id, s.idx");
    LabelTextCache text(db);
    // A process's tags, shared by its spans, read once and spelt once.
    ProcessTagIds processTags(db);
    std::unordered_map<std::int64_t, std::vector<std::pair<std::string, std::string>>> processes;
    if (!text.isValid() || !processTags.isValid()) return Status::error(path + ": cannot read spans: " + sqlite3_errmsg(db));
    if (!spans.isValid()) return Status::error(path + ": cannot read spans: " + sqlite3_errmsg(db));
    spans.bind(1, first).bind(2, last).bind(3, firstIdx).bind(4, lastIdx);
    RequestSpans current;
    current.reserve(expectedSpans);
    std::int64_t currentRequest = -1;
    int rc;
    while ((rc = spans.step()) == SQLITE_ROW) {
        const std::int64_t r = spans.int64(0), i = spans.int64(1);
        if (r != currentRequest) {
            if (currentRequest >= 0 && !f(RequestId{static_cast<std::uint32_t>(currentRequest)}, current))
                return Status::error("cancelled");
            current.clear();
            currentRequest = r;
        }
        SpanRecord rec;
        rec.spanId = std::string(spans.text(2));
        rec.parent = static_cast<std::int32_t>(spans.int64(3));
        rec.service = text(spans.int64(4));
        rec.operation = text(spans.int64(5));
        rec.host = text(spans.int64(6));
        rec.kind = text(spans.int64(7));
        rec.startNs = spans.int64(8);
        rec.endNs = spans.int64(9);
        rec.task = std::string(spans.text(10));
        rec.taskOccurrence = static_cast<std::uint32_t>(spans.int64(13));
        rec.startOrd = spans.int64(11);
        rec.endOrd = spans.int64(12);
        rec.detached = spans.int64(14) != 0;
        rec.caller = static_cast<std::int32_t>(spans.int64(15));
        if (const std::int64_t process = spans.int64(16); process != 0) {
            auto [tags, fresh] = processes.try_emplace(process);
            if (fresh)
                for (const auto& [key, value] : processTags.of(process)) tags->second.emplace_back(text(key), text(value));
            rec.processAttributes = tags->second;
        }
        const bool whole = packed::forEachTag(spans.blob(17), [&](std::uint32_t key, std::uint32_t value) {
                               rec.attributes.emplace_back(text(key), text(value));
                           }) &&
                           packed::forEachEvent(spans.blob(18), [&](std::uint32_t name, std::uint32_t, std::int64_t tsNs) {
                               rec.events.push_back({text(name), tsNs});
                           }) &&
                           packed::forEachLink(spans.blob(19), [&](std::string_view id) { rec.links.emplace_back(id); });
        if (!whole)
            return Status::error(path + ": cannot read spans: request " + std::to_string(r) + " span " + std::to_string(i) +
                                 ": its tags, events or links are damaged");
        current.push_back(std::move(rec));
    }
    if (rc != SQLITE_DONE) return Status::error(path + ": cannot read spans: " + sqlite3_errmsg(db));
    if (currentRequest >= 0 && !f(RequestId{static_cast<std::uint32_t>(currentRequest)}, current))
        return Status::error("cancelled");
    return Status::ok();
}
} // namespace

// One request's span count: its list is reserved at once (a million spans are not copied as it doubles).
constexpr const char* kSpansOfRequest = "SELECT COUNT(*) FROM spans WHERE request_id=?1";

RequestSpans requestSpans(const TraceStore& store, RequestId request) {
    sqlite3* db = StoreConnection::of(store);
    RequestSpans out;
    if (store.schemaVersion() < 6) return out;
    const std::size_t expected = sqlite::rowsToReserve(db, kSpansOfRequest, {request.value});
    readSpans(db, store.path(), request.value, request.value, [&](RequestId, RequestSpans& spans) {
        out = std::move(spans);
        return true;
    }, expected);
    return out;
}

Status scanSpans(const TraceStore& store, const std::function<bool(RequestId, const RequestSpans&)>& f) {
    sqlite3* db = StoreConnection::of(store);
    if (store.schemaVersion() < 6) return Status::ok();
    return readSpans(db, store.path(), 0, std::numeric_limits<std::int64_t>::max(), [&](RequestId r, RequestSpans& spans) { return f(r, spans); });
}

std::optional<SpanRecord> requestSpan(const TraceStore& store, RequestId request, std::uint32_t index) {
    sqlite3* db = StoreConnection::of(store);
    std::optional<SpanRecord> out;
    if (store.schemaVersion() < 6) return out;
    readSpans(db, store.path(), request.value, request.value, [&](RequestId, RequestSpans& spans) {
        if (!spans.empty()) out = std::move(spans.front());
        return true;
    }, 1, index, index);
    return out;
}

namespace {
// Requests [first, last]'s span shapes, their texts in `text`.
Status readSpanShapes(sqlite3* db, const std::string& path, std::int64_t first, std::int64_t last, LabelTextCache& text,
                      const std::function<bool(RequestId, std::vector<SpanShape>&)>& f, std::size_t expectedSpans = 0,
                      const CancelToken* cancel = nullptr) {
    // The task as its name's id and occurrence, so its text is looked up once per name.
    sqlite::Statement spans(db, "SELECT s.request_id, s.parent, s.service_id, s.operation_id, s.host_id, s.kind_id, s.start_ns, s.end_ns, "
                                "COALESCE(o.name_id, s.task_id), COALESCE(o.occurrence, 1), s.start_ord, s.end_ord "
                                "FROM spans s LEFT JOIN label_occurrences o ON o.id=s.task_id "
                                "WHERE s.request_id BETWEEN ?1 AND ?2 ORDER BY s.request_id, s.idx");
    if (!spans.isValid() || !text.isValid()) return Status::error(path + ": cannot read spans: " + sqlite3_errmsg(db));
    spans.bind(1, first).bind(2, last);
    std::vector<SpanShape> current;
    current.reserve(expectedSpans);
    std::int64_t currentRequest = -1;
    std::size_t rows = 0;
    if (cancel && cancel->isCancelled()) return Status::error("cancelled");
    int rc;
    while ((rc = spans.step()) == SQLITE_ROW) {
        // Inside a request too: one request can be a million spans.
        if ((++rows & 0xFFFF) == 0 && cancel && cancel->isCancelled()) return Status::error("cancelled");
        if (const std::int64_t r = spans.int64(0); r != currentRequest) {
            if (currentRequest >= 0 && !f(RequestId{static_cast<std::uint32_t>(currentRequest)}, current)) return Status::error("cancelled");
            current.clear();
            currentRequest = r;
        }
        current.push_back({.service = text(spans.int64(2)),
                           .operation = text(spans.int64(3)),
                           .host = text(spans.int64(4)),
                           .kind = text(spans.int64(5)),
                           .task = text(spans.int64(8)),
                           .startNs = spans.int64(6),
                           .endNs = spans.int64(7),
                           .startOrd = spans.int64(10),
                           .endOrd = spans.int64(11),
                           .parent = static_cast<std::int32_t>(spans.int64(1)),
                           .taskOccurrence = static_cast<std::uint32_t>(spans.int64(9))});
    }
    if (rc != SQLITE_DONE) return Status::error(path + ": cannot read spans: " + sqlite3_errmsg(db));
    if (currentRequest >= 0 && !f(RequestId{static_cast<std::uint32_t>(currentRequest)}, current)) return Status::error("cancelled");
    return Status::ok();
}
} // namespace

Status scanSpanShapes(const TraceStore& store, const std::function<bool(RequestId, const std::vector<SpanShape>&)>& f,
                                  const std::function<void()>& beforeEnd) {
    sqlite3* db = StoreConnection::of(store);
    if (store.schemaVersion() < 6) return Status::ok();
    LabelTextCache text(db);
    Status read = readSpanShapes(db, store.path(), 0, std::numeric_limits<std::int64_t>::max(), text,
                                 [&](RequestId r, std::vector<SpanShape>& spans) { return f(r, spans); });
    if (read && beforeEnd) beforeEnd();
    return read;
}

RequestSpanShapes requestSpanShapes(const TraceStore& store, RequestId request, const CancelToken* cancel) {
    sqlite3* db = StoreConnection::of(store);
    RequestSpanShapes out;
    if (store.schemaVersion() < 6) return out;
    const std::size_t expected = sqlite::rowsToReserve(db, kSpansOfRequest, {request.value});
    LabelTextCache text(db);
    const Status read = readSpanShapes(db, store.path(), request.value, request.value, text, [&](RequestId, std::vector<SpanShape>& spans) {
        out.spans = std::move(spans);  // a million spans are not copied
        return true;
    }, expected, cancel);
    if (!read) return {};
    out.texts = text.takeTexts();
    return out;
}


Result<std::vector<SpanRefRow>> spanRefs(const TraceStore& store, std::int64_t firstId, std::int64_t endId) {
    sqlite3* db = StoreConnection::of(store);
    std::vector<SpanRefRow> out;
    // Reserved from the count (the key covers it), capped as causalLinks is.
    out.reserve(sqlite::rowsToReserve(db, "SELECT COUNT(*) FROM spans WHERE request_id >= ?1 AND request_id < ?2",
                                      {firstId, endId}, std::int64_t(1) << 22));
    // The analysis reads the span each span's caller waited in: its parent, or the caller the import found.
    sqlite::Statement q(db, "SELECT request_id, idx, CASE WHEN caller >= 0 THEN caller ELSE parent END, task_id, start_ord, "
                              "end_ord, detached FROM spans "
                              "WHERE request_id >= ?1 AND request_id < ?2 ORDER BY request_id, idx");
    q.bind(1, firstId).bind(2, endId);
    int rc = SQLITE_ROW;
    while ((rc = q.step()) == SQLITE_ROW)
        out.push_back({q.int64(0), q.int64(1), static_cast<std::int32_t>(q.int64(2)), static_cast<std::uint32_t>(q.int64(3)),
                       q.int64(4), q.int64(5), q.int64(6) != 0});
    if (rc != SQLITE_DONE) return Status::error(store.path() + ": cannot read spans: " + sqlite3_errmsg(db));
    return out;
}

Result<std::vector<SpanRefRow>> spanRefs(const TraceStore& store, RequestId request) {
    return spanRefs(store, request.value, std::int64_t(request.value) + 1);
}

Result<std::vector<std::string>> spanIds(const TraceStore& store, RequestId request) {
    sqlite3* db = StoreConnection::of(store);
    std::vector<std::string> out;
    sqlite::Statement q(db, "SELECT idx, span_id FROM spans WHERE request_id = ?1 ORDER BY idx");
    q.bind(1, std::int64_t(request.value));
    int rc = SQLITE_ROW;
    while ((rc = q.step()) == SQLITE_ROW) {
        const std::int64_t idx = q.int64(0);
        if (idx < 0 || idx > std::int64_t(2 * out.size() + 1024)) continue;  // a damaged index: not padded to it
        if (out.size() <= static_cast<std::size_t>(idx)) out.resize(static_cast<std::size_t>(idx) + 1);
        out[static_cast<std::size_t>(idx)] = q.text(1);
    }
    if (rc != SQLITE_DONE) return Status::error(store.path() + ": cannot read spans: " + sqlite3_errmsg(db));
    return out;
}

std::vector<std::uint32_t> spanRequestIds(const TraceStore& store) {
    sqlite3* db = StoreConnection::of(store);
    std::vector<std::uint32_t> out;
    sqlite::Statement q(db, "SELECT id FROM requests WHERE from_spans=1 ORDER BY id");
    while (q.step() == SQLITE_ROW) out.push_back(static_cast<std::uint32_t>(q.int64(0)));
    return out;
}

} // namespace tracelight
