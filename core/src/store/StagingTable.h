#pragma once
// A temporary table of (key, seq, source, data) rows for one import: where the span importer parks spans until
// every input is read (a trace's spans may be scattered through files) and they are too many to hold in memory.
// Created by start() (only then: most imports never need it, and a CREATE reloads the schema); dropped when destroyed.
#include <cstdint>
#include <functional>
#include <string_view>

#include "store/Sqlite.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

class StagingTable {
public:
    explicit StagingTable(TraceStore& store) : m_db(store.db()) {}
    ~StagingTable() {
        if (!m_started) return;
        sqlite::exec(m_db, "DROP TABLE IF EXISTS temp.staged_spans");
    }
    StagingTable(const StagingTable&) = delete;
    StagingTable& operator=(const StagingTable&) = delete;

    Status start() {
        m_started = true;
        if (Status s = sqlite::exec(m_db, "CREATE TEMP TABLE IF NOT EXISTS staged_spans(trace TEXT NOT NULL, seq INTEGER NOT NULL, "
                                          "source INTEGER NOT NULL, data TEXT NOT NULL);"
                                          "DELETE FROM temp.staged_spans;");
            !s)
            return s;
        m_insert.prepare(m_db, "INSERT INTO temp.staged_spans(trace, seq, source, data) VALUES(?1, ?2, ?3, ?4)");
        return Status::ok();
    }

    // source: the caller's number for where the row came from (the span importer: its input file).
    Status add(std::string_view key, std::int64_t seq, std::int64_t source, std::string_view data) {
        m_insert.bind(1, key).bind(2, seq).bind(3, source).bind(4, data);
        const int rc = m_insert.step();
        m_insert.reset();
        if (rc != SQLITE_DONE) return Status::error(std::string("cannot stage span: ") + sqlite3_errmsg(m_db));
        return Status::ok();
    }

    // Every row in (key, seq) order; an error from f stops the walk and is returned.
    Status forEach(const std::function<Status(std::string_view key, std::string_view data, std::int64_t source)>& f) {
        sqlite::exec(m_db, "CREATE INDEX IF NOT EXISTS temp.staged_by_trace ON staged_spans(trace, seq)");
        sqlite::Statement q(m_db, "SELECT trace, data, source FROM temp.staged_spans ORDER BY trace, seq");
        for (int rc = q.step(); rc == SQLITE_ROW; rc = q.step())
            if (Status s = f(q.text(0), q.text(1), q.int64(2)); !s) return s;
        return Status::ok();
    }

private:
    sqlite3* m_db;
    sqlite::Statement m_insert;
    bool m_started = false;
};

} // namespace tracelight
