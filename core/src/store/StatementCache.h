#pragma once
// Prepared statements kept for the life of a connection, by their SQL text. An import prepares some twenty
// statements; parsing them again for every small import was a quarter of its time (perf, on the fuzz
// targets' one-line inputs). A statement lent out is reset and unbound when its borrower is done.
#include <sqlite3.h>

#include <string>
#include <string_view>
#include <unordered_map>

namespace tracelight::sqlite {

class StatementCache {
public:
    explicit StatementCache(sqlite3* db) : m_db(db) {}
    ~StatementCache() { clear(); }
    StatementCache(const StatementCache&) = delete;
    StatementCache& operator=(const StatementCache&) = delete;

    // The statement for sql, prepared on first use; nullptr when it does not prepare (sqlite3_errmsg says why).
    sqlite3_stmt* get(std::string_view sql) {
        if (auto it = m_statements.find(sql); it != m_statements.end()) return it->second;
        sqlite3_stmt* stmt = nullptr;
        if (sqlite3_prepare_v3(m_db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) != SQLITE_OK)
            return nullptr;
        m_statements.emplace(std::string(sql), stmt);
        return stmt;
    }
    // Finalizes every statement (before the connection closes).
    void clear() {
        for (auto& [sql, stmt] : m_statements) sqlite3_finalize(stmt);
        m_statements.clear();
    }

private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    sqlite3* m_db;
    std::unordered_map<std::string, sqlite3_stmt*, Hash, std::equal_to<>> m_statements;
};

} // namespace tracelight::sqlite
