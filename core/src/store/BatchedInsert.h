#pragma once
// Rows of integers inserted many to a statement. SQLite runs one INSERT of 32 rows in about 0.6 of the
// time of 32 single-row INSERTs (3 M rows of the events table's six columns: 1.53 s against 2.50 s,
// measured here): the statement's start, reset and step are paid once per batch instead of once per row.
// 128 rows to a statement imported the 100,000-request sample in 0.93 of the time of 32 (median of five
// runs each; 512 was no faster).
// Rows wait in memory until a batch is full or flush() is called, and are then stored by the SqlWorker
// (perhaps on its thread, later), so only tables whose rows cannot break a constraint by the input's fault
// belong here, or a caller that has made sure they cannot: an error found later could not name the input
// line that caused it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/Sqlite.h"
#include "store/SqlWorker.h"
#include "tracelight/base/Status.h"

namespace tracelight {

// "(?,?,?),(?,?,?)": that many rows of that many parameters, for a multi-row INSERT's VALUES.
inline std::string parameterRows(std::size_t rows, int columns) {
    std::string row = "(";
    for (int c = 0; c < columns; ++c) row += c ? ",?" : "?";
    row += ")";
    std::string out;
    for (std::size_t r = 0; r < rows; ++r) out += (r ? "," : "") + row;
    return out;
}

class BatchedInsert {
public:
    static constexpr int kRowsPerStatement = 128;

    // head: "INSERT INTO t(a, b, c)" or "INSERT OR IGNORE INTO ..."; what names a row in errors ("event").
    // statementFor(sql) gives a prepared statement (the store's statement cache: prepared once per connection).
    // worker: where the statements run (it may run them at once); the rows are handed over, not shared.
    template <class StatementFor>
    bool prepare(sqlite3* db, SqlWorker& worker, StatementFor&& statementFor, std::string_view head, int columns, const char* what) {
        m_db = db;
        m_worker = &worker;
        m_columns = columns;
        m_what = what;
        const std::string one = std::string(head) + " VALUES" + parameterRows(1, columns);
        const std::string many = std::string(head) + " VALUES" + parameterRows(kRowsPerStatement, columns);
        m_values.reserve(std::size_t(columns) * kRowsPerStatement);
        return m_one.borrow(statementFor(one)) && m_many.borrow(statementFor(many));
    }

    template <class... Values>
    Status add(Values... values) {
        static_assert(sizeof...(Values) > 0);
        (m_values.push_back(static_cast<std::int64_t>(values)), ...);
        return m_values.size() == std::size_t(m_columns) * kRowsPerStatement ? flush() : Status::ok();
    }

    // Hands the rows added so far to the worker to store.
    Status flush() {
        if (m_values.empty()) return Status::ok();
        std::vector<std::int64_t> rows;
        rows.reserve(std::size_t(m_columns) * kRowsPerStatement);
        rows.swap(m_values);
        return m_worker->post([this, rows = std::move(rows)] { return store(rows); });
    }

    bool empty() const { return m_values.empty(); }

private:
    Status store(const std::vector<std::int64_t>& rows) {
        const bool full = rows.size() == std::size_t(m_columns) * kRowsPerStatement;
        sqlite::Statement& st = full ? m_many : m_one;
        const std::size_t perStep = full ? rows.size() : std::size_t(m_columns);
        for (std::size_t from = 0; from < rows.size(); from += perStep) {
            for (std::size_t i = 0; i < perStep; ++i) st.bind(static_cast<int>(i + 1), rows[from + i]);
            const int rc = st.step();
            st.reset();
            if (rc != SQLITE_DONE) return Status::error(std::string("cannot store ") + m_what + ": " + sqlite3_errmsg(m_db));
        }
        return Status::ok();
    }

    sqlite3* m_db = nullptr;
    SqlWorker* m_worker = nullptr;
    int m_columns = 0;
    const char* m_what = "";
    sqlite::Statement m_one, m_many;
    std::vector<std::int64_t> m_values;  // rows waiting, column by column
};

} // namespace tracelight
