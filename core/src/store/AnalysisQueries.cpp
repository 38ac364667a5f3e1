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




} // namespace tracelight
