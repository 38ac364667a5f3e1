#include <gtest/gtest.h>
#include <sqlite3.h>

#include "TestUtil.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

TEST(TraceStore, CreatesEmptyDatabaseWithSchemaVersion) {
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("a.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    EXPECT_EQ(store.value()->schemaVersion(), TraceStore::kSchemaVersion);
    auto info = store.value()->info();
    ASSERT_TRUE(info);
    EXPECT_EQ(info->requests, 0);
    EXPECT_EQ(info->events, 0);
    EXPECT_TRUE(info->periods.empty());
}

TEST(TraceStore, RefusesMissingFileUnlessCreating) {
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("missing.tldb"), TraceStore::Mode::ReadOnly);
    ASSERT_FALSE(store);
    EXPECT_NE(store.message().find("no such database"), std::string::npos);
}

TEST(TraceStore, RefusesFilesThatAreNotTracelightDatabases) {
    test::ScratchDir dir;
    auto text = TraceStore::open(dir.write("t.tldb", "just some text, not sqlite at all........................"),
                                 TraceStore::Mode::ReadWrite);
    ASSERT_FALSE(text);
    EXPECT_NE(text.message().find("not a Tracelight database"), std::string::npos) << text.message();

    // A SQLite database of some other program.
    const std::string other = dir.file("other.db");
    sqlite3* db = nullptr;
    sqlite3_open(other.c_str(), &db);
    sqlite3_exec(db, "CREATE TABLE x(y)", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    auto foreign = TraceStore::open(other, TraceStore::Mode::ReadWrite);
    ASSERT_FALSE(foreign);
    EXPECT_NE(foreign.message().find("not a Tracelight database"), std::string::npos);
}

TEST(TraceStore, RefusesNewerSchemaVersionWithClearMessage) {
    test::ScratchDir dir;
    const std::string path = dir.file("new.tldb");
    { ASSERT_TRUE(TraceStore::open(path, TraceStore::Mode::Create)); }
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_exec(db, "UPDATE meta SET value='99' WHERE key='schema_version'", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_FALSE(store);
    EXPECT_NE(store.message().find("newer Tracelight"), std::string::npos) << store.message();
    EXPECT_NE(store.message().find("99"), std::string::npos);
}

TEST(TraceStore, CachedResultsAreKeyedByVersionAndParameters) {
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("r.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store);
    TraceStore& s = *store.value();
    ASSERT_TRUE(s.putResult("model", 1, "floor=5", "{\"x\":1}"));
    EXPECT_EQ(s.result("model", 1, "floor=5").value_or(""), "{\"x\":1}");
    EXPECT_FALSE(s.result("model", 2, "floor=5"));  // another analysis version: stale
    EXPECT_FALSE(s.result("model", 1, "floor=6"));  // other parameters: stale
    EXPECT_FALSE(s.result("other", 1, "floor=5"));
}
