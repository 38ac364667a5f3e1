#pragma once
// The database connection, for tests (and the fuzz harness) that check the stored rows with their own SQL.
// TraceStore keeps its connection to itself; this one friend is for checking from outside, never for core.
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tracelight/store/TraceStore.h"

namespace tracelight::test {

// Schema 18's tables taken back to 17's, empty: for a database with no spans (undoSchema18 keeps them).
#define TRACELIGHT_UNDO_SCHEMA18_TABLES \
        "CREATE TABLE span_attrs(request_id INTEGER NOT NULL, idx INTEGER NOT NULL, pos INTEGER NOT NULL, " \
        "  key_id INTEGER NOT NULL, value_id INTEGER NOT NULL, PRIMARY KEY(request_id, idx, pos)) WITHOUT ROWID; " \
        "CREATE TABLE span_events(request_id INTEGER NOT NULL, idx INTEGER NOT NULL, pos INTEGER NOT NULL, " \
        "  name_id INTEGER NOT NULL, ts_ns INTEGER NOT NULL, event_id INTEGER NOT NULL DEFAULT 0, " \
        "  PRIMARY KEY(request_id, idx, pos)) WITHOUT ROWID; " \
        "CREATE TABLE span_links(request_id INTEGER NOT NULL, idx INTEGER NOT NULL, pos INTEGER NOT NULL, " \
        "  span_id TEXT NOT NULL, PRIMARY KEY(request_id, idx, pos)) WITHOUT ROWID; "
#define TRACELIGHT_UNDO_SCHEMA18_COLUMNS \
        "ALTER TABLE spans DROP COLUMN tags; ALTER TABLE spans DROP COLUMN events; ALTER TABLE spans DROP COLUMN links; "

// Schema 17 taken back to 16's tables: each span's process tags on the span again, flagged.
#define TRACELIGHT_UNDO_SCHEMA17 \
        "ALTER TABLE span_attrs ADD COLUMN process INTEGER NOT NULL DEFAULT 0; " \
        "INSERT INTO span_attrs(request_id, idx, pos, key_id, value_id, process) " \
        "  SELECT s.request_id, s.idx, (SELECT COUNT(*) FROM span_attrs a WHERE a.request_id=s.request_id AND a.idx=s.idx) + p.pos, " \
        "         p.key_id, p.value_id, 1 FROM spans s JOIN process_attrs p ON p.process_id=s.process_id; " \
        "ALTER TABLE spans DROP COLUMN process_id; DROP TABLE process_attrs; DROP TABLE processes; "

struct StoreAccess {
    static sqlite3* db(const TraceStore& store) { return store.db(); }

    // What schema 13 (and 14: the live capture's tables; 15: the SQL result tables; 16: host activity; 17: processes stored
    // once, their tags put back on each span; 18: packed tags, events and links, for a database without spans) added, taken away again: the
    // first step of making an older database in a test (a span request then keeps its events only if
    // storeEventModel stored them first).
    static constexpr const char* kUndoSchema13 =
        TRACELIGHT_UNDO_SCHEMA18_TABLES TRACELIGHT_UNDO_SCHEMA18_COLUMNS
        TRACELIGHT_UNDO_SCHEMA17
        "DROP TABLE host_activity; DROP TABLE host_activity_hosts; DROP TABLE critical_path_segments; DROP TABLE slack; "
        "DROP TABLE capture_spans; DROP TABLE capture_traces; "
        "ALTER TABLE requests DROP COLUMN events_from_spans; ALTER TABLE spans DROP COLUMN event_host_id; "
        "ALTER TABLE spans DROP COLUMN enter_id; ALTER TABLE spans DROP COLUMN leave_id; "
        "ALTER TABLE span_events DROP COLUMN event_id; UPDATE meta SET value='12' WHERE key='schema_version'; ";

    // Schema 17 taken back to 16 (after undoSchema18).
    static constexpr const char* kUndoSchema17 =
        TRACELIGHT_UNDO_SCHEMA17
        "UPDATE meta SET value='16' WHERE key='schema_version'; ";

    // The rows of a query, each row's columns joined by '|' (NULL spelt "NULL"); empty when it does not prepare.
    static std::vector<std::string> rows(const TraceStore& store, const std::string& sql) {
        std::vector<std::string> out;
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(store.db(), sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return out;
        while (sqlite3_step(st) == SQLITE_ROW) {
            std::string row;
            for (int c = 0; c < sqlite3_column_count(st); ++c) {
                if (c) row += '|';
                const auto* t = sqlite3_column_text(st, c);
                row += t ? reinterpret_cast<const char*>(t) : "NULL";
            }
            out.push_back(std::move(row));
        }
        sqlite3_finalize(st);
        return out;
    }

    // What the store's reads give of the event model (derived from their spans for span requests: see
    // requests.events_from_spans) as the temporary tables `events` and `causal_links`, which shadow the
    // stored ones in unqualified SQL: a test's own queries then check what every reader sees. Made again
    // on each call.
    static void materializeEventModel(const TraceStore& store) {
        sqlite3* db = store.db();
        sqlite3_exec(db,
                     "DROP TABLE IF EXISTS temp.events; DROP TABLE IF EXISTS temp.causal_links; "
                     "CREATE TEMP TABLE events(request_id INTEGER, task_id INTEGER, ord INTEGER, event_id INTEGER, host_id INTEGER, "
                     "ts_ns INTEGER, PRIMARY KEY(request_id, task_id, ord)) WITHOUT ROWID; "
                     "CREATE TEMP TABLE causal_links(request_id INTEGER, from_task_id INTEGER, from_ord INTEGER, to_task_id INTEGER, "
                     "to_ord INTEGER)",
                     nullptr, nullptr, nullptr);
        sqlite3_stmt* insert = nullptr;
        sqlite3_prepare_v2(db, "INSERT INTO temp.events VALUES(?1, ?2, ?3, ?4, ?5, ?6)", -1, &insert, nullptr);
        (void)store.scanEvents([&](const EventRow& e) {
            sqlite3_bind_int64(insert, 1, e.request);
            sqlite3_bind_int64(insert, 2, e.task);
            sqlite3_bind_int64(insert, 3, e.ord);
            sqlite3_bind_int64(insert, 4, e.event);
            sqlite3_bind_int64(insert, 5, e.host);
            sqlite3_bind_int64(insert, 6, e.localNs);
            sqlite3_step(insert);
            sqlite3_reset(insert);
            return true;
        });
        sqlite3_finalize(insert);
        sqlite3_prepare_v2(db, "INSERT INTO temp.causal_links VALUES(?1, ?2, ?3, ?4, ?5)", -1, &insert, nullptr);
        if (auto links = store.causalLinks(INT64_MIN, INT64_MAX))
            for (const LinkRow& l : links.value()) {
                sqlite3_bind_int64(insert, 1, l.request);
                sqlite3_bind_int64(insert, 2, l.fromTask);
                sqlite3_bind_int64(insert, 3, l.fromOrd);
                sqlite3_bind_int64(insert, 4, l.toTask);
                sqlite3_bind_int64(insert, 5, l.toOrd);
                sqlite3_step(insert);
                sqlite3_reset(insert);
            }
        sqlite3_finalize(insert);
    }

    // The event model stored as an import before schema 13 stored it: the events and links the reads give
    // become rows of the events and causal_links tables, and no request's are derived any more. For tests of
    // what a damaged events or links table does.
    static void storeEventModel(const TraceStore& store) {
        materializeEventModel(store);
        sqlite3_exec(store.db(),
                     "INSERT OR IGNORE INTO main.events SELECT * FROM temp.events; "
                     "INSERT INTO main.causal_links SELECT * FROM temp.causal_links WHERE request_id IN "
                     "(SELECT id FROM main.requests WHERE events_from_spans=1); "
                     "UPDATE main.requests SET events_from_spans=0; DROP TABLE temp.events; DROP TABLE temp.causal_links",
                     nullptr, nullptr, nullptr);
    }
};

} // namespace tracelight::test
