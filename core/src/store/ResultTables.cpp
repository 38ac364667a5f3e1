#include "tracelight/store/ResultTables.h"

#include <sqlite3.h>

#include "store/Sqlite.h"
#include "store/StoreConnection.h"
#include "tracelight/store/ResultCache.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

namespace {
constexpr const char* kKept = "sql_result_tables";  // a result row, as the rules are: "1" when kept
} // namespace

bool resultTablesKept(const TraceStore& store) { return latestResult(store, kKept, 0).value_or("") == "1"; }

Status keepResultTables(TraceStore& store, bool keep) {
    if (Status s = putResult(store, kKept, 0, "", keep ? "1" : "0"); !s) return s;
    return keep ? Status::ok() : clearResultTables(store);
}

Status clearResultTables(TraceStore& store) {
    sqlite3* db = StoreConnection::of(store);
    if (Status s = sqlite::exec(db, "DELETE FROM critical_path_segments; DELETE FROM slack;"); !s)
        return Status::error(store.path() + ": cannot empty the result tables: " + s.message());
    return Status::ok();
}

Status addResultRows(TraceStore& store, std::span<const CriticalPathRow> path, std::span<const SlackRow> slack) {
    sqlite3* db = StoreConnection::of(store);
    auto fail = [&](const char* table) { return Status::error(store.path() + ": cannot store " + table + ": " + sqlite3_errmsg(db)); };
    if (!path.empty()) {
        sqlite::Statement q(db, "INSERT INTO critical_path_segments(request_id, position, kind, task, start_event, end_event, start_ns, end_ns) "
                                "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
        for (const CriticalPathRow& r : path) {
            q.bind(1, r.request).bind(2, r.position).bind(3, std::string_view(r.blind ? "blind" : "segment"));
            if (r.blind) q.bindNull(4).bindNull(5).bindNull(6);
            else q.bind(4, r.task).bind(5, r.startEvent).bind(6, r.endEvent);
            q.bind(7, std::int64_t(r.startNs)).bind(8, std::int64_t(r.endNs));
            if (q.step() != SQLITE_DONE) return fail("critical path rows");
            q.reset();
        }
    }
    if (!slack.empty()) {
        sqlite::Statement q(db, "INSERT INTO slack(request_id, segment, task, start_event, end_event, start_ns, duration_ns, slack_ns, "
                                "critical, network) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
        for (const SlackRow& r : slack) {
            q.bind(1, r.request).bind(2, r.segment).bind(3, r.task).bind(4, r.startEvent).bind(5, r.endEvent);
            q.bind(6, std::int64_t(r.startNs)).bind(7, std::int64_t(r.durationNs));
            if (r.slackNs) q.bind(8, std::int64_t(*r.slackNs));
            else q.bindNull(8);
            q.bind(9, r.critical ? 1 : 0).bind(10, r.network ? 1 : 0);
            if (q.step() != SQLITE_DONE) return fail("slack rows");
            q.reset();
        }
    }
    return Status::ok();
}

} // namespace tracelight
