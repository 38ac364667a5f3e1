// The store's schema in one text (what a new database is made with) is what the first version and every
// migration since make: an upgraded database and a new one have the same tables, columns, keys, indexes,
// views and triggers.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "store/PackedSpanParts.h"
#include "store/Schema.h"

namespace {

std::vector<std::string> rows(sqlite3* db, const std::string& sql) {
    std::vector<std::string> out;
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql << ": " << sqlite3_errmsg(db);
    while (sqlite3_step(st) == SQLITE_ROW) {
        std::string row;
        for (int c = 0; c < sqlite3_column_count(st); ++c) {
            const auto* t = sqlite3_column_text(st, c);
            row += std::string(c ? "|" : "") + (t ? reinterpret_cast<const char*>(t) : "NULL");
        }
        out.push_back(row);
    }
    sqlite3_finalize(st);
    return out;
}

// Everything a schema says, object by object: each table's columns (name, type, not null, default, key
// position), each index's columns and kind, each view's and trigger's name.
std::vector<std::string> describe(sqlite3* db) {
    std::vector<std::string> out;
    for (const std::string& object : rows(db, "SELECT type || ' ' || name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")) {
        out.push_back(object);
        const std::string name = object.substr(object.find(' ') + 1);
        if (object.rfind("table ", 0) == 0) {
            for (const auto& column : rows(db, "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_xinfo('" + name + "')"))
                out.push_back("  column " + column);
            for (const auto& index : rows(db, "SELECT name, \"unique\", origin, partial FROM pragma_index_list('" + name + "') ORDER BY name"))
                out.push_back("  index " + index + " on " +
                              [&] {
                                  std::string columns;
                                  for (const auto& c : rows(db, "SELECT name FROM pragma_index_info('" + index.substr(0, index.find('|')) + "')"))
                                      columns += c + ",";
                                  return columns;
                              }());
            // WITHOUT ROWID: the table's own b-tree is its key.
            out.push_back(std::string("  without rowid ") +
                          (rows(db, "SELECT 1 FROM pragma_index_list('" + name + "') WHERE origin = 'pk'").empty() ? "?" : "pk") + " " +
                          (rows(db, "SELECT sql FROM sqlite_master WHERE name = '" + name + "' AND sql LIKE '%WITHOUT ROWID%'").empty() ? "no" : "yes"));
        }
    }
    return out;
}

// With the store's own SQL functions, which a migration may use (as TraceStore registers them).
sqlite3* memoryDatabase() {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
    EXPECT_TRUE(tracelight::packed::registerPackingFunctions(db));
    return db;
}

void run(sqlite3* db, const char* sql) {
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
    sqlite3_free(err);
}

} // namespace

TEST(Schema, TheCurrentSchemaIsTheFirstWithEveryMigration) {
    sqlite3* upgraded = memoryDatabase();
    run(upgraded, tracelight::schema::version1());
    run(upgraded, "INSERT INTO meta(key, value) VALUES('schema_version', '1')");
    for (const char* step : tracelight::schema::migrations()) run(upgraded, step);
    EXPECT_EQ(rows(upgraded, "SELECT value FROM meta WHERE key = 'schema_version'"),
              (std::vector<std::string>{std::to_string(tracelight::schema::kVersion)}));
    sqlite3* fresh = memoryDatabase();
    run(fresh, tracelight::schema::current());
    const auto expected = describe(upgraded), actual = describe(fresh);
    EXPECT_GT(expected.size(), 100u);
    EXPECT_EQ(actual, expected);
    sqlite3_close(upgraded);
    sqlite3_close(fresh);
}
