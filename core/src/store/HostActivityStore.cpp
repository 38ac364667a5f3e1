// The SQL of host activity (HostActivityStore.h).
#include "tracelight/store/HostActivityStore.h"

#include <sqlite3.h>

#include <algorithm>

#include <unordered_map>
#include <unordered_set>

#include "store/Sqlite.h"
#include "store/StoreConnection.h"

namespace tracelight {

namespace {

Status failed(sqlite3* db, const char* what) { return Status::error(std::string("cannot ") + what + ": " + sqlite3_errmsg(db)); }

// Labels by text, new ones given the next id after every label and occurrence (the id space both share), as an
// import gives them. No role row: a role says how the traces use a label, and an import adds it when they do.
class LabelInterner {
public:
    explicit LabelInterner(sqlite3* db)
        : m_db(db), m_find(db, "SELECT id FROM labels WHERE text=?1"),
          m_insert(db, "INSERT INTO labels(id, text) VALUES(?1, ?2)") {
        sqlite::Statement next(db, "SELECT MAX(COALESCE((SELECT MAX(id) FROM labels), -1), "
                                   "COALESCE((SELECT MAX(id) FROM label_occurrences), -1)) + 1");
        m_next = next.step() == SQLITE_ROW ? next.int64(0) : 0;
    }
    Result<std::int64_t> intern(const std::string& text) {
        if (auto it = m_known.find(text); it != m_known.end()) return it->second;
        m_find.reset();
        m_find.bind(1, std::string_view(text));
        std::int64_t id;
        if (const int rc = m_find.step(); rc == SQLITE_ROW) {
            id = m_find.int64(0);
        } else if (rc == SQLITE_DONE) {
            id = m_next++;
            m_insert.reset();
            m_insert.bind(1, id).bind(2, std::string_view(text));
            if (m_insert.step() != SQLITE_DONE) return failed(m_db, "store a label");
        } else {
            return failed(m_db, "look up a label");
        }
        m_known.emplace(text, id);
        return id;
    }

private:
    sqlite3* m_db;
    sqlite::Statement m_find, m_insert;
    std::int64_t m_next = 0;
    std::unordered_map<std::string, std::int64_t> m_known;
};

Result<std::int64_t> insertAll(sqlite3* db, std::span<const HostActivityInput> records) {
    LabelInterner labels(db);
    // A record already stored (the same file added again) is passed over, not stored twice.
    sqlite::Statement insert(db, "INSERT OR IGNORE INTO host_activity(host_id, start_ns, end_ns, what_id, request, span) VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
    sqlite::Statement longest(db, "INSERT INTO host_activity_hosts(host_id, longest_ns) VALUES(?1, ?2) "
                                  "ON CONFLICT(host_id) DO UPDATE SET longest_ns=max(longest_ns, excluded.longest_ns)");
    if (!insert.isValid() || !longest.isValid()) return failed(db, "store host activity");
    std::unordered_map<std::int64_t, std::int64_t> longestByHost;
    std::int64_t added = 0;
    for (const HostActivityInput& r : records) {
        auto host = labels.intern(r.host);
        if (!host) return host.status();
        auto what = labels.intern(r.what);
        if (!what) return what.status();
        insert.reset();
        insert.bind(1, host.value()).bind(2, r.startNs).bind(3, r.endNs).bind(4, what.value());
        if (r.request.empty()) insert.bindNull(5);
        else insert.bind(5, std::string_view(r.request));
        if (r.span.empty()) insert.bindNull(6);
        else insert.bind(6, std::string_view(r.span));
        if (insert.step() != SQLITE_DONE) return failed(db, "store host activity");
        added += sqlite3_changes(db);
        std::int64_t& hostLongest = longestByHost[host.value()];
        hostLongest = std::max(hostLongest, r.endNs - r.startNs);
    }
    for (const auto& [host, ns] : longestByHost) {
        longest.reset();
        longest.bind(1, host).bind(2, ns);
        if (longest.step() != SQLITE_DONE) return failed(db, "store host activity");
    }
    return added;
}

} // namespace

Result<std::int64_t> addHostActivity(TraceStore& store, std::span<const HostActivityInput> records) {
    if (Status s = store.begin(); !s) return s;
    auto added = insertAll(StoreConnection::of(store), records);
    if (!added) {
        store.rollback();
        return added;
    }
    if (Status s = store.commit(); !s) return s;
    return added;
}

namespace {

constexpr const char* kSelectActivity =
    "SELECT a.id, a.host_id, a.what_id, a.start_ns, a.end_ns, r.id, COALESCE(a.request, ''), COALESCE(a.span, ''), h.text, w.text "
    "FROM host_activity a JOIN labels h ON h.id=a.host_id JOIN labels w ON w.id=a.what_id LEFT JOIN requests r ON r.name=a.request ";

// Appends the rows of a prepared kSelectActivity query to out, each record once (seen: the ids read already).
Status readRecords(sqlite3* db, sqlite::Statement& q, HostActivitySet& out, std::unordered_set<std::int64_t>* seen) {
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) {
        if (seen && !seen->insert(q.int64(0)).second) continue;
        HostActivity a;
        a.host = LabelId{static_cast<std::uint32_t>(q.int64(1))};
        a.what = LabelId{static_cast<std::uint32_t>(q.int64(2))};
        a.startNs = q.int64(3);
        a.endNs = q.int64(4);
        if (!q.isNull(5)) a.request = RequestId{static_cast<std::uint32_t>(q.int64(5))};
        a.requestMarker = std::string(q.text(6));
        a.span = std::string(q.text(7));
        out.names.try_emplace(a.host.value, q.text(8));
        out.names.try_emplace(a.what.value, q.text(9));
        out.records.push_back(std::move(a));
    }
    return rc == SQLITE_DONE ? Status::ok() : failed(db, "read host activity");
}

} // namespace

Result<HostActivitySet> loadHostActivity(const TraceStore& store) {
    sqlite3* db = StoreConnection::of(store);
    HostActivitySet out;
    sqlite::Statement q(db, std::string(kSelectActivity) + "ORDER BY a.host_id, a.start_ns, a.id");
    if (!q.isValid()) return failed(db, "read host activity");
    if (Status s = readRecords(db, q, out, nullptr); !s) return s;
    return out;
}

Result<HostActivitySet> loadHostActivity(const TraceStore& store, const HostActivityQuery& query) {
    sqlite3* db = StoreConnection::of(store);
    HostActivitySet out;
    std::unordered_set<std::int64_t> seen;
    // By host: the index's range of starts from the window's start less the host's longest record to the window's
    // end (without the lower bound a window late in a long recording read every earlier record), the ends checked
    // on the way.
    sqlite::Statement longest(db, "SELECT longest_ns FROM host_activity_hosts WHERE host_id=?1");
    sqlite::Statement onHost(db, std::string(kSelectActivity) +
                                     "WHERE a.host_id=?1 AND a.start_ns>=?4 AND a.start_ns<=?3 AND a.end_ns>=?2 ORDER BY a.start_ns, a.id");
    sqlite::Statement marked(db, std::string(kSelectActivity) + "WHERE a.request=?1 ORDER BY a.host_id, a.start_ns, a.id");
    if (!longest.isValid() || !onHost.isValid() || !marked.isValid()) return failed(db, "read host activity");
    for (const auto& w : query.hosts) {
        longest.reset();
        longest.bind(1, w.host.value);
        if (const int rc = longest.step(); rc == SQLITE_DONE) continue;  // no record on this host
        else if (rc != SQLITE_ROW) return failed(db, "read host activity");
        onHost.reset();
        onHost.bind(1, w.host.value).bind(2, w.fromNs).bind(3, w.toNs).bind(4, w.fromNs - longest.int64(0));
        if (Status s = readRecords(db, onHost, out, &seen); !s) return s;
    }
    if (!query.request.empty()) {
        marked.bind(1, std::string_view(query.request));
        if (Status s = readRecords(db, marked, out, &seen); !s) return s;
    }
    return out;
}

Status forEachHostActivity(const TraceStore& store, const std::function<bool(const HostActivity&, std::string_view what)>& visit) {
    sqlite3* db = StoreConnection::of(store);
    sqlite::Statement q(db, std::string(kSelectActivity) + "ORDER BY a.host_id, a.start_ns, a.id");
    if (!q.isValid()) return failed(db, "read host activity");
    HostActivity a;
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) {
        a.host = LabelId{static_cast<std::uint32_t>(q.int64(1))};
        a.what = LabelId{static_cast<std::uint32_t>(q.int64(2))};
        a.startNs = q.int64(3);
        a.endNs = q.int64(4);
        a.request = q.isNull(5) ? RequestId{} : RequestId{static_cast<std::uint32_t>(q.int64(5))};
        a.requestMarker = std::string(q.text(6));
        a.span = std::string(q.text(7));
        if (!visit(a, q.text(9))) return Status::ok();
    }
    return rc == SQLITE_DONE ? Status::ok() : failed(db, "read host activity");
}

Result<std::vector<LabelId>> hostActivityHosts(const TraceStore& store) {
    sqlite3* db = StoreConnection::of(store);
    std::vector<LabelId> out;
    sqlite::Statement table(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name='host_activity_hosts'");
    if (!table.isValid()) return failed(db, "read host activity");
    if (const int rc = table.step(); rc == SQLITE_DONE) return out;  // before schema 16: none
    else if (rc != SQLITE_ROW) return failed(db, "read host activity");
    sqlite::Statement q(db, "SELECT host_id FROM host_activity_hosts ORDER BY host_id");
    if (!q.isValid()) return failed(db, "read host activity");
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) out.push_back(LabelId{static_cast<std::uint32_t>(q.int64(0))});
    if (rc != SQLITE_DONE) return failed(db, "read host activity");
    return out;
}

std::int64_t hostActivityCount(const TraceStore& store) {
    sqlite::Statement q(StoreConnection::of(store), "SELECT COUNT(*) FROM host_activity");
    return q.isValid() && q.step() == SQLITE_ROW ? q.int64(0) : 0;
}

bool hasHostActivity(const TraceStore& store) {
    sqlite::Statement q(StoreConnection::of(store), "SELECT EXISTS(SELECT 1 FROM host_activity)");
    return q.isValid() && q.step() == SQLITE_ROW && q.int64(0) != 0;
}

} // namespace tracelight
