#pragma once
// Damage done to a closed database file on purpose, for the tests of what refuses it and how.
#include <sqlite3.h>

#include <cstdint>
#include <fstream>
#include <string>

namespace tracelight::test {

// The first integer of a query's first row on a connection of its own (0 when there is none).
inline std::int64_t fileQueryInt(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* q = nullptr;
    sqlite3_prepare_v2(db, sql.c_str(), -1, &q, nullptr);
    const std::int64_t value = q && sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 0;
    sqlite3_finalize(q);
    sqlite3_close(db);
    return value;
}

inline std::int64_t rootPage(const std::string& path, const std::string& table) {
    return fileQueryInt(path, "SELECT rootpage FROM sqlite_master WHERE name='" + table + "'");
}

// Overwrites the first bytes of a page (its b-tree header) with garbage.
inline void corruptPage(const std::string& path, std::int64_t page) {
    std::int64_t pageSize = fileQueryInt(path, "PRAGMA page_size");
    if (pageSize <= 0) pageSize = 4096;
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp((page - 1) * pageSize + (page == 1 ? 100 : 0));
    const std::string garbage(64, '\x07');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
}

// Points the first cell of a b-tree leaf page (not page 1) past the end of the page, its header intact.
inline void corruptCellPointer(const std::string& path, std::int64_t page) {
    std::int64_t pageSize = fileQueryInt(path, "PRAGMA page_size");
    if (pageSize <= 0) pageSize = 4096;
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp((page - 1) * pageSize + 8);  // a leaf's header is 8 bytes; the cell pointers follow
    const char pastTheEnd[2] = {'\xff', '\xf0'};
    f.write(pastTheEnd, 2);
}

} // namespace tracelight::test
