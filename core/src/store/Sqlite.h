#pragma once
// Thin RAII wrappers over the SQLite C API, private to core.
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>

#include "tracelight/base/Status.h"

namespace tracelight::sqlite {

class Statement {
public:
    Statement() = default;
    Statement(sqlite3* db, std::string_view sql) { prepare(db, sql); }
    ~Statement() { release(); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    Statement(Statement&& other) noexcept : m_stmt(other.m_stmt), m_borrowed(other.m_borrowed) { other.m_stmt = nullptr; }

    bool prepare(sqlite3* db, std::string_view sql) {
        release();
        return sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &m_stmt,
                                  nullptr) == SQLITE_OK;
    }
    // Uses a statement owned by a StatementCache: reset and unbound, not finalized, when this one is done.
    bool borrow(sqlite3_stmt* stmt) {
        release();
        m_stmt = stmt;
        m_borrowed = true;
        return m_stmt != nullptr;
    }
    bool isValid() const { return m_stmt != nullptr; }

    Statement& bind(int index, std::int64_t v) { sqlite3_bind_int64(m_stmt, index, v); return *this; }
    Statement& bind(int index, int v) { sqlite3_bind_int64(m_stmt, index, v); return *this; }
    Statement& bind(int index, std::uint32_t v) { sqlite3_bind_int64(m_stmt, index, v); return *this; }
    Statement& bind(int index, double v) { sqlite3_bind_double(m_stmt, index, v); return *this; }
    Statement& bind(int index, std::string_view v) {
        sqlite3_bind_text(m_stmt, index, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    Statement& bindNull(int index) { sqlite3_bind_null(m_stmt, index); return *this; }
    // Bytes as a blob; none as NULL.
    Statement& bindBlob(int index, std::string_view v) {
        if (v.empty()) sqlite3_bind_null(m_stmt, index);
        else sqlite3_bind_blob(m_stmt, index, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        return *this;
    }

    // SQLITE_ROW, SQLITE_DONE or an error code.
    int step() { return sqlite3_step(m_stmt); }
    void reset() { sqlite3_reset(m_stmt); }

    std::int64_t int64(int col) const { return sqlite3_column_int64(m_stmt, col); }
    double real(int col) const { return sqlite3_column_double(m_stmt, col); }
    bool isNull(int col) const { return sqlite3_column_type(m_stmt, col) == SQLITE_NULL; }
    std::string_view text(int col) const {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, col));
        return p ? std::string_view(p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, col))) : std::string_view();
    }
    // A blob's bytes (empty for NULL), valid until the next step.
    std::string_view blob(int col) const {
        const auto* p = static_cast<const char*>(sqlite3_column_blob(m_stmt, col));
        return p ? std::string_view(p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, col))) : std::string_view();
    }
    sqlite3_stmt* get() const { return m_stmt; }

private:
    void release() {
        if (m_borrowed && m_stmt) {
            sqlite3_reset(m_stmt);
            sqlite3_clear_bindings(m_stmt);
        } else {
            sqlite3_finalize(m_stmt);
        }
        m_stmt = nullptr;
        m_borrowed = false;
    }

    sqlite3_stmt* m_stmt = nullptr;
    bool m_borrowed = false;
};

// How many rows to reserve before reading some keys' rows: the integer `sql` gives for ?1, ?2, ... = keys
// (a count), within [0, cap]; 0 when it gives none. A list of millions is then not held one and a half
// times over while it doubles.
inline std::size_t rowsToReserve(sqlite3* db, const char* sql, std::initializer_list<std::int64_t> keys,
                                 std::int64_t cap = std::numeric_limits<std::int64_t>::max()) {
    Statement count(db, sql);
    int parameter = 0;
    for (const std::int64_t key : keys) count.bind(++parameter, key);
    return count.step() == SQLITE_ROW ? static_cast<std::size_t>(std::clamp<std::int64_t>(count.int64(0), 0, cap)) : 0;
}

inline Status exec(sqlite3* db, const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
        std::string message = err ? err : sqlite3_errmsg(db);
        sqlite3_free(err);
        return Status::error(message);
    }
    return Status::ok();
}

} // namespace tracelight::sqlite
