// Periods: named sets of requests. Each import's batch is one; more are defined by a time window or a request
// attribute. A request may be in several. The SQL of them, apart from the rest of the store.
#include "tracelight/store/Periods.h"

#include <sqlite3.h>

#include <cstdlib>

#include "store/Sqlite.h"
#include "store/StoreConnection.h"

namespace tracelight {


namespace {

bool isNumber(std::string_view text, double& out) {
    if (text.empty()) return false;
    const std::string t(text);
    char* end = nullptr;
    out = std::strtod(t.c_str(), &end);
    return end == t.c_str() + t.size();
}

std::string trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return std::string(s);
}

} // namespace

std::vector<PeriodDefinition> listPeriods(const TraceStore& store) {
    sqlite3* db = StoreConnection::of(store);
    std::vector<PeriodDefinition> out;
    sqlite::Statement q(db, "SELECT p.name, (SELECT COUNT(*) FROM period_members m WHERE m.period_id=p.id), "
                              "CASE p.definition WHEN '' THEN 'import batch' ELSE p.definition END "
                              "FROM periods p WHERE p.definition!='deleted' ORDER BY p.id");
    while (q.step() == SQLITE_ROW) out.push_back({std::string(q.text(0)), q.int64(1), std::string(q.text(2))});
    return out;
}

namespace {

Result<std::int64_t> newPeriod(sqlite3* db, std::string_view name, const std::string& definition) {
    if (name.empty()) return Status::error("period name is empty");
    sqlite::Statement exists(db, "SELECT 1 FROM periods WHERE name=?1");
    exists.bind(1, name);
    if (exists.step() == SQLITE_ROW) return Status::error("period '" + std::string(name) + "' already exists");
    sqlite::Statement ins(db, "INSERT INTO periods(name, definition) VALUES(?1, ?2)");
    ins.bind(1, name).bind(2, std::string_view(definition));
    if (ins.step() != SQLITE_DONE) return Status::error(std::string("cannot add period: ") + sqlite3_errmsg(db));
    return static_cast<std::int64_t>(sqlite3_last_insert_rowid(db));
}

Result<std::int64_t> finish(sqlite3* db, std::int64_t periodId, const std::vector<std::int64_t>& members) {
    sqlite::Statement ins(db, "INSERT OR IGNORE INTO period_members(period_id, request_id) VALUES(?1, ?2)");
    for (std::int64_t r : members) {
        ins.reset();
        ins.bind(1, periodId).bind(2, r);
        if (ins.step() != SQLITE_DONE) {
            const std::string message = std::string("cannot add period: ") + sqlite3_errmsg(db);
            sqlite::exec(db, "ROLLBACK");
            return Status::error(message);
        }
    }
    if (Status c = sqlite::exec(db, "COMMIT"); !c) return Status::error(c.message());
    return static_cast<std::int64_t>(members.size());
}

} // namespace

Result<std::int64_t> addPeriodByTime(TraceStore& store, std::string_view name, std::int64_t fromNs, std::int64_t toNs) {
    sqlite3* db = StoreConnection::of(store);
    if (toNs <= fromNs) return Status::error("period '" + std::string(name) + "': --to must be after --from");
    if (Status s = store.begin(); !s) return Status::error(s.message());
    auto id = newPeriod(db, name,
                        "time [" + std::to_string(fromNs / 1000) + ", " + std::to_string(toNs / 1000) + ") us");
    if (!id) {
        sqlite::exec(db, "ROLLBACK");
        return id.status();
    }
    std::vector<std::int64_t> members;
    sqlite::Statement q(db, "SELECT id FROM requests WHERE COALESCE(start_ns, start_local_ns) >= ?1 "
                              "AND COALESCE(start_ns, start_local_ns) < ?2 ORDER BY id");
    q.bind(1, fromNs).bind(2, toNs);
    while (q.step() == SQLITE_ROW) members.push_back(q.int64(0));
    return finish(db, id.value(), members);
}

namespace {
// ATTR OP VALUE, OP one of != = < > (the first operator in the text; "!=" before "=").
struct Predicate {
    std::string key, op, value;
};
Result<Predicate> parsePredicate(std::string_view predicate) {
    std::size_t at = std::string_view::npos;
    std::string op;
    for (const char* candidate : {"!=", "=", "<", ">"}) {
        const std::size_t p = predicate.find(candidate);
        if (p != std::string_view::npos && (at == std::string_view::npos || p < at)) {
            at = p;
            op = candidate;
        }
    }
    if (at != std::string_view::npos && op == "=" && at > 0 && predicate[at - 1] == '!') {
        at -= 1;
        op = "!=";
    }
    const std::string key = at == std::string_view::npos ? "" : trimmed(predicate.substr(0, at));
    const std::string value = at == std::string_view::npos ? "" : trimmed(predicate.substr(at + op.size()));
    if (at == std::string_view::npos || key.empty())
        return Status::error("bad predicate '" + std::string(predicate) + "': expected 'ATTR OP VALUE' with OP one of = != < >");
    return Predicate{key, op, value};
}

// Refuses an attribute no request has: a typo would otherwise make an empty period or filter that looks
// like an answer ("no request matched"). The message lists the attributes there are.
Status checkAttributeExists(sqlite3* db, const std::string& key) {
    sqlite::Statement q(db, "SELECT 1 FROM request_attrs a JOIN labels k ON k.id=a.key_id WHERE k.text=?1 LIMIT 1");
    q.bind(1, std::string_view(key));
    if (q.step() == SQLITE_ROW) return Status::ok();
    std::string known;
    sqlite::Statement keys(db, "SELECT DISTINCT k.text FROM request_attrs a JOIN labels k ON k.id=a.key_id ORDER BY k.text");
    int shown = 0;
    while (keys.step() == SQLITE_ROW) {
        if (shown++ == 20) {
            known += ", …";
            break;
        }
        known += (known.empty() ? "" : ", ") + std::string(keys.text(0));
    }
    return Status::error("no request has the attribute '" + key + "' (" + (known.empty() ? "the requests have no attributes" : "attributes: " + known) +
                         ")");
}

// The requests whose attribute matches: numbers compare as numbers, anything else as text.
std::vector<RequestId> matchingRequests(sqlite3* db, const Predicate& p) {
    double wanted = 0;
    const bool wantedNumber = isNumber(p.value, wanted);
    std::vector<RequestId> members;
    sqlite::Statement q(db, "SELECT a.request_id, v.text FROM request_attrs a JOIN labels k ON k.id=a.key_id "
                            "JOIN labels v ON v.id=a.value_id WHERE k.text=?1 ORDER BY a.request_id");
    q.bind(1, std::string_view(p.key));
    while (q.step() == SQLITE_ROW) {
        const std::string_view text = q.text(1);
        double number = 0;
        int cmp;
        if (wantedNumber && isNumber(text, number)) cmp = number < wanted ? -1 : number > wanted ? 1 : 0;
        else cmp = text.compare(p.value) < 0 ? -1 : text.compare(p.value) > 0 ? 1 : 0;
        const bool match = p.op == "=" ? cmp == 0 : p.op == "!=" ? cmp != 0 : p.op == "<" ? cmp < 0 : cmp > 0;
        const auto id = RequestId{static_cast<std::uint32_t>(q.int64(0))};
        if (match && (members.empty() || members.back() != id)) members.push_back(id);
    }
    return members;
}
} // namespace

Result<std::vector<RequestId>> requestsWhere(const TraceStore& store, std::string_view predicate) {
    sqlite3* db = StoreConnection::of(store);
    auto parsed = parsePredicate(predicate);
    if (!parsed) return parsed.status();
    if (Status known = checkAttributeExists(db, parsed->key); !known) return known;
    return matchingRequests(db, parsed.value());
}

Status requireAttribute(const TraceStore& store, std::string_view key) {
    return checkAttributeExists(StoreConnection::of(store), std::string(key));
}

Result<std::int64_t> addPeriodWhere(TraceStore& store, std::string_view name, std::string_view predicate) {
    sqlite3* db = StoreConnection::of(store);
    auto parsed = parsePredicate(predicate);
    if (!parsed) return parsed.status();
    const Predicate& p = parsed.value();
    if (Status s = store.begin(); !s) return Status::error(s.message());
    auto id = newPeriod(db, name, "where " + p.key + " " + p.op + " " + p.value);
    if (!id) {
        sqlite::exec(db, "ROLLBACK");
        return id.status();
    }
    // Checked under the write lock too, so nothing is stored for a period no request could ever be in.
    if (Status known = checkAttributeExists(db, p.key); !known) {
        sqlite::exec(db, "ROLLBACK");
        return Status::error("period '" + std::string(name) + "': " + known.message());
    }
    // Read under the write lock, as the period is made: an import cannot land between the two.
    std::vector<std::int64_t> members;
    for (auto r : matchingRequests(db, p)) members.push_back(static_cast<std::int64_t>(r.value));
    return finish(db, id.value(), members);
}

Status renamePeriod(TraceStore& store, std::string_view oldName, std::string_view newName) {
    sqlite3* db = StoreConnection::of(store);
    if (newName.empty()) return Status::error("period name is empty");
    sqlite::Statement exists(db, "SELECT 1 FROM periods WHERE name=?1");
    exists.bind(1, newName);
    if (exists.step() == SQLITE_ROW) return Status::error("period '" + std::string(newName) + "' already exists");
    sqlite::Statement up(db, "UPDATE periods SET name=?2 WHERE name=?1");
    up.bind(1, oldName).bind(2, newName);
    if (up.step() != SQLITE_DONE) return Status::error(std::string("cannot rename period: ") + sqlite3_errmsg(db));
    if (sqlite3_changes(db) == 0) return Status::error("unknown period '" + std::string(oldName) + "'");
    return Status::ok();
}

Status deletePeriod(TraceStore& store, std::string_view name) {
    sqlite3* db = StoreConnection::of(store);
    sqlite::Statement find(db, "SELECT id FROM periods WHERE name=?1");
    find.bind(1, name);
    if (find.step() != SQLITE_ROW) return Status::error("unknown period '" + std::string(name) + "'");
    const std::int64_t id = find.int64(0);
    if (Status s = store.begin(); !s) return Status::error(s.message());
    sqlite::Statement members(db, "DELETE FROM period_members WHERE period_id=?1");
    members.bind(1, id);
    bool ok = members.step() == SQLITE_DONE;
    // An import batch's row stays (requests.period_id refers to it); only its name goes.
    sqlite::Statement batch(db, "SELECT 1 FROM requests WHERE period_id=?1 LIMIT 1");
    batch.bind(1, id);
    const bool isBatch = batch.step() == SQLITE_ROW;
    sqlite::Statement drop(db, isBatch ? "UPDATE periods SET name='#deleted-' || id, definition='deleted' WHERE id=?1"
                                         : "DELETE FROM periods WHERE id=?1");
    drop.bind(1, id);
    ok = ok && drop.step() == SQLITE_DONE;
    if (!ok) {
        const std::string message = std::string("cannot delete period: ") + sqlite3_errmsg(db);
        sqlite::exec(db, "ROLLBACK");
        return Status::error(message);
    }
    return sqlite::exec(db, "COMMIT");
}


std::unordered_map<std::uint32_t, std::string> periodNamesByRequest(const TraceStore& store) {
    sqlite3* db = StoreConnection::of(store);
    std::unordered_map<std::uint32_t, std::string> out;
    sqlite::Statement q(db, "SELECT m.request_id, p.name FROM period_members m JOIN periods p ON p.id=m.period_id ORDER BY p.id");
    while (q.step() == SQLITE_ROW) {
        std::string& names = out[static_cast<std::uint32_t>(q.int64(0))];
        if (!names.empty()) names += ", ";
        names += q.text(1);
    }
    return out;
}

std::vector<RequestId> requestsInPeriod(const TraceStore& store, std::string_view period) {
    sqlite3* db = StoreConnection::of(store);
    std::vector<RequestId> out;
    sqlite::Statement q(db, "SELECT m.request_id FROM period_members m JOIN periods p ON p.id=m.period_id WHERE p.name=?1 "
                              "ORDER BY m.request_id");
    q.bind(1, period);
    while (q.step() == SQLITE_ROW) out.emplace_back(static_cast<std::uint32_t>(q.int64(0)));
    return out;
}

} // namespace tracelight
