#include "store/CaptureTable.h"

#include "store/StoreConnection.h"

namespace tracelight {

namespace {
Status failed(sqlite3* db, const char* what) { return Status::error(std::string("cannot ") + what + ": " + sqlite3_errmsg(db)); }
} // namespace

CaptureTable::CaptureTable(TraceStore& store) : m_db(StoreConnection::of(store)) {
    m_insertSpan.prepare(m_db, "INSERT INTO capture_spans(trace, data) VALUES(?1, ?2)");
    m_bumpTrace.prepare(m_db, "UPDATE capture_traces SET spans=spans+?2 WHERE trace=?1");
    m_openTrace.prepare(m_db, "INSERT INTO capture_traces(trace, spans) SELECT ?1, COUNT(*) FROM capture_spans WHERE trace=?1");
    m_closeTrace.prepare(m_db, "DELETE FROM capture_traces WHERE trace=?1");
}

Status CaptureTable::addSpan(std::string_view trace, std::string_view data) {
    m_insertSpan.bind(1, trace).bind(2, data);
    const int rc = m_insertSpan.step();
    m_insertSpan.reset();
    return rc == SQLITE_DONE ? Status::ok() : failed(m_db, "store a received span");
}

Status CaptureTable::markOpen(std::string_view trace, std::int64_t added) {
    m_bumpTrace.bind(1, trace).bind(2, added);
    int rc = m_bumpTrace.step();
    m_bumpTrace.reset();
    if (rc != SQLITE_DONE) return failed(m_db, "count a trace's spans");
    if (sqlite3_changes(m_db) > 0) return Status::ok();
    // Newly open (again, after a late span): every span received of it, the earlier ones too.
    m_openTrace.bind(1, trace);
    rc = m_openTrace.step();
    m_openTrace.reset();
    return rc == SQLITE_DONE ? Status::ok() : failed(m_db, "open a trace");
}

Result<std::vector<std::string>> CaptureTable::openTraces() const {
    std::vector<std::string> out;
    sqlite::Statement q(m_db, "SELECT trace FROM capture_traces ORDER BY trace");
    if (!q.isValid()) return failed(m_db, "read the open traces");
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) out.emplace_back(q.text(0));
    if (rc != SQLITE_DONE) return failed(m_db, "read the open traces");
    return out;
}

Status CaptureTable::forEachSpan(std::string_view trace, const std::function<Status(std::string_view)>& f) const {
    sqlite::Statement q(m_db, "SELECT data FROM capture_spans WHERE trace=?1 ORDER BY id");
    if (!q.isValid()) return failed(m_db, "read a trace's received spans");
    q.bind(1, trace);
    int rc;
    while ((rc = q.step()) == SQLITE_ROW)
        if (Status s = f(q.text(0)); !s) return s;
    return rc == SQLITE_DONE ? Status::ok() : failed(m_db, "read a trace's received spans");
}

Status CaptureTable::close(std::string_view trace) {
    m_closeTrace.bind(1, trace);
    const int rc = m_closeTrace.step();
    m_closeTrace.reset();
    return rc == SQLITE_DONE ? Status::ok() : failed(m_db, "close a trace");
}

Result<CaptureTable::Earlier> CaptureTable::clearCapturedRequest(std::string_view trace, std::string_view captureFormat) {
    std::int64_t id = 0;
    {
        sqlite::Statement q(m_db, "SELECT r.id, i.format FROM requests r LEFT JOIN imports i ON i.id=r.import_id WHERE r.name=?1");
        q.bind(1, trace);
        const int rc = q.step();
        if (rc == SQLITE_DONE) return Earlier::None;
        if (rc != SQLITE_ROW) return failed(m_db, "look up a captured request");
        if (q.text(1) != captureFormat) return Earlier::FromElsewhere;
        id = q.int64(0);
    }
    // Everything stored by request id; period_members follows the request by its trigger.
    for (const char* table : {"events", "event_attrs", "request_attrs", "causal_links", "import_warnings", "spans", "request_spans",
                              "request_analysis", "critical_path_segments", "slack"}) {
        const std::string sql = std::string("DELETE FROM ") + table + " WHERE request_id=?1";
        sqlite::Statement del(m_db, sql);
        del.bind(1, id);
        if (del.step() != SQLITE_DONE) return failed(m_db, "replace a captured request");
    }
    sqlite::Statement del(m_db, "DELETE FROM requests WHERE id=?1");
    del.bind(1, id);
    if (del.step() != SQLITE_DONE) return failed(m_db, "replace a captured request");
    return Earlier::Deleted;
}

} // namespace tracelight
