// The analysis's reads and writes of the trace database: the only SQL the analysis needs, kept in store/.
#include <sqlite3.h>

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "store/BatchedInsert.h"
#include "store/DerivedEvents.h"
#include "store/Sqlite.h"
#include "tracelight/base/OccurrenceName.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

namespace {
// A row of "SELECT request_id, task_id, event_id, host_id, ts_ns[, ord]"; without ord, ord is 0.
EventRow eventRow(const sqlite::Statement& q, bool withOrder = true) {
    return {q.int64(0), static_cast<std::uint32_t>(q.int64(1)), static_cast<std::uint32_t>(q.int64(2)),
            static_cast<std::uint32_t>(q.int64(3)), withOrder ? q.int64(5) : 0, q.int64(4)};
}
LinkRow linkRow(const sqlite::Statement& q) {
    return {q.int64(0), static_cast<std::uint32_t>(q.int64(1)), q.int64(2), static_cast<std::uint32_t>(q.int64(3)), q.int64(4)};
}
// The columns of a clock_pairs row, and the row they read as.
constexpr const char* kClockPairColumns = "client_host_id, server_host_id, offset_ns, rtt_ns, round_trips, outside, rule, applied";
ClockPairRow clockPairRow(const sqlite::Statement& q) {
    return {static_cast<std::uint32_t>(q.int64(0)), static_cast<std::uint32_t>(q.int64(1)), q.int64(2), q.int64(3), q.int64(4),
            q.int64(5), std::string(q.text(6)), q.int64(7) != 0};
}
} // namespace

std::int64_t TraceStore::requestCount() const {
    sqlite::Statement q(m_db, "SELECT COUNT(*) FROM requests");
    return q.step() == SQLITE_ROW ? q.int64(0) : 0;
}

std::int64_t TraceStore::eventCount() const {
    sqlite::Statement q(m_db, "SELECT COALESCE(SUM(event_count), 0) FROM requests");
    return q.step() == SQLITE_ROW ? q.int64(0) : 0;
}

std::pair<std::int64_t, std::int64_t> TraceStore::requestAndEventCount(std::int64_t firstId, std::int64_t endId) const {
    sqlite::Statement q(m_db, "SELECT COUNT(*), COALESCE(SUM(event_count), 0) FROM requests WHERE id >= ?1 AND id < ?2");
    q.bind(1, firstId).bind(2, endId);
    return q.step() == SQLITE_ROW ? std::pair{q.int64(0), q.int64(1)} : std::pair<std::int64_t, std::int64_t>{0, 0};
}

std::vector<LabelOccurrence> TraceStore::labelOccurrences() const {
    std::vector<LabelOccurrence> out;
    // Reserved from the count: a million-span trace has 2.5 million, 48 MB once doubled for 30.
    out.reserve(sqlite::rowsToReserve(m_db, "SELECT COUNT(*) FROM label_occurrences", {}));
    sqlite::Statement q(m_db, "SELECT id, name_id, occurrence FROM label_occurrences ORDER BY id");
    while (q.step() == SQLITE_ROW)
        out.push_back({static_cast<std::uint32_t>(q.int64(0)), static_cast<std::uint32_t>(q.int64(1)), static_cast<std::uint32_t>(q.int64(2))});
    return out;
}

void TraceStore::forEachLabel(const std::vector<bool>* wanted, const std::function<void(std::uint32_t, std::string_view)>& f) const {
    auto isWanted = [&](std::int64_t id) {
        return !wanted || (id >= 0 && static_cast<std::uint64_t>(id) < wanted->size() && (*wanted)[static_cast<std::size_t>(id)]);
    };
    // Names first (a few thousand at most), kept for the occurrences that are spelt from them ("name#k").
    std::unordered_map<std::uint32_t, std::string> names;
    sqlite::Statement q(m_db, "SELECT id, text FROM labels");
    while (q.step() == SQLITE_ROW) {
        const auto id = static_cast<std::uint32_t>(q.int64(0));
        if (isWanted(id)) f(id, q.text(1));
        names.emplace(id, std::string(q.text(1)));
    }
    sqlite::Statement occurrences(m_db, "SELECT id, name_id, occurrence FROM label_occurrences ORDER BY id");
    std::string text;
    while (occurrences.step() == SQLITE_ROW) {
        const std::int64_t id = occurrences.int64(0);
        if (!isWanted(id)) continue;
        auto name = names.find(static_cast<std::uint32_t>(occurrences.int64(1)));
        if (name == names.end()) continue;
        assignOccurrenceName(text, name->second, static_cast<std::uint32_t>(occurrences.int64(2)));
        f(static_cast<std::uint32_t>(id), text);
    }
}

std::vector<std::pair<std::uint32_t, std::string>> TraceStore::labelNames() const {
    std::vector<std::pair<std::uint32_t, std::string>> out;
    sqlite::Statement q(m_db, "SELECT id, text FROM labels ORDER BY id");
    while (q.step() == SQLITE_ROW) out.emplace_back(static_cast<std::uint32_t>(q.int64(0)), std::string(q.text(1)));
    return out;
}

LabelTexts TraceStore::labelTexts(const std::vector<bool>& wanted) const {
    LabelTexts out(wanted.size());
    forEachLabel(&wanted, [&](std::uint32_t id, std::string_view text) { out.set(id, text); });
    return out;
}


Status TraceStore::scanEvents(const std::function<bool(const EventRow&)>& f) const {
    return scanEvents(f, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
}

Status TraceStore::scanEvents(const std::function<bool(const EventRow&)>& f, std::int64_t firstId, std::int64_t endId,
                              bool withOrder) const {
    // Each column read costs about a sixth of the scan: the position is left out when nobody needs it.
    sqlite::Statement q(m_db, withOrder ? "SELECT request_id, task_id, event_id, host_id, ts_ns, ord FROM events WHERE "
                                          "request_id >= ?1 AND request_id < ?2 ORDER BY request_id, task_id, ord"
                                        : "SELECT request_id, task_id, event_id, host_id, ts_ns FROM events WHERE "
                                          "request_id >= ?1 AND request_id < ?2 ORDER BY request_id, task_id, ord");
    q.bind(1, firstId).bind(2, endId);
    // Span requests stored as their spans have their events derived, each in its place in request order.
    DerivedEvents derived(m_db);
    auto derivedIds = derived.requests(firstId, endId);
    if (!derivedIds) return Status::error(m_path + ": " + derivedIds.message());
    std::size_t next = 0;
    auto deriveBefore = [&](std::int64_t request) -> Status {
        for (; next < derivedIds.value().size() && derivedIds.value()[next] < request; ++next)
            if (Status s = derived.events(derivedIds.value()[next], f, withOrder); !s)
                return s.message() == "cancelled" ? s : Status::error(m_path + ": " + s.message());
        return Status::ok();
    };
    const NamingFilterState* filter = namingFilterState();
    int rc = SQLITE_ROW;
    while ((rc = q.step()) == SQLITE_ROW) {
        const EventRow row = eventRow(q, withOrder);
        if (next < derivedIds.value().size())
            if (Status s = deriveBefore(row.request); !s) return s;
        if (hidden(filter, row)) continue;
        if (!f(row)) return Status::error("cancelled");
    }
    if (rc != SQLITE_DONE) return Status::error(m_path + ": cannot read events: " + sqlite3_errmsg(m_db));
    return deriveBefore(std::numeric_limits<std::int64_t>::max());
}

bool TraceStore::holdsEventsPastEveryScan() const {
    sqlite::Statement q(m_db, "SELECT EXISTS(SELECT 1 FROM events WHERE request_id >= 9223372036854775807)");
    return q.step() != SQLITE_ROW || q.int64(0) != 0;
}

std::vector<std::int64_t> TraceStore::requestIdCuts(int parts) const {
    return requestIdCuts(parts, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
}

std::vector<std::int64_t> TraceStore::requestIdCuts(int parts, std::int64_t firstId, std::int64_t endId, std::int64_t requests) const {
    parts = std::max(1, parts);
    const std::int64_t count = requests >= 0 ? requests : requestAndEventCount(firstId, endId).first;
    std::vector<std::int64_t> cuts{firstId};
    sqlite::Statement q(m_db, "SELECT id FROM requests WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT 1 OFFSET ?3");
    for (int p = 1; p < parts; ++p) {
        q.bind(1, firstId).bind(2, endId).bind(3, count * p / parts);
        cuts.push_back(q.step() == SQLITE_ROW ? q.int64(0) : endId);
        q.reset();
    }
    cuts.push_back(endId);
    return cuts;
}

std::size_t TraceStore::requestEventCountHint(RequestId request) const {
    // Capped at 4 M rows so that a damaged count costs little; past it a list grows as it reads.
    return sqlite::rowsToReserve(m_db, "SELECT event_count FROM requests WHERE id=?1", {request.value}, std::int64_t(1) << 22);
}

Status TraceStore::scanRequestEvents(RequestId request, const std::function<void(const EventRow&)>& f) const {
    if (DerivedEvents derived(m_db); derived.isDerived(request.value)) {
        const Status s = derived.events(request.value, [&](const EventRow& row) { return f(row), true; });
        return s ? s : Status::error(m_path + ": " + s.message());
    }
    sqlite::Statement q(m_db, "SELECT request_id, task_id, event_id, host_id, ts_ns, ord FROM events WHERE request_id=?1 ORDER BY task_id, ord");
    q.bind(1, request.value);
    const NamingFilterState* filter = namingFilterState();
    int rc = SQLITE_ROW;
    while ((rc = q.step()) == SQLITE_ROW)
        if (const EventRow row = eventRow(q); !hidden(filter, row)) f(row);
    if (rc != SQLITE_DONE) return Status::error(m_path + ": cannot read events: " + sqlite3_errmsg(m_db));
    return Status::ok();
}

Result<std::vector<LinkRow>> TraceStore::causalLinks(std::int64_t firstId, std::int64_t endId) const {
    std::vector<LinkRow> out;
    // Reserved from the count (its index covers it), capped as requestEvents is: a million-span trace has a
    // million links, and the doubling held 126 MB for 44.
    out.reserve(sqlite::rowsToReserve(m_db, "SELECT COUNT(*) FROM causal_links WHERE request_id >= ?1 AND request_id < ?2",
                                      {firstId, endId}, std::int64_t(1) << 22));
    sqlite::Statement q(m_db, "SELECT request_id, from_task_id, from_ord, to_task_id, to_ord FROM causal_links "
                              "WHERE request_id >= ?1 AND request_id < ?2 ORDER BY request_id, rowid");
    q.bind(1, firstId).bind(2, endId);
    int rc = SQLITE_ROW;
    while ((rc = q.step()) == SQLITE_ROW) out.push_back(linkRow(q));
    if (rc != SQLITE_DONE) return Status::error(m_path + ": cannot read causal links: " + sqlite3_errmsg(m_db));
    // Those of span requests stored as their spans are derived, and put in their requests' places.
    DerivedEvents derived(m_db);
    auto derivedIds = derived.requests(firstId, endId);
    if (!derivedIds) return Status::error(m_path + ": " + derivedIds.message());
    if (derivedIds.value().empty()) return out;
    const std::size_t stored = out.size();
    for (auto id : derivedIds.value())
        if (Status s = derived.links(id, out); !s) return Status::error(m_path + ": " + s.message());
    if (stored > 0) std::stable_sort(out.begin(), out.end(), [](const LinkRow& a, const LinkRow& b) { return a.request < b.request; });
    return out;
}

Result<std::vector<LinkRow>> TraceStore::causalLinks(RequestId request) const {
    return causalLinks(request.value, std::int64_t(request.value) + 1);
}




std::unordered_map<std::uint32_t, TimeNs> TraceStore::clockOffsets() const {
    std::unordered_map<std::uint32_t, TimeNs> out;
    sqlite::Statement q(m_db, "SELECT host_id, offset_ns FROM clock_offsets");
    while (q.step() == SQLITE_ROW) out[static_cast<std::uint32_t>(q.int64(0))] = q.int64(1);
    return out;
}

namespace {

// The statement "HEAD VALUES(...), ..." for n rows of the given number of columns.
auto insertInto(const char* head, int columns) {
    return [=](std::size_t n) { return std::string(head) + " VALUES" + parameterRows(n, columns); };
}

// Stores count rows 128 to a statement, the rest one by one, as the import does (BatchedInsert.h; here the
// rows are bound straight from the caller's, which may be text, blobs or null): SQLite pays a statement's
// start, reset and step once per batch. sql(rows) is the statement for that many rows; bind(statement,
// first parameter, row) binds one row's columns from that parameter on.
template <class Sql, class Bind>
bool storeRows(sqlite3* db, std::size_t count, int columns, Sql&& sql, Bind&& bind) {
    constexpr std::size_t kBatch = BatchedInsert::kRowsPerStatement;
    sqlite::Statement one(db, sql(1)), many(db, sql(kBatch));
    if (!one.isValid() || !many.isValid()) return false;
    for (std::size_t from = 0; from < count;) {
        const std::size_t n = count - from >= kBatch ? kBatch : 1;
        sqlite::Statement& st = n == kBatch ? many : one;
        for (std::size_t k = 0; k < n; ++k) bind(st, static_cast<int>(k) * columns + 1, from + k);
        if (st.step() != SQLITE_DONE) return false;
        st.reset();
        from += n;
    }
    return true;
}

} // namespace

Status TraceStore::replaceClockResults(const std::vector<ClockOffsetRow>& offsets, const std::vector<ClockPairRow>& pairs) {
    if (!sqlite::exec(m_db, "DELETE FROM request_analysis;"))
        return Status::error(m_path + ": cannot store results: " + sqlite3_errmsg(m_db));
    return replaceClockRows(offsets, pairs);
}

Status TraceStore::dropRequestResults(const std::vector<RequestId>& requests) {
    sqlite::Statement del(m_db, "DELETE FROM request_analysis WHERE request_id=?1");
    for (RequestId id : requests) {
        del.bind(1, id.value);
        if (del.step() != SQLITE_DONE) return Status::error(m_path + ": cannot drop a request's result: " + sqlite3_errmsg(m_db));
        del.reset();
    }
    return Status::ok();
}

std::int64_t TraceStore::requestsImportedAfter(std::int64_t importId, RequestId upTo) const {
    sqlite::Statement q(m_db, "SELECT COUNT(*) FROM requests WHERE id<=?1 AND import_id>?2");
    q.bind(1, upTo.value).bind(2, importId);
    return q.step() == SQLITE_ROW ? q.int64(0) : -1;
}

Status TraceStore::replaceClockRows(const std::vector<ClockOffsetRow>& offsets, const std::vector<ClockPairRow>& pairs) {
    auto fail = [&](const char* what) { return Status::error(m_path + ": cannot store " + what + ": " + sqlite3_errmsg(m_db)); };
    // The SQL tables of results (when kept) go with the results they were made from; the analysis refills them.
    if (!sqlite::exec(m_db, "DELETE FROM clock_offsets; DELETE FROM clock_pairs; DELETE FROM critical_path_segments; DELETE FROM slack;"))
        return fail("results");
    if (!storeRows(m_db, pairs.size(), 8,
                   insertInto("INSERT INTO clock_pairs(client_host_id, server_host_id, offset_ns, rtt_ns, round_trips, outside, rule, applied)", 8),
                   [&](sqlite::Statement& st, int at, std::size_t i) {
                       const ClockPairRow& p = pairs[i];
                       st.bind(at, p.client).bind(at + 1, p.server).bind(at + 2, p.offsetNs).bind(at + 3, p.rttNs).bind(at + 4, p.roundTrips)
                           .bind(at + 5, p.outside).bind(at + 6, std::string_view(p.rule)).bind(at + 7, p.applied ? 1 : 0);
                   }))
        return fail("clock pairs");
    if (!storeRows(m_db, offsets.size(), 4, insertInto("INSERT INTO clock_offsets(host_id, offset_ns, parent_host_id, rtt_ns)", 4),
                   [&](sqlite::Statement& st, int at, std::size_t i) {
                       const ClockOffsetRow& o = offsets[i];
                       st.bind(at, o.host).bind(at + 1, o.offsetNs);
                       if (o.parentHost) st.bind(at + 2, *o.parentHost).bind(at + 3, o.rttNs);
                       else st.bindNull(at + 2).bindNull(at + 3);
                   }))
        return fail("clock offsets");
    return Status::ok();
}

Status TraceStore::storeRequestResults(std::size_t count, const std::function<RequestResultRow(std::size_t)>& rows) {
    auto fail = [&](const char* what) { return Status::error(m_path + ": cannot store " + what + ": " + sqlite3_errmsg(m_db)); };
    // The results' bytes stay where they are until their batch is stored.
    if (!storeRows(m_db, count, 4, insertInto("INSERT INTO request_analysis(request_id, latency_ns, blind_ns, data)", 4),
                   [&](sqlite::Statement& st, int at, std::size_t i) {
                       const RequestResultRow r = rows(i);
                       st.bind(at, r.id.value).bind(at + 1, r.latencyNs).bind(at + 2, r.blindNs);
                       sqlite3_bind_blob(st.get(), at + 3, r.data.data(), static_cast<int>(r.data.size()), SQLITE_STATIC);
                   }))
        return fail("request results");
    if (!storeRows(m_db, count, 3,
                   [](std::size_t n) {
                       return "UPDATE requests SET start_ns=v.column2, latency_ns=v.column3 FROM (VALUES" + parameterRows(n, 3) +
                              ") AS v WHERE requests.id=v.column1";
                   },
                   [&](sqlite::Statement& st, int at, std::size_t i) {
                       const RequestResultRow r = rows(i);
                       st.bind(at, r.id.value).bind(at + 1, r.startNs).bind(at + 2, r.latencyNs);
                   }))
        return fail("request latency");
    return Status::ok();
}

Status TraceStore::scanRequestResults(
    const std::function<bool(RequestId, TimeNs, TimeNs, TimeNs, std::string_view)>& f) const {
    sqlite::Statement q(m_db, "SELECT a.request_id, r.start_ns, a.latency_ns, a.blind_ns, a.data FROM request_analysis a "
                              "JOIN requests r ON r.id = a.request_id ORDER BY a.request_id");
    int rc = SQLITE_ROW;
    while ((rc = q.step()) == SQLITE_ROW) {
        const auto* bytes = static_cast<const char*>(sqlite3_column_blob(q.get(), 4));
        const std::string_view blob(bytes ? bytes : "", static_cast<std::size_t>(sqlite3_column_bytes(q.get(), 4)));
        if (!f(RequestId(static_cast<std::uint32_t>(q.int64(0))), q.int64(1), q.int64(2), q.int64(3), blob)) return Status::error("cancelled");
    }
    if (rc != SQLITE_DONE) return Status::error(m_path + ": cannot read the cached results: " + sqlite3_errmsg(m_db));
    return Status::ok();
}

std::vector<ClockPairRow> TraceStore::clockPairs() const {
    std::vector<ClockPairRow> out;
    sqlite::Statement q(m_db, std::string("SELECT ") + kClockPairColumns + " FROM clock_pairs ORDER BY client_host_id, server_host_id");
    while (q.step() == SQLITE_ROW) out.push_back(clockPairRow(q));
    return out;
}

ClockPairDigest TraceStore::clockPairDigest(std::size_t shown) const {
    ClockPairDigest out;
    sqlite::Statement top(m_db, std::string("SELECT ") + kClockPairColumns +
                                    " FROM clock_pairs WHERE rule != 'fits' ORDER BY round_trips DESC, client_host_id, server_host_id LIMIT ?1");
    top.bind(1, static_cast<std::int64_t>(std::min<std::size_t>(shown, std::numeric_limits<std::int64_t>::max())));
    while (top.step() == SQLITE_ROW) out.mostEvidence.push_back(clockPairRow(top));
    sqlite::Statement totals(m_db, "SELECT COALESCE(SUM(rule != 'fits'), 0), COALESCE(SUM(rule = 'fits'), 0), "
                                   "COALESCE(SUM(CASE WHEN rule = 'fits' THEN round_trips END), 0) FROM clock_pairs");
    if (totals.step() == SQLITE_ROW) {
        out.adjusted = totals.int64(0);
        out.kept = totals.int64(1);
        out.keptRoundTrips = totals.int64(2);
    }
    return out;
}


std::optional<StoredRequestResult> TraceStore::requestResult(std::string_view name) const {
    sqlite::Statement q(m_db,
                        "SELECT r.id, a.latency_ns, a.blind_ns, a.data, r.start_ns FROM requests r "
                        "LEFT JOIN request_analysis a ON a.request_id = r.id WHERE r.name = ?1");
    q.bind(1, name);
    if (q.step() != SQLITE_ROW) return std::nullopt;
    StoredRequestResult out;
    out.id = RequestId(static_cast<std::uint32_t>(q.int64(0)));
    out.analysed = !q.isNull(3);
    if (!out.analysed) return out;
    out.latencyNs = q.int64(1);
    out.blindNs = q.int64(2);
    out.startNs = q.int64(4);
    const auto* blob = static_cast<const char*>(sqlite3_column_blob(q.get(), 3));
    out.data.assign(blob ? blob : "", static_cast<std::size_t>(sqlite3_column_bytes(q.get(), 3)));
    return out;
}



} // namespace tracelight
