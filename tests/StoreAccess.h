#pragma once
// The database connection, for tests (and the fuzz harness) that check the stored rows with their own SQL.
// TraceStore keeps its connection to itself; this one friend is for checking from outside, never for core.
#include <sqlite3.h>

#include <string>
#include <vector>

#include "tracelight/store/TraceStore.h"

namespace tracelight::test {

struct StoreAccess {
    static sqlite3* db(const TraceStore& store) { return store.db(); }

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
};

} // namespace tracelight::test
