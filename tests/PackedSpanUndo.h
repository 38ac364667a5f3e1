#pragma once
// A database of schema 18 taken back to 17 with its spans' packed parts unpacked into rows again: for the test
// of the upgrade that packs them (it needs the store's codec, which only the core tests see).
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "StoreAccess.h"
#include "store/PackedSpanParts.h"

namespace tracelight::test {

// Schema 18 taken back to 17, its spans' packed tags, events and links unpacked into 17's rows again.
inline bool undoSchema18(sqlite3* db) {
    if (sqlite3_exec(db, TRACELIGHT_UNDO_SCHEMA18_TABLES, nullptr, nullptr, nullptr) != SQLITE_OK) return false;
    sqlite3_stmt* spans = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT request_id, idx, tags, events, links FROM spans", -1, &spans, nullptr) != SQLITE_OK) return false;
    bool ok = true;
    const auto run = [&](const std::string& sql) { ok = ok && sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK; };
    while (ok && sqlite3_step(spans) == SQLITE_ROW) {
        const std::string at = std::to_string(sqlite3_column_int64(spans, 0)) + ", " + std::to_string(sqlite3_column_int64(spans, 1));
        const auto blob = [&](int c) {
            const auto* p = static_cast<const char*>(sqlite3_column_blob(spans, c));
            return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(spans, c))) : std::string();
        };
        int pos = 0;
        ok = ok && packed::forEachTag(blob(2), [&](std::uint32_t k, std::uint32_t v) {
                 run("INSERT INTO span_attrs VALUES(" + at + ", " + std::to_string(pos++) + ", " + std::to_string(k) + ", " + std::to_string(v) + ")");
             });
        pos = 0;
        ok = ok && packed::forEachEvent(blob(3), [&](std::uint32_t name, std::uint32_t event, std::int64_t ts) {
                 run("INSERT INTO span_events VALUES(" + at + ", " + std::to_string(pos++) + ", " + std::to_string(name) + ", " +
                     std::to_string(ts) + ", " + std::to_string(event) + ")");
             });
        pos = 0;
        ok = ok && packed::forEachLink(blob(4), [&](std::string_view id) {
                 std::string quoted(id);
                 for (std::size_t q = quoted.find('\''); q != std::string::npos; q = quoted.find('\'', q + 2)) quoted.insert(q, 1, '\'');
                 run("INSERT INTO span_links VALUES(" + at + ", " + std::to_string(pos++) + ", '" + quoted + "')");
             });
    }
    sqlite3_finalize(spans);
    run(TRACELIGHT_UNDO_SCHEMA18_COLUMNS "UPDATE meta SET value='17' WHERE key='schema_version'; ");
    return ok;
}

} // namespace tracelight::test
