// A trace file's own database: where it lives, when it is used again, and what is never replaced.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "StoreAccess.h"
#include "tracelight/import/Import.h"
#include "tracelight/import/TraceFileDatabase.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {
namespace {

namespace fs = std::filesystem;

struct Folder {
    fs::path path = fs::temp_directory_path() / ("tl-tracefile-" + std::to_string(::getpid()) + "-" +
                                                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
    Folder() { fs::create_directories(path); }
    ~Folder() {
        std::error_code ec;
        fs::permissions(path, fs::perms::owner_all, ec);
        fs::remove_all(path, ec);
    }
};

void writeJaeger(const fs::path& file, int traces) {
    std::ofstream out(file);
    out << R"({"data":[)";
    for (int t = 0; t < traces; ++t)
        out << (t ? "," : "") << R"({"traceID":"t)" << t << R"(","spans":[{"traceID":"t)" << t
            << R"(","spanID":"1","operationName":"GET /","references":[],"startTime":)" << 1700000000000000 + t * 1000000
            << R"(,"duration":500,"processID":"p","tags":[],"logs":[]}],"processes":{"p":{"serviceName":"web","tags":[]}}})";
    out << "]}";
}

void importInto(const std::string& db, const std::string& trace) {
    auto store = TraceStore::open(db, TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    ImportOptions options;
    options.inputs = {trace};
    ASSERT_TRUE(importTraces(*store.value(), options));
}

TEST(TraceFileDatabase, LivesBesideItsFileAndIsUsedWhileTheFileIsUnchanged) {
    Folder dir;
    const std::string trace = (dir.path / "shop.json").string();
    writeJaeger(trace, 2);
    EXPECT_FALSE(looksLikeDatabase(trace));
    auto first = traceFileDatabase(trace, (dir.path / "cache").string());
    ASSERT_TRUE(first) << first.message();
    EXPECT_EQ(first->path, trace + ".tldb");
    EXPECT_FALSE(first->current);  // nothing imported yet
    importInto(first->path, trace);
    EXPECT_TRUE(looksLikeDatabase(first->path));
    auto again = traceFileDatabase(trace, (dir.path / "cache").string());
    ASSERT_TRUE(again);
    EXPECT_TRUE(again->current);
    EXPECT_TRUE(fs::exists(again->path));

    // The file changed after its import: stale, removed for a fresh import.
    fs::last_write_time(trace, fs::last_write_time(again->path) + std::chrono::seconds(60));
    auto stale = traceFileDatabase(trace, (dir.path / "cache").string());
    ASSERT_TRUE(stale);
    EXPECT_FALSE(stale->current);
    EXPECT_FALSE(fs::exists(stale->path));
}

// What an older Tracelight wrote for the file: the same database at schema version 12.
void makeSchema12(const std::string& db) {
    sqlite3* handle = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(handle, test::StoreAccess::kUndoSchema13, nullptr, nullptr, &err),
              SQLITE_OK)
        << (err ? err : "");
    sqlite3_close(handle);
}

TEST(TraceFileDatabase, OneAnOlderVersionWroteForTheFileIsUpgradedNotRefused) {
    Folder dir;
    const std::string trace = (dir.path / "shop.json").string();
    writeJaeger(trace, 1);
    importInto(trace + ".tldb", trace);
    makeSchema12(trace + ".tldb");
    fs::last_write_time(trace + ".tldb", fs::last_write_time(trace) + std::chrono::seconds(60));
    auto reused = traceFileDatabase(trace, (dir.path / "cache").string());
    ASSERT_TRUE(reused) << reused.message();
    EXPECT_TRUE(reused->current);

    // Older and stale (the file changed after it): replaced, though reading it upgraded it.
    makeSchema12(trace + ".tldb");
    fs::last_write_time(trace, fs::last_write_time(trace + ".tldb") + std::chrono::seconds(60));
    auto stale = traceFileDatabase(trace, (dir.path / "cache").string());
    ASSERT_TRUE(stale) << stale.message();
    EXPECT_FALSE(stale->current);
    EXPECT_FALSE(fs::exists(stale->path));
}

TEST(TraceFileDatabase, ADatabaseHoldingOtherDataIsNeverReplaced) {
    Folder dir;
    const std::string trace = (dir.path / "shop.json").string(), other = (dir.path / "other.json").string();
    writeJaeger(trace, 1);
    writeJaeger(other, 1);
    importInto(trace + ".tldb", other);  // shop.json.tldb holds other.json's requests
    auto refused = traceFileDatabase(trace, (dir.path / "cache").string());
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.message().find("holds other data"), std::string::npos) << refused.message();
    EXPECT_TRUE(fs::exists(trace + ".tldb"));
}

TEST(TraceFileDatabase, AFileInAReadOnlyFolderGetsADatabaseInTheCache) {
    if (::geteuid() == 0) GTEST_SKIP() << "root writes to read-only folders";
    Folder dir;
    const fs::path locked = dir.path / "locked";
    fs::create_directories(locked);
    const std::string trace = (locked / "shop.json").string();
    writeJaeger(trace, 1);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    const std::string cache = (dir.path / "cache").string();
    const std::string db = databaseForTraceFile(trace, cache);
    EXPECT_EQ(fs::path(db).parent_path(), fs::path(cache));
    EXPECT_EQ(db, databaseForTraceFile(trace, cache));  // the same name every time
    EXPECT_NE(db, databaseForTraceFile((locked / "other.json").string(), cache));
}

TEST(TraceFileDatabase, TheCacheFolderFollowsXdg) {
    Folder dir;
    const char* saved = std::getenv("XDG_CACHE_HOME");
    const std::string before = saved ? saved : "";
    ::setenv("XDG_CACHE_HOME", dir.path.c_str(), 1);
    const std::string folder = traceCacheFolder();
    if (saved) ::setenv("XDG_CACHE_HOME", before.c_str(), 1);
    else ::unsetenv("XDG_CACHE_HOME");
    EXPECT_EQ(fs::path(folder), dir.path / "tracelight" / "traces");
    EXPECT_TRUE(fs::is_directory(folder));
}

} // namespace
} // namespace tracelight
