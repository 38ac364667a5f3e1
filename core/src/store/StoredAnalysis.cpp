// What analyze stores besides the cached results by name: the clocks it corrected (offsets and the host
// pairs' decisions) and each request's critical path and slack.
#include "tracelight/store/StoredAnalysis.h"

#include <sqlite3.h>

#include <string>

#include "store/BatchedInsert.h"
#include "store/Sqlite.h"
#include "store/StoreConnection.h"

namespace tracelight {

namespace {
// The columns of a clock_pairs row, and the row they read as.
constexpr const char* kClockPairColumns = "client_host_id, server_host_id, offset_ns, rtt_ns, round_trips, outside, rule, applied";
ClockPairRow clockPairRow(const sqlite::Statement& q) {
    return {static_cast<std::uint32_t>(q.int64(0)), static_cast<std::uint32_t>(q.int64(1)), q.int64(2), q.int64(3), q.int64(4),
            q.int64(5), std::string(q.text(6)), q.int64(7) != 0};
}
} // namespace

std::unordered_map<std::uint32_t, TimeNs> clockOffsets(const TraceStore& store) {
    sqlite3* db = StoreConnection::of(store);
    std::unordered_map<std::uint32_t, TimeNs> out;
    sqlite::Statement q(db, "SELECT host_id, offset_ns FROM clock_offsets");
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

Status replaceClockResults(TraceStore& store, const std::vector<ClockOffsetRow>& offsets, const std::vector<ClockPairRow>& pairs) {
    sqlite3* db = StoreConnection::of(store);
    if (!sqlite::exec(db, "DELETE FROM request_analysis;"))
        return Status::error(store.path() + ": cannot store results: " + sqlite3_errmsg(db));
    return replaceClockRows(store, offsets, pairs);
}

Status dropRequestResults(TraceStore& store, const std::vector<RequestId>& requests) {
    sqlite3* db = StoreConnection::of(store);
    sqlite::Statement del(db, "DELETE FROM request_analysis WHERE request_id=?1");
    for (RequestId id : requests) {
        del.bind(1, id.value);
        if (del.step() != SQLITE_DONE) return Status::error(store.path() + ": cannot drop a request's result: " + sqlite3_errmsg(db));
        del.reset();
    }
    return Status::ok();
}

std::int64_t requestsImportedAfter(const TraceStore& store, std::int64_t importId, RequestId upTo) {
    sqlite3* db = StoreConnection::of(store);
    sqlite::Statement q(db, "SELECT COUNT(*) FROM requests WHERE id<=?1 AND import_id>?2");
    q.bind(1, upTo.value).bind(2, importId);
    return q.step() == SQLITE_ROW ? q.int64(0) : -1;
}

Status replaceClockRows(TraceStore& store, const std::vector<ClockOffsetRow>& offsets, const std::vector<ClockPairRow>& pairs) {
    sqlite3* db = StoreConnection::of(store);
    auto fail = [&](const char* what) { return Status::error(store.path() + ": cannot store " + what + ": " + sqlite3_errmsg(db)); };
    // The SQL tables of results (when kept) go with the results they were made from; the analysis refills them.
    if (!sqlite::exec(db, "DELETE FROM clock_offsets; DELETE FROM clock_pairs; DELETE FROM critical_path_segments; DELETE FROM slack;"))
        return fail("results");
    if (!storeRows(db, pairs.size(), 8,
                   insertInto("INSERT INTO clock_pairs(client_host_id, server_host_id, offset_ns, rtt_ns, round_trips, outside, rule, applied)", 8),
                   [&](sqlite::Statement& st, int at, std::size_t i) {
                       const ClockPairRow& p = pairs[i];
                       st.bind(at, p.client).bind(at + 1, p.server).bind(at + 2, p.offsetNs).bind(at + 3, p.rttNs).bind(at + 4, p.roundTrips)
                           .bind(at + 5, p.outside).bind(at + 6, std::string_view(p.rule)).bind(at + 7, p.applied ? 1 : 0);
                   }))
        return fail("clock pairs");
    if (!storeRows(db, offsets.size(), 4, insertInto("INSERT INTO clock_offsets(host_id, offset_ns, parent_host_id, rtt_ns)", 4),
                   [&](sqlite::Statement& st, int at, std::size_t i) {
                       const ClockOffsetRow& o = offsets[i];
                       st.bind(at, o.host).bind(at + 1, o.offsetNs);
                       if (o.parentHost) st.bind(at + 2, *o.parentHost).bind(at + 3, o.rttNs);
                       else st.bindNull(at + 2).bindNull(at + 3);
                   }))
        return fail("clock offsets");
    return Status::ok();
}

Status storeRequestResults(TraceStore& store, std::size_t count, const std::function<RequestResultRow(std::size_t)>& rows) {
    sqlite3* db = StoreConnection::of(store);
    auto fail = [&](const char* what) { return Status::error(store.path() + ": cannot store " + what + ": " + sqlite3_errmsg(db)); };
    // The results' bytes stay where they are until their batch is stored.
    if (!storeRows(db, count, 4, insertInto("INSERT INTO request_analysis(request_id, latency_ns, blind_ns, data)", 4),
                   [&](sqlite::Statement& st, int at, std::size_t i) {
                       const RequestResultRow r = rows(i);
                       st.bind(at, r.id.value).bind(at + 1, r.latencyNs).bind(at + 2, r.blindNs);
                       sqlite3_bind_blob(st.get(), at + 3, r.data.data(), static_cast<int>(r.data.size()), SQLITE_STATIC);
                   }))
        return fail("request results");
    if (!storeRows(db, count, 3,
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

Status scanRequestResults(const TraceStore& store,
    const std::function<bool(RequestId, TimeNs, TimeNs, TimeNs, std::string_view)>& f) {
    sqlite3* db = StoreConnection::of(store);
    sqlite::Statement q(db, "SELECT a.request_id, r.start_ns, a.latency_ns, a.blind_ns, a.data FROM request_analysis a "
                              "JOIN requests r ON r.id = a.request_id ORDER BY a.request_id");
    int rc = SQLITE_ROW;
    while ((rc = q.step()) == SQLITE_ROW) {
        const auto* bytes = static_cast<const char*>(sqlite3_column_blob(q.get(), 4));
        const std::string_view blob(bytes ? bytes : "", static_cast<std::size_t>(sqlite3_column_bytes(q.get(), 4)));
        if (!f(RequestId(static_cast<std::uint32_t>(q.int64(0))), q.int64(1), q.int64(2), q.int64(3), blob)) return Status::error("cancelled");
    }
    if (rc != SQLITE_DONE) return Status::error(store.path() + ": cannot read the cached results: " + sqlite3_errmsg(db));
    return Status::ok();
}

std::vector<ClockPairRow> clockPairs(const TraceStore& store) {
    sqlite3* db = StoreConnection::of(store);
    std::vector<ClockPairRow> out;
    sqlite::Statement q(db, std::string("SELECT ") + kClockPairColumns + " FROM clock_pairs ORDER BY client_host_id, server_host_id");
    while (q.step() == SQLITE_ROW) out.push_back(clockPairRow(q));
    return out;
}

ClockPairDigest clockPairDigest(const TraceStore& store, std::size_t shown) {
    sqlite3* db = StoreConnection::of(store);
    ClockPairDigest out;
    sqlite::Statement top(db, std::string("SELECT ") + kClockPairColumns +
                                    " FROM clock_pairs WHERE rule != 'fits' ORDER BY round_trips DESC, client_host_id, server_host_id LIMIT ?1");
    top.bind(1, static_cast<std::int64_t>(std::min<std::size_t>(shown, std::numeric_limits<std::int64_t>::max())));
    while (top.step() == SQLITE_ROW) out.mostEvidence.push_back(clockPairRow(top));
    sqlite::Statement totals(db, "SELECT COALESCE(SUM(rule != 'fits'), 0), COALESCE(SUM(rule = 'fits'), 0), "
                                   "COALESCE(SUM(CASE WHEN rule = 'fits' THEN round_trips END), 0) FROM clock_pairs");
    if (totals.step() == SQLITE_ROW) {
        out.adjusted = totals.int64(0);
        out.kept = totals.int64(1);
        out.keptRoundTrips = totals.int64(2);
    }
    return out;
}


std::optional<StoredRequestResult> requestResult(const TraceStore& store, std::string_view name) {
    sqlite3* db = StoreConnection::of(store);
    sqlite::Statement q(db,
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
