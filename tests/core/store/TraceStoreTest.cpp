#include <grp.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <thread>

#include "DamagedFiles.h"
#include "StoreAccess.h"
#include "TestUtil.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/NewDatabaseGuard.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/SpanReads.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/store/Periods.h"
#include "tracelight/store/ResultCache.h"

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
    ASSERT_TRUE(putResult(s, "model", 1, "floor=5", "{\"x\":1}"));
    EXPECT_EQ(cachedResult(s, "model", 1, "floor=5").value_or(""), "{\"x\":1}");
    EXPECT_FALSE(cachedResult(s, "model", 2, "floor=5"));  // another analysis version: stale
    EXPECT_FALSE(cachedResult(s, "model", 1, "floor=6"));  // other parameters: stale
    EXPECT_FALSE(cachedResult(s, "other", 1, "floor=5"));
}

namespace {

// Runs fn as an unprivileged user (root ignores file permissions, so read-only files would not be read-only
// to it): in a forked child that drops to nobody when we are root, else directly. Returns what fn returns.
std::string asUnprivileged(const std::function<std::string()>& fn) {
    if (::geteuid() != 0) return fn();
    int fds[2];
    if (::pipe(fds) != 0) return "pipe failed";
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(fds[0]);
        std::string out = (::setgroups(0, nullptr) == 0 && ::setgid(65534) == 0 && ::setuid(65534) == 0)
                              ? fn() : std::string("cannot drop privileges");
        [[maybe_unused]] auto written = ::write(fds[1], out.data(), out.size());
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string out;
    char buf[512];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
    ::close(fds[0]);
    ::waitpid(child, nullptr, 0);
    return out;
}

std::string openMessage(const std::string& path, TraceStore::Mode mode) {
    auto store = TraceStore::open(path, mode);
    if (!store) return "error: " + store.message();
    auto info = store.value()->info();
    return info ? "ok: " + std::to_string(info->requests) + " requests" : "error: " + info.message();
}

// A database with enough events for its events table to span several pages.
std::string makeDatabase(const test::ScratchDir& dir, const std::string& name) {
    const std::string path = dir.file(name);
    {
        auto store = TraceStore::open(path, TraceStore::Mode::Create);
        EXPECT_TRUE(store) << store.message();
        sqlite3* db = test::StoreAccess::db(*store.value());
        sqlite3_exec(db,
                     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 20000) "
                     "INSERT INTO events(request_id, task_id, ord, event_id, host_id, ts_ns) "
                     "SELECT i / 10, 1, i, 2, 3, i * 1500 FROM n",
                     nullptr, nullptr, nullptr);
    }
    return path;
}

// A database whose `table` (the events unless named) has a damaged root page; its page number through `page`.
std::string damagedDatabase(const test::ScratchDir& dir, const std::string& name, std::int64_t& page,
                                  const char* table = "events") {
    const std::string path = makeDatabase(dir, name);
    page = test::rootPage(path, table);
    EXPECT_GT(page, 1);
    test::corruptPage(path, page);
    return path;
}

// begin() refuses the damaged file, naming it and the page, with the same verdict every time.
void expectWritesRefused(TraceStore& store, const std::string& path, std::int64_t page) {
    for (int attempt = 0; attempt < 2; ++attempt) {
        const Status began = store.begin();
        ASSERT_FALSE(began) << "a damaged file was opened for writing";
        EXPECT_NE(began.message().find(path + ": database disk image is malformed"), std::string::npos) << began.message();
        EXPECT_NE(began.message().find("Page " + std::to_string(page)), std::string::npos) << began.message();
    }
}

} // namespace

TEST(TraceStore, ReadOnlyFileIsReportedAsReadOnly) {
    test::ScratchDir dir;
    const std::string path = makeDatabase(dir, "ro.tldb");
    std::filesystem::permissions(dir.file(""), std::filesystem::perms::all);  // the directory stays writable
    std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::group_read |
                                           std::filesystem::perms::others_read);
    const std::string write = asUnprivileged([&] { return openMessage(path, TraceStore::Mode::ReadWrite); });
    EXPECT_EQ(write.find("not a Tracelight database"), std::string::npos) << write;
    EXPECT_NE(write.find(path + ": read-only file"), std::string::npos) << write;
    const std::string read = asUnprivileged([&] { return openMessage(path, TraceStore::Mode::ReadOnly); });
    EXPECT_EQ(read, "ok: 0 requests");
}

TEST(TraceStore, DatabaseInReadOnlyDirectoryIsReportedAsSuchAndStillReadable) {
    test::ScratchDir dir;
    const std::string path = makeDatabase(dir, "in-ro-dir.tldb");
    std::filesystem::permissions(path, std::filesystem::perms::all);
    std::filesystem::permissions(dir.file(""), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec |
                                                   std::filesystem::perms::others_read | std::filesystem::perms::others_exec);
    const std::string write = asUnprivileged([&] { return openMessage(path, TraceStore::Mode::ReadWrite); });
    EXPECT_EQ(write.find("not a Tracelight database"), std::string::npos) << write;
    EXPECT_NE(write.find("read-only directory"), std::string::npos) << write;
    EXPECT_NE(write.find(path), std::string::npos) << write;
    // Reading needs no -wal or -shm beside it.
    const std::string read = asUnprivileged([&] { return openMessage(path, TraceStore::Mode::ReadOnly); });
    EXPECT_EQ(read, "ok: 0 requests");
    std::filesystem::permissions(dir.file(""), std::filesystem::perms::all);
}

TEST(TraceStore, CorruptedSchemaPageIsReportedAsMalformed) {
    test::ScratchDir dir;
    const std::string path = makeDatabase(dir, "bad-page1.tldb");
    test::corruptPage(path, 1);
    for (auto mode : {TraceStore::Mode::ReadOnly, TraceStore::Mode::ReadWrite}) {
        auto store = TraceStore::open(path, mode);
        ASSERT_FALSE(store);
        EXPECT_NE(store.message().find(path + ": database disk image is malformed"), std::string::npos) << store.message();
    }
}

TEST(TraceStore, CorruptedDataPageIsRefusedForWriting) {
    test::ScratchDir dir;
    std::int64_t page = 0;
    const std::string path = damagedDatabase(dir, "bad-events.tldb", page);
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_FALSE(store) << "a page that fails PRAGMA quick_check was accepted for writing";
    EXPECT_NE(store.message().find(path + ": database disk image is malformed"), std::string::npos) << store.message();
    EXPECT_EQ(store.message().find('\n'), std::string::npos) << "one line: " << store.message();
    EXPECT_NE(store.message().find("Page " + std::to_string(page)), std::string::npos) << store.message();
}

// A writer that checks the file in the background (analyze: it reads first) opens a damaged file, but
// nothing it writes reaches it: begin() fails with the check's verdict, and a write without begin()
// (an autocommit INSERT) is rolled back at its commit.
TEST(TraceStore, BackgroundCheckRefusesEveryWriteToADamagedFile) {
    test::ScratchDir dir;
    std::int64_t page = 0;
    const std::string path = damagedDatabase(dir, "bad-later.tldb", page);
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite, TraceStore::WriteCheck::InBackground);
    ASSERT_TRUE(store) << store.message();
    expectWritesRefused(*store.value(), path, page);
    EXPECT_FALSE(putResult(*store.value(), "probe", 1, "", "written"));
    store.value().reset();
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* q = nullptr;
    sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM results", -1, &q, nullptr);
    ASSERT_EQ(sqlite3_step(q), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int64(q, 0), 0) << "a write reached the damaged file";
    sqlite3_finalize(q);
    sqlite3_close(db);
}

// analyze's check leaves the events table to analyze's own read of every event: after that read a write
// waits for the check of every other table; without it, the events table is checked before the write.
TEST(TraceStore, ACheckBesideAFullReadLeavesOnlyTheEventsToThatRead) {
    test::ScratchDir dir;
    std::int64_t eventsPage = 0;
    const std::string badEvents = damagedDatabase(dir, "bad-events.tldb", eventsPage);
    {
        auto store = TraceStore::open(badEvents, TraceStore::Mode::ReadWrite, TraceStore::WriteCheck::BesideFullRead);
        ASSERT_TRUE(store) << store.message();
        expectWritesRefused(*store.value(), badEvents, eventsPage);  // no full read was noted
        EXPECT_FALSE(putResult(*store.value(), "probe", 1, "", "written"));
        // A full read noted after that verdict does not undo it.
        store.value()->noteEventsReadInFull();
        expectWritesRefused(*store.value(), badEvents, eventsPage);
    }
    {
        // The same file when the job says it read every event: the background check did not look at them
        // (the read would have failed on that page; here nothing read it).
        auto store = TraceStore::open(badEvents, TraceStore::Mode::ReadWrite, TraceStore::WriteCheck::BesideFullRead);
        ASSERT_TRUE(store) << store.message();
        store.value()->noteEventsReadInFull();
        ASSERT_TRUE(store.value()->begin());
        store.value()->rollback();
    }
    std::int64_t labelsPage = 0;
    const std::string badLabels = damagedDatabase(dir, "bad-labels.tldb", labelsPage, "labels");
    auto store = TraceStore::open(badLabels, TraceStore::Mode::ReadWrite, TraceStore::WriteCheck::BesideFullRead);
    ASSERT_TRUE(store) << store.message();
    store.value()->noteEventsReadInFull();
    expectWritesRefused(*store.value(), badLabels, labelsPage);  // a table other than events
    // A table analyze neither reads nor writes is left to the whole file's check (info --check, the app's
    // check, a write without a full read): the analysis's write cannot reach it.
    std::int64_t membersPage = 0;
    const std::string badPeriods = damagedDatabase(dir, "bad-periods.tldb", membersPage, "period_members");
    {
        auto beside = TraceStore::open(badPeriods, TraceStore::Mode::ReadWrite, TraceStore::WriteCheck::BesideFullRead);
        ASSERT_TRUE(beside) << beside.message();
        beside.value()->noteEventsReadInFull();
        EXPECT_TRUE(putResult(*beside.value(), "probe", 1, "", "written"));
    }
    auto beside = TraceStore::open(badPeriods, TraceStore::Mode::ReadWrite, TraceStore::WriteCheck::BesideFullRead);
    ASSERT_TRUE(beside) << beside.message();
    expectWritesRefused(*beside.value(), badPeriods, membersPage);  // no full read: the whole file
}

// On a sound file the background check lets writes through, and a store closed while its check still
// runs does not wait for the whole check.
TEST(TraceStore, BackgroundCheckPassesASoundFile) {
    test::ScratchDir dir;
    const std::string path = makeDatabase(dir, "sound.tldb");
    {
        auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite, TraceStore::WriteCheck::InBackground);
        ASSERT_TRUE(store) << store.message();
        ASSERT_TRUE(putResult(*store.value(), "probe", 1, "", "written"));
        ASSERT_TRUE(store.value()->begin());
        ASSERT_TRUE(putResult(*store.value(), "probe2", 1, "", "written"));
        ASSERT_TRUE(store.value()->commit());
    }
    auto reader = TraceStore::open(path, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(reader);
    EXPECT_EQ(cachedResult(*reader.value(), "probe", 1, ""), "written");
    EXPECT_EQ(cachedResult(*reader.value(), "probe2", 1, ""), "written");
    auto closedAtOnce = TraceStore::open(path, TraceStore::Mode::ReadWrite, TraceStore::WriteCheck::InBackground);
    ASSERT_TRUE(closedAtOnce);
}

TEST(TraceStore, LockedDatabaseSaysAnotherProcessHoldsIt) {
    test::ScratchDir dir;
    const std::string path = makeDatabase(dir, "locked.tldb");
    sqlite3* other = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(store) << store.message();  // reading goes on while another writes
    const Status s = store.value()->begin();
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find(path + ": database is locked"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("another process"), std::string::npos) << s.message();
    sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(other);
}

namespace {
// The schema as version 3 wrote it (microseconds as REAL), to check the upgrade path.
constexpr const char* kVersion3Schema = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE labels(id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
CREATE TABLE label_roles(label_id INTEGER NOT NULL, role INTEGER NOT NULL, PRIMARY KEY(label_id, role)) WITHOUT ROWID;
CREATE TABLE periods(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE imports(id INTEGER PRIMARY KEY, started_utc TEXT NOT NULL, format TEXT NOT NULL, inputs TEXT NOT NULL,
                     period_id INTEGER NOT NULL, requests INTEGER NOT NULL, events INTEGER NOT NULL, warnings INTEGER NOT NULL);
CREATE TABLE requests(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, period_id INTEGER NOT NULL, import_id INTEGER NOT NULL,
  event_count INTEGER NOT NULL DEFAULT 0, task_count INTEGER NOT NULL DEFAULT 0, host_count INTEGER NOT NULL DEFAULT 0,
  start_local_us REAL, latency_local_us REAL, start_us REAL, latency_us REAL);
CREATE INDEX requests_by_period ON requests(period_id);
CREATE TABLE events(request_id INTEGER NOT NULL, task_id INTEGER NOT NULL, ord INTEGER NOT NULL, event_id INTEGER NOT NULL,
  host_id INTEGER NOT NULL, ts_local_us REAL NOT NULL, ts_adjusted_us REAL, PRIMARY KEY(request_id, task_id, ord)) WITHOUT ROWID;
CREATE TABLE request_attrs(request_id INTEGER NOT NULL, key_id INTEGER NOT NULL, value_id INTEGER NOT NULL,
                           PRIMARY KEY(request_id, key_id)) WITHOUT ROWID;
CREATE TABLE event_attrs(request_id INTEGER NOT NULL, task_id INTEGER NOT NULL, ord INTEGER NOT NULL,
                         key_id INTEGER NOT NULL, value_id INTEGER NOT NULL, PRIMARY KEY(request_id, task_id, ord, key_id)) WITHOUT ROWID;
CREATE TABLE results(name TEXT PRIMARY KEY, analysis_version INTEGER NOT NULL, params TEXT NOT NULL, created_utc TEXT NOT NULL, data BLOB);
CREATE TABLE clock_offsets(host_id INTEGER PRIMARY KEY, offset_us REAL NOT NULL, parent_host_id INTEGER, rtt_us REAL);
CREATE TABLE request_analysis(request_id INTEGER PRIMARY KEY, latency_us REAL NOT NULL, blind_us REAL NOT NULL, data BLOB NOT NULL);
CREATE TABLE causal_links(request_id INTEGER NOT NULL, from_task_id INTEGER NOT NULL, from_ord INTEGER NOT NULL,
                          to_task_id INTEGER NOT NULL, to_ord INTEGER NOT NULL);
CREATE INDEX causal_links_by_request ON causal_links(request_id);
CREATE TABLE import_warnings(request_id INTEGER NOT NULL, message TEXT NOT NULL);
CREATE INDEX import_warnings_by_request ON import_warnings(request_id);
PRAGMA application_id=1414284354;
INSERT INTO meta VALUES('schema_version', '3'), ('created_utc', '2026-01-01T00:00:00Z');
INSERT INTO labels VALUES(1, 'h'), (2, 't'), (3, 'A'), (4, 'B');
INSERT INTO periods VALUES(1, 'p');
INSERT INTO imports VALUES(1, '2026-01-01T00:00:00Z', 'events-csv', 'x.csv', 1, 1, 2, 0);
INSERT INTO requests VALUES(1, 'r', 1, 1, 2, 1, 1, 1700000000123456.75, 2.5, 1700000000123456.75, 2.5);
INSERT INTO events VALUES(1, 2, 0, 3, 1, 1700000000123456.75, 1700000000123456.75), (1, 2, 1, 4, 1, 1700000000123459.25, 1700000000123459.25);
INSERT INTO clock_offsets VALUES(1, 0, NULL, NULL);
INSERT INTO request_analysis VALUES(1, 2.5, 0, x'00');
INSERT INTO results VALUES('model', 1, 'support_floor=2;imports=1', '2026-01-01T00:00:00Z', x'00');
)sql";

std::vector<std::string> columnsOf(sqlite3* db, const std::string& table) {
    std::vector<std::string> out;
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, ("SELECT name FROM pragma_table_info('" + table + "')").c_str(), -1, &st, nullptr);
    while (sqlite3_step(st) == SQLITE_ROW) out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    sqlite3_finalize(st);
    return out;
}
} // namespace

TEST(TraceStore, UpgradesVersion3ToIntegerNanoseconds) {
    test::ScratchDir dir;
    const std::string path = dir.file("v3.tldb");
    {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        char* err = nullptr;
        ASSERT_EQ(sqlite3_exec(db, kVersion3Schema, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
        sqlite3_close(db);
    }
    // Read-only cannot upgrade; writing can, once.
    EXPECT_FALSE(TraceStore::open(path, TraceStore::Mode::ReadOnly));
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(store) << store.message();
    EXPECT_EQ(store.value()->schemaVersion(), TraceStore::kSchemaVersion);
    sqlite3* db = test::StoreAccess::db(*store.value());
    // Version 5: an event-log import's requests are not from spans; per host pair skew decisions have a table.
    EXPECT_TRUE(spanRequestIds(*store.value()).empty());
    EXPECT_EQ(columnsOf(db, "clock_pairs"), (std::vector<std::string>{"client_host_id", "server_host_id", "offset_ns", "rtt_ns",
                                                                     "round_trips", "outside", "rule", "applied"}));
    const auto events = columnsOf(db, "events");
    EXPECT_EQ(events, (std::vector<std::string>{"request_id", "task_id", "ord", "event_id", "host_id", "ts_ns"}));
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, "SELECT ts_ns, typeof(ts_ns) FROM events ORDER BY ord", -1, &st, nullptr);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int64(st, 0), 1700000000123456750);
    EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 1)), "integer");
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int64(st, 0), 1700000000123459250);
    sqlite3_finalize(st);
    sqlite3_prepare_v2(db, "SELECT start_local_ns, latency_local_ns, start_ns, latency_ns FROM requests", -1, &st, nullptr);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int64(st, 0), 1700000000123456750);
    EXPECT_EQ(sqlite3_column_int64(st, 1), 2500);
    EXPECT_EQ(sqlite3_column_type(st, 2), SQLITE_NULL) << "analysed times are recomputed";
    sqlite3_finalize(st);
    EXPECT_EQ(columnsOf(db, "clock_offsets"), (std::vector<std::string>{"host_id", "offset_ns", "parent_host_id", "rtt_ns"}));
    EXPECT_EQ(columnsOf(db, "request_analysis"), (std::vector<std::string>{"request_id", "latency_ns", "blind_ns", "data"}));
    auto info = store.value()->info();
    ASSERT_TRUE(info);
    EXPECT_EQ(info->requests, 1);
    EXPECT_EQ(info->events, 2);
    store.value().reset();
    // Upgraded once: it opens read-only now.
    EXPECT_TRUE(TraceStore::open(path, TraceStore::Mode::ReadOnly));
}

// A failed import into a new path leaves nothing behind, in the CLI and in the app alike (the app's import
// left an empty database file): the guard removes what was created, and never a file that existed.
TEST(NewDatabaseGuard, RemovesOnlyWhatTheFailedImportCreated) {
    test::ScratchDir dir;
    const std::string fresh = dir.file("fresh.tldb");
    {
        NewDatabaseGuard guard(fresh);
        auto store = TraceStore::open(fresh, TraceStore::Mode::Create);
        ASSERT_TRUE(store) << store.message();
    }
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) EXPECT_FALSE(std::filesystem::exists(fresh + suffix)) << suffix;
    {
        NewDatabaseGuard guard(fresh);
        ASSERT_TRUE(TraceStore::open(fresh, TraceStore::Mode::Create));
        guard.keep();
    }
    EXPECT_TRUE(std::filesystem::exists(fresh));
    {
        NewDatabaseGuard guard(fresh);  // it exists now: a failure must not remove it
    }
    EXPECT_TRUE(std::filesystem::exists(fresh));
}

// Version 6 adds the span tree; a version 5 database (made here by taking a new one back to 5) is
// upgraded once for writing, keeps its events, and simply has no spans.
TEST(TraceStore, UpgradesVersion5WithTablesForTheSpanTree) {
    test::ScratchDir dir;
    const std::string path = dir.file("v5.tldb");
    {
        auto store = TraceStore::open(path, TraceStore::Mode::Create);
        ASSERT_TRUE(store) << store.message();
        char* err = nullptr;
        ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(*store.value()),
                               (std::string(test::StoreAccess::kUndoSchema13) +
                               "DROP TABLE request_spans; DROP TABLE spans; DROP TABLE span_attrs; DROP TABLE span_events; DROP TABLE span_links; "
                               "DROP VIEW label_text; DROP TABLE label_occurrences; "
                               "DROP TRIGGER requests_join_batch; DROP TRIGGER requests_leave_periods; "
                               "DROP TABLE period_members; ALTER TABLE periods DROP COLUMN definition; "
                               "INSERT INTO labels(id, text) VALUES(1, 'h'); "
                               "INSERT INTO periods(id, name) VALUES(1, 'p'); "
                               "INSERT INTO requests(id, name, period_id, import_id) VALUES(1, 'r1', 1, 0); "
                               "UPDATE meta SET value='5' WHERE key='schema_version'").c_str(),
                               nullptr, nullptr, &err),
                  SQLITE_OK)
            << (err ? err : "");
    }
    EXPECT_FALSE(TraceStore::open(path, TraceStore::Mode::ReadOnly));
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(store) << store.message();
    EXPECT_EQ(store.value()->schemaVersion(), TraceStore::kSchemaVersion);
    sqlite3* db = test::StoreAccess::db(*store.value());
    EXPECT_EQ(columnsOf(db, "spans"), (std::vector<std::string>{"request_id", "idx", "span_id", "parent", "service_id",
                                                               "operation_id", "host_id", "kind_id", "start_ns", "end_ns",
                                                               "task_id", "start_ord", "end_ord", "detached", "caller",
                                                               "event_host_id", "enter_id", "leave_id", "process_id", "tags",
                                                               "events", "links"}));
    EXPECT_EQ(columnsOf(db, "process_attrs"), (std::vector<std::string>{"process_id", "pos", "key_id", "value_id"}));
    for (const char* gone : {"span_attrs", "span_events", "span_links"}) EXPECT_TRUE(columnsOf(db, gone).empty()) << gone;
    EXPECT_TRUE(requestSpans(*store.value(), RequestId(1)).empty());
    EXPECT_TRUE(scanSpans(*store.value(), [](RequestId, const RequestSpans&) { return false; }));
    EXPECT_EQ(requestByName(*store.value(), "r1"), RequestId(1));
}

// Version 13 stores a span request once, as its spans, and derives its events when read. A span request
// of version 12 (made here by taking a new database back) keeps the events, links and event attributes it
// stored, and reads them from their tables.
TEST(TraceStore, UpgradesVersion12KeepingTheStoredEventsOfSpanRequests) {
    test::ScratchDir dir;
    const std::string path = dir.file("v12.tldb");
    {
        auto store = TraceStore::open(path, TraceStore::Mode::Create);
        ASSERT_TRUE(store) << store.message();
        char* err = nullptr;
        ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(*store.value()),
                               (std::string(test::StoreAccess::kUndoSchema13) +
                               "INSERT INTO labels(id, text) VALUES(1, 'h'), (2, 'web:GET'), (3, 'start'), (4, 'end'), (5, 'k'), (6, 'v'), (7, 'w'); "
                               "INSERT INTO periods(id, name) VALUES(1, 'p'); "
                               "INSERT INTO requests(id, name, period_id, import_id, from_spans, event_count) VALUES(1, 't1', 1, 0, 1, 2); "
                               "INSERT INTO events VALUES(1, 2, 1, 3, 1, 1000), (1, 2, 2, 4, 1, 5000); "
                               "INSERT INTO causal_links VALUES(1, 2, 1, 2, 2); "
                               "INSERT INTO request_attrs VALUES(1, 5, 6); INSERT INTO event_attrs VALUES(1, 2, 2, 5, 7); "
                               "INSERT INTO spans(request_id, idx, span_id, parent, service_id, operation_id, host_id, kind_id, start_ns, "
                               "end_ns, task_id, start_ord, end_ord) VALUES(1, 0, 'a', -1, 1, 1, 1, 1, 1000, 5000, 2, 1, 2)").c_str(),
                               nullptr, nullptr, &err),
                  SQLITE_OK)
            << (err ? err : "");
    }
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(store) << store.message();
    EXPECT_EQ(store.value()->schemaVersion(), TraceStore::kSchemaVersion);
    std::vector<std::int64_t> times;
    ASSERT_TRUE(store.value()->scanRequestEvents(RequestId(1), [&](const EventRow& e) { times.push_back(e.localNs); }));
    EXPECT_EQ(times, (std::vector<std::int64_t>{1000, 5000}));
    times.clear();
    ASSERT_TRUE(store.value()->scanEvents([&](const EventRow& e) { return times.push_back(e.localNs), true; }));
    EXPECT_EQ(times, (std::vector<std::int64_t>{1000, 5000}));
    auto links = store.value()->causalLinks(RequestId(1));
    ASSERT_TRUE(links);
    ASSERT_EQ(links->size(), 1u);
    EXPECT_EQ(links->front().toOrd, 2);
    const auto attributes = eventAttributes(*store.value(), RequestId(1));
    ASSERT_EQ(attributes.size(), 1u);
    EXPECT_EQ(attributes[0].event, "end");
    EXPECT_EQ(attributes[0].value, "w");
}

// ---- periods as named sets of requests (schema 7) ----

namespace {

// Three requests in import batch 'p' (starts 1000, 2000 (local only), 3000 µs) with attribute 'region'.
void fillPeriods(TraceStore& store) {
    char* err = nullptr;
    ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(store),
                           "INSERT INTO labels(id, text) VALUES(1, 'region'), (2, '9'), (3, '10'), (4, 'eu'); "
                           "INSERT INTO periods(id, name) VALUES(1, 'p'); "
                           "INSERT INTO requests(id, name, period_id, import_id, start_ns) VALUES(1, 'r1', 1, 0, 1000000); "
                           "INSERT INTO requests(id, name, period_id, import_id, start_local_ns) VALUES(2, 'r2', 1, 0, 2000000); "
                           "INSERT INTO requests(id, name, period_id, import_id, start_ns, start_local_ns) "
                           "  VALUES(3, 'r3', 1, 0, 3000000, 1); "
                           "INSERT INTO request_attrs(request_id, key_id, value_id) VALUES(1, 1, 2), (2, 1, 3), (3, 1, 4);",
                           nullptr, nullptr, &err),
              SQLITE_OK)
        << (err ? err : "");
}

} // namespace

TEST(TraceStore, UpgradesVersion6WithPeriodMembershipFromTheImportBatch) {
    test::ScratchDir dir;
    const std::string path = dir.file("v6.tldb");
    {
        auto store = TraceStore::open(path, TraceStore::Mode::Create);
        ASSERT_TRUE(store) << store.message();
        char* err = nullptr;
        ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(*store.value()),
                               (std::string(test::StoreAccess::kUndoSchema13) +
                               "DROP TABLE request_spans; ALTER TABLE spans DROP COLUMN caller; ALTER TABLE spans DROP COLUMN detached; "
                               "ALTER TABLE span_attrs DROP COLUMN process; DROP VIEW label_text; DROP TABLE label_occurrences; "
                               "DROP TRIGGER requests_join_batch; DROP TRIGGER requests_leave_periods; "
                               "DROP TABLE period_members; ALTER TABLE periods DROP COLUMN definition; "
                               "INSERT INTO periods(id, name) VALUES(1, 'p'), (2, 'q'); "
                               "INSERT INTO requests(id, name, period_id, import_id) VALUES(1, 'r1', 1, 0), (2, 'r2', 2, 0), "
                               "(3, 'r3', 2, 0); "
                               "UPDATE meta SET value='6' WHERE key='schema_version'").c_str(),
                               nullptr, nullptr, &err),
                  SQLITE_OK)
            << (err ? err : "");
    }
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(store) << store.message();
    EXPECT_EQ(store.value()->schemaVersion(), TraceStore::kSchemaVersion);
    EXPECT_EQ(columnsOf(test::StoreAccess::db(*store.value()), "period_members"),
              (std::vector<std::string>{"period_id", "request_id"}));
    EXPECT_EQ(requestsInPeriod(*store.value(), "p"), (std::vector<RequestId>{RequestId(1)}));
    EXPECT_EQ(requestsInPeriod(*store.value(), "q"), (std::vector<RequestId>{RequestId(2), RequestId(3)}));
    const auto periods = listPeriods(*store.value());
    ASSERT_EQ(periods.size(), 2u);
    EXPECT_EQ(periods[1].requests, 2);
    EXPECT_EQ(periods[1].definition, "import batch");
}

TEST(TraceStore, PeriodByTimeRangeUsesAnalysedElseLocalStart) {
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("t.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    fillPeriods(*store.value());
    EXPECT_EQ(requestsInPeriod(*store.value(), "p").size(), 3u);  // the trigger made them batch members
    auto n = addPeriodByTime(*store.value(), "early", 1000000, 3000000);
    ASSERT_TRUE(n) << n.message();
    EXPECT_EQ(n.value(), 2);
    EXPECT_EQ(requestsInPeriod(*store.value(), "early"), (std::vector<RequestId>{RequestId(1), RequestId(2)}));
    EXPECT_FALSE(addPeriodByTime(*store.value(), "early", 0, 10));            // duplicate name
    EXPECT_FALSE(addPeriodByTime(*store.value(), "backwards", 3000000, 10));  // empty range
    EXPECT_EQ(requestsInPeriod(*store.value(), "p").size(), 3u);  // a request belongs to several periods
}

TEST(TraceStore, PeriodByAttributeComparesNumbersNumericallyElseAsText) {
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("a.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    fillPeriods(*store.value());
    auto lt = addPeriodWhere(*store.value(), "small", "region < 10");  // 9 < 10 numerically, not as text
    ASSERT_TRUE(lt) << lt.message();
    EXPECT_EQ(requestsInPeriod(*store.value(), "small"), (std::vector<RequestId>{RequestId(1)}));
    ASSERT_TRUE(addPeriodWhere(*store.value(), "eu", "region=eu"));
    EXPECT_EQ(requestsInPeriod(*store.value(), "eu"), (std::vector<RequestId>{RequestId(3)}));
    ASSERT_TRUE(addPeriodWhere(*store.value(), "not-eu", "region != eu"));
    EXPECT_EQ(requestsInPeriod(*store.value(), "not-eu"), (std::vector<RequestId>{RequestId(1), RequestId(2)}));
    ASSERT_TRUE(addPeriodWhere(*store.value(), "big", "region > 9"));
    EXPECT_EQ(requestsInPeriod(*store.value(), "big"), (std::vector<RequestId>{RequestId(2), RequestId(3)}));
    auto bad = addPeriodWhere(*store.value(), "bad", "region");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.message().find("bad predicate"), std::string::npos);
    const auto periods = listPeriods(*store.value());
    ASSERT_EQ(periods.size(), 5u);
    EXPECT_EQ(periods[2].definition, "where region = eu");
}

// An attribute no request has is refused with a message naming it and the attributes there are, and nothing is
// stored: no empty period, no name taken. A known attribute that no request matches still makes a period.
TEST(TraceStore, PeriodWhereOnAnAttributeNoRequestHasIsRefused) {
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("u.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    fillPeriods(*store.value());
    const auto before = listPeriods(*store.value());
    auto typo = addPeriodWhere(*store.value(), "eu", "regoin = eu");
    ASSERT_FALSE(typo);
    EXPECT_NE(typo.message().find("no request has the attribute 'regoin'"), std::string::npos) << typo.message();
    EXPECT_NE(typo.message().find("attributes: region"), std::string::npos) << typo.message();
    EXPECT_EQ(listPeriods(*store.value()).size(), before.size());
    EXPECT_TRUE(addPeriodWhere(*store.value(), "eu", "region = eu"));  // the name was not taken
    auto filter = requestsWhere(*store.value(), "regoin = eu");        // the same language as a read-only filter
    ASSERT_FALSE(filter);
    EXPECT_NE(filter.message().find("'regoin'"), std::string::npos) << filter.message();
    auto none = addPeriodWhere(*store.value(), "nowhere", "region = mars");
    ASSERT_TRUE(none) << none.message();
    EXPECT_EQ(none.value(), 0);
}

TEST(TraceStore, RenamesAndDeletesPeriodsWithoutTouchingRequests) {
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("r.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    fillPeriods(*store.value());
    ASSERT_TRUE(addPeriodWhere(*store.value(), "eu", "region = eu"));
    EXPECT_TRUE(renamePeriod(*store.value(), "eu", "europe"));
    EXPECT_EQ(requestsInPeriod(*store.value(), "europe").size(), 1u);
    EXPECT_FALSE(renamePeriod(*store.value(), "nope", "x"));
    EXPECT_FALSE(renamePeriod(*store.value(), "europe", "p"));
    EXPECT_TRUE(deletePeriod(*store.value(), "europe"));
    EXPECT_FALSE(deletePeriod(*store.value(), "europe"));
    EXPECT_TRUE(deletePeriod(*store.value(), "p"));  // an import batch: only its name and membership go
    EXPECT_TRUE(listPeriods(*store.value()).empty());
    EXPECT_EQ(requestByName(*store.value(), "r2"), RequestId(2));
    EXPECT_EQ(store.value()->info().value().requests, 3);
}

// Imports keep their prepared statements with the connection (store/StatementCache.h): one connection
// importing again and again, some imports failing half way, gets every import right, and between imports
// no statement is left mid-step (one would hold a read transaction and its bindings).
TEST(TraceStore, ImportsAgainAndAgainThroughOneConnection) {
    test::ScratchDir dir;
    auto opened = TraceStore::open(dir.file("again.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(opened) << opened.message();
    TraceStore& store = *opened.value();
    sqlite3* db = test::StoreAccess::db(store);
    auto noStatementBusy = [&] {
        for (sqlite3_stmt* st = sqlite3_next_stmt(db, nullptr); st; st = sqlite3_next_stmt(db, st))
            if (sqlite3_stmt_busy(st)) return false;
        return sqlite3_get_autocommit(db) != 0;
    };
    std::int64_t imported = 0;
    for (int round = 0; round < 6; ++round) {
        ImportOptions options;
        options.format = InputFormat::EventsCsv;
        options.period = "round" + std::to_string(round);
        const bool bad = round % 2 == 1;  // a row with no timestamp, after good rows: fails in the middle
        std::string csv = "request,host,task,event,ts_us\n";
        for (int r = 0; r < 3; ++r)
            for (int e = 0; e < 4; ++e)
                csv += "q" + std::to_string(round) + "-" + std::to_string(r) + ",h" + std::to_string(e % 2) + ",main,E" +
                       std::to_string(e) + "," + std::to_string(1000 + 10 * e) + "\n";
        if (bad) csv += "q-bad,h0,main,E0,\n";
        options.inputs = {dir.write("round" + std::to_string(round) + ".csv", csv)};
        auto result = importTraces(store, options);
        EXPECT_EQ(bool(result), !bad) << (result ? "" : result.message());
        if (!bad) imported += 3;
        EXPECT_TRUE(noStatementBusy()) << "after round " << round;
        EXPECT_EQ(store.requestCount(), imported) << "after round " << round;
    }
    // What the imports wrote reads back through a second connection, so it reached the file.
    auto other = TraceStore::open(dir.file("again.tldb"), TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(other);
    auto info = other.value()->info();
    ASSERT_TRUE(info);
    EXPECT_EQ(info->requests, imported);
    EXPECT_EQ(info->events, imported * 4);
    EXPECT_EQ(info->periods.size(), 3u);
}

namespace tracelight {
namespace {

TEST(TraceStore, LabelTextsSpellTheWantedLabelsAsLabelsDoes) {
    // Three calls of one operation: occurrence labels "…#2", "…#3" beside plain ones.
    test::ScratchDir dir;
    {
        std::ofstream f(dir.file("t.json"));
        f << R"([{"traceId":"a1","id":"1","name":"get","timestamp":1000,"duration":900,"localEndpoint":{"serviceName":"front"}},)"
             R"({"traceId":"a1","id":"2","parentId":"1","name":"query","timestamp":1100,"duration":100,"localEndpoint":{"serviceName":"front"}},)"
             R"({"traceId":"a1","id":"3","parentId":"1","name":"query","timestamp":1300,"duration":100,"localEndpoint":{"serviceName":"front"}},)"
             R"({"traceId":"a1","id":"4","parentId":"1","name":"query","timestamp":1500,"duration":100,"localEndpoint":{"serviceName":"front"}}])";
    }
    auto store = TraceStore::open(dir.file("t.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    ImportOptions import;
    import.inputs = {dir.file("t.json")};
    ASSERT_TRUE(importTraces(*store.value(), import));
    // Every label as the store's view spells it: (id, text).
    std::vector<std::pair<std::uint32_t, std::string>> all;
    for (const std::string& row : test::StoreAccess::rows(*store.value(), "SELECT id, text FROM label_text")) {
        const auto bar = row.find('|');
        all.emplace_back(static_cast<std::uint32_t>(std::stoul(row.substr(0, bar))), row.substr(bar + 1));
    }
    std::uint32_t end = 0;
    for (const auto& [id, text] : all) end = std::max(end, id + 1);
    ASSERT_GT(end, 0u);
    // Every other id wanted, and one id past the last.
    std::vector<bool> wanted(end + 1, false);
    for (std::uint32_t id = 0; id <= end; id += 2) wanted[id] = true;
    const LabelTexts texts = store.value()->labelTexts(wanted);
    std::size_t occurrences = 0, checked = 0;
    for (const auto& [id, text] : all) {
        if (text.find('#') != std::string::npos) ++occurrences;
        if (wanted[id]) {
            EXPECT_EQ(texts.text(id), text) << id;
            ++checked;
        } else {
            EXPECT_EQ(texts.text(id), "") << id;
        }
    }
    EXPECT_GE(occurrences, 2u);
    EXPECT_GT(checked, 2u);
    EXPECT_EQ(texts.text(end), "");
    EXPECT_EQ(texts.text(end + 100), "");
}

} // namespace
} // namespace tracelight

namespace {
std::string journalMode(const TraceStore& store) {
    const auto rows = test::StoreAccess::rows(store, "PRAGMA journal_mode");
    return rows.empty() ? "?" : rows.front();
}
std::int64_t requestRows(const TraceStore& store) { return std::stoll(test::StoreAccess::rows(store, "SELECT COUNT(*) FROM requests").at(0)); }
// Rows added the way an import adds them: many pages' worth, with a request among them.
bool fill(const TraceStore& store) {
    return sqlite3_exec(test::StoreAccess::db(store),
                        "INSERT INTO requests(name, period_id, import_id, from_spans) VALUES('r1', 1, 1, 0);"
                        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 20000) "
                        "INSERT INTO events(request_id, task_id, ord, event_id, host_id, ts_ns) SELECT 1, 1, i, 2, 3, i * 1500 FROM n",
                        nullptr, nullptr, nullptr) == SQLITE_OK;
}
} // namespace

// Filling a store without requests writes in rollback-journal mode (no WAL file to copy the pages from
// again) and leaves the store in WAL mode, whether it commits or rolls back.
TEST(TraceStore, ABulkLoadOfAnEmptyStoreSkipsTheWalAndReturnsToIt) {
    test::ScratchDir dir;
    const std::string path = dir.file("bulk.tldb");
    auto store = TraceStore::open(path, TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    TraceStore& s = *store.value();
    ASSERT_EQ(journalMode(s), "wal");
    for (bool keep : {false, true}) {
        ASSERT_TRUE(s.beginBulkLoad());
        EXPECT_EQ(journalMode(s), "delete");
        ASSERT_TRUE(fill(s));
        EXPECT_FALSE(std::filesystem::exists(path + "-wal")) << "the pages went to a WAL";
        if (keep) ASSERT_TRUE(s.commit());
        else s.rollback();
        EXPECT_EQ(journalMode(s), "wal");
        EXPECT_EQ(requestRows(s), keep ? 1 : 0);
        EXPECT_FALSE(std::filesystem::exists(path + "-journal"));
    }
    // Now it holds a request: the next load keeps WAL mode, as any write does.
    ASSERT_TRUE(s.beginBulkLoad());
    EXPECT_EQ(journalMode(s), "wal");
    s.rollback();
    EXPECT_TRUE(s.quickCheck());
}

// A read inside another (loadAnalysis inside a caller's snapshot) ends with the outer one: what the outer
// reads after the inner one ended is still its snapshot, not a write committed meanwhile.
TEST(TraceStore, ANestedReadKeepsTheOuterSnapshot) {
    test::ScratchDir dir;
    const std::string path = dir.file("nested.tldb");
    auto store = TraceStore::open(path, TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    auto reader = TraceStore::open(path, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(reader) << reader.message();
    ASSERT_TRUE(reader.value()->beginRead());
    ASSERT_TRUE(reader.value()->beginRead());
    EXPECT_EQ(reader.value()->requestCount(), 0);
    reader.value()->endRead();
    EXPECT_TRUE(reader.value()->holdsReadSnapshot());
    ASSERT_TRUE(store.value()->beginBulkLoad());
    ASSERT_TRUE(fill(*store.value()));
    ASSERT_TRUE(store.value()->commit());
    EXPECT_EQ(reader.value()->requestCount(), 0) << "the outer snapshot";
    reader.value()->endRead();
    EXPECT_FALSE(reader.value()->holdsReadSnapshot());
    EXPECT_EQ(reader.value()->requestCount(), 1);
}

// With another connection on the file (a reader holding its snapshot) the load stays in WAL mode, and
// that reader still reads while it runs.
TEST(TraceStore, ABulkLoadBesideAReaderStaysInWalMode) {
    test::ScratchDir dir;
    const std::string path = dir.file("shared.tldb");
    auto store = TraceStore::open(path, TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    auto reader = TraceStore::open(path, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(reader) << reader.message();
    ASSERT_TRUE(reader.value()->beginRead());
    EXPECT_EQ(reader.value()->requestCount(), 0);
    ASSERT_TRUE(store.value()->beginBulkLoad());
    EXPECT_EQ(journalMode(*store.value()), "wal");
    ASSERT_TRUE(fill(*store.value()));
    ASSERT_TRUE(store.value()->commit());
    EXPECT_EQ(reader.value()->requestCount(), 0) << "the reader's snapshot";
    reader.value()->endRead();
    EXPECT_EQ(reader.value()->requestCount(), 1);
    EXPECT_EQ(journalMode(*store.value()), "wal");
}

// A process that dies in the middle of a load, after some of its pages reached the file, leaves a hot
// journal: the next open rolls it back to the empty store, which passes the check and takes a new load.
TEST(TraceStore, ABulkLoadCutShortByACrashIsRolledBackAtTheNextOpen) {
    test::ScratchDir dir;
    const std::string path = dir.file("crash.tldb");
    { ASSERT_TRUE(TraceStore::open(path, TraceStore::Mode::Create)); }
    const auto emptySize = std::filesystem::file_size(path);
    const pid_t child = ::fork();
    if (child == 0) {
        auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
        const bool loaded = store && store.value()->beginBulkLoad() && journalMode(*store.value()) == "delete" && fill(*store.value()) &&
                            sqlite3_db_cacheflush(test::StoreAccess::db(*store.value())) == SQLITE_OK;
        ::_exit(loaded ? 0 : 1);  // no commit, no rollback, no close
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child could not load";
    ASSERT_TRUE(std::filesystem::exists(path + "-journal")) << "no hot journal: the test did not crash mid-write";
    EXPECT_GT(std::filesystem::file_size(path), emptySize) << "no page reached the file before the crash";
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(store) << store.message();
    EXPECT_EQ(requestRows(*store.value()), 0);
    EXPECT_EQ(test::StoreAccess::rows(*store.value(), "SELECT COUNT(*) FROM events"), (std::vector<std::string>{"0"}));
    EXPECT_TRUE(store.value()->quickCheck());
    EXPECT_EQ(journalMode(*store.value()), "wal");
    ASSERT_TRUE(store.value()->beginBulkLoad());
    ASSERT_TRUE(fill(*store.value()));
    ASSERT_TRUE(store.value()->commit());
    EXPECT_EQ(requestRows(*store.value()), 1);
}

// Issue 43: a reader (tracelight-cli info) meeting the hot journal of an import killed mid-write rolls it back
// as every writer does, instead of "not a Tracelight database (attempt to write a readonly database)".
TEST(TraceStore, AReaderRollsBackTheHotJournalOfACrashedLoad) {
    test::ScratchDir dir;
    const std::string path = dir.file("crash.tldb");
    { ASSERT_TRUE(TraceStore::open(path, TraceStore::Mode::Create)); }
    const pid_t child = ::fork();
    if (child == 0) {
        auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
        const bool loaded = store && store.value()->beginBulkLoad() && fill(*store.value()) &&
                            sqlite3_db_cacheflush(test::StoreAccess::db(*store.value())) == SQLITE_OK;
        ::_exit(loaded ? 0 : 1);  // no commit, no rollback, no close
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child could not load";
    ASSERT_TRUE(std::filesystem::exists(path + "-journal")) << "no hot journal: the test did not crash mid-write";
    auto reader = TraceStore::open(path, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(reader) << reader.message();
    EXPECT_EQ(requestRows(*reader.value()), 0);
    EXPECT_TRUE(reader.value()->quickCheck());
    EXPECT_FALSE(std::filesystem::exists(path + "-journal"));
}

// Issue 43: only import creates a database. A 0-byte file or an SQLite file with no tables opened for
// writing (analyze) is refused as info refuses it, and left as it was.
TEST(TraceStore, OnlyCreateTurnsAnEmptyFileIntoADatabase) {
    test::ScratchDir dir;
    const std::string zero = dir.write("zero.tldb", "");
    const std::string noTables = dir.file("notables.tldb");
    {
        sqlite3* db = nullptr;
        sqlite3_open(noTables.c_str(), &db);
        sqlite3_exec(db, "CREATE TABLE x(y); DROP TABLE x; VACUUM", nullptr, nullptr, nullptr);
        sqlite3_close(db);
    }
    for (const std::string& path : {zero, noTables}) {
        const auto size = std::filesystem::file_size(path);
        const auto bytes = [&] {
            std::ifstream in(path, std::ios::binary);
            return std::string(std::istreambuf_iterator<char>(in), {});
        }();
        auto writer = TraceStore::open(path, TraceStore::Mode::ReadWrite);
        ASSERT_FALSE(writer) << path;
        EXPECT_NE(writer.message().find("not a Tracelight database"), std::string::npos) << writer.message();
        writer = Status::error("closed");
        EXPECT_EQ(std::filesystem::file_size(path), size) << path;
        std::ifstream in(path, std::ios::binary);
        EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), bytes) << path;
        for (const char* suffix : {"-wal", "-shm", "-journal"}) EXPECT_FALSE(std::filesystem::exists(path + suffix)) << path << suffix;
    }
    // Creating still makes one of an empty file (import).
    EXPECT_TRUE(TraceStore::open(zero, TraceStore::Mode::Create));
}

// Issue 43: a database in a directory that does not exist says so, not "read-only directory".
TEST(TraceStore, AMissingDirectoryIsReportedAsMissing) {
    test::ScratchDir dir;
    const std::string path = dir.file("no/such/dir/new.tldb");
    auto store = TraceStore::open(path, TraceStore::Mode::Create);
    ASSERT_FALSE(store);
    EXPECT_NE(store.message().find("no such directory"), std::string::npos) << store.message();
    EXPECT_EQ(store.message().find("read-only"), std::string::npos) << store.message();
    EXPECT_FALSE(std::filesystem::exists(dir.file("no")));
}

// A reader that opens the file during a bulk load (rollback-journal mode: its read takes a shared lock)
// and reads longer than the busy timeout does not cost the load: the COMMIT is tried again until the
// reader is done, and everything loaded is there.
TEST(TraceStore, ABulkLoadOutwaitsAReaderThatOpenedMeanwhile) {
    test::ScratchDir dir;
    const std::string path = dir.file("outwait.tldb");
    auto store = TraceStore::open(path, TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    ASSERT_TRUE(store.value()->beginBulkLoad());
    ASSERT_EQ(journalMode(*store.value()), "delete");
    ASSERT_TRUE(fill(*store.value()));
    sqlite3* reader = nullptr;
    ASSERT_EQ(sqlite3_open_v2(path.c_str(), &reader, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(reader, "BEGIN; SELECT COUNT(*) FROM requests;", nullptr, nullptr, nullptr), SQLITE_OK);
    std::thread done([reader] {
        std::this_thread::sleep_for(std::chrono::milliseconds(5800));  // past the 5 s busy timeout
        sqlite3_exec(reader, "COMMIT", nullptr, nullptr, nullptr);
    });
    const Status committed = store.value()->commit();
    done.join();
    sqlite3_close(reader);
    ASSERT_TRUE(committed) << committed.message();
    EXPECT_EQ(requestRows(*store.value()), 1);
    EXPECT_EQ(journalMode(*store.value()), "wal");
}

// ---- the span rows the analysis reads (spanRefs) ----

TEST(TraceStore, SpanRefsAreTheSpansTableInRequestAndIndexOrder) {
    test::ScratchDir dir;
    auto opened = TraceStore::open(dir.file("s.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(opened) << opened.message();
    TraceStore& store = *opened.value();
    ImportOptions import;
    import.inputs = {dir.write("log.csv", "request,host,task,event,ts_us,seq\nlog-1,h,t,a,1,0\nlog-1,h,t,b,2,1\n"),
                     dir.write("trace.json", test::jaegerCalls(3))};
    ASSERT_TRUE(importTraces(store, import));
    const auto log = requestByName(store, "log-1");
    ASSERT_TRUE(log);
    auto all = spanRefs(store, 0, std::numeric_limits<std::int64_t>::max());
    ASSERT_TRUE(all) << all.message();
    ASSERT_EQ(all->size(), 15u);
    ASSERT_TRUE(spanRefs(store, *log));
    EXPECT_TRUE(spanRefs(store, *log)->empty()) << "an event log has no spans";
    std::size_t at = 0;
    std::set<std::int64_t> requests;
    for (std::size_t i = 0; i < all->size(); ++i) {
        const SpanRefRow& row = all.value()[i];
        if (i > 0) {
            EXPECT_TRUE(std::pair(row.request, row.idx) > std::pair(all.value()[i - 1].request, all.value()[i - 1].idx)) << i;
        }
        requests.insert(row.request);
    }
    ASSERT_EQ(requests.size(), 3u);
    for (const std::int64_t request : requests) {
        const RequestId id(static_cast<std::uint32_t>(request));
        const RequestSpanShapes shapes = requestSpanShapes(store, id);
        auto one = spanRefs(store, id);
        ASSERT_TRUE(one) << one.message();
        ASSERT_EQ(one->size(), shapes.spans.size());
        for (std::size_t i = 0; i < shapes.spans.size(); ++i) {
            const SpanRefRow& row = one.value()[i];
            const SpanShape& shape = shapes.spans[i];
            EXPECT_EQ(row.request, request);
            EXPECT_EQ(row.idx, std::int64_t(i));
            EXPECT_EQ(row.parent, shape.parent) << i;
            EXPECT_EQ(row.startOrd, shape.startOrd) << i;
            EXPECT_EQ(row.endOrd, shape.endOrd) << i;
            EXPECT_EQ(store.label(LabelId(row.task)), shape.taskName()) << i;
            const SpanRefRow& inAll = all.value()[at++];
            EXPECT_TRUE(inAll.request == row.request && inAll.idx == row.idx && inAll.task == row.task) << i;
        }
    }
    // A range holds only its requests.
    const std::int64_t second = *std::next(requests.begin());
    auto range = spanRefs(store, second, second + 2);
    ASSERT_TRUE(range);
    const auto inRange = std::count_if(all->begin(), all->end(), [&](const SpanRefRow& r) { return r.request >= second && r.request < second + 2; });
    EXPECT_EQ(range->size(), static_cast<std::size_t>(inRange));
    EXPECT_EQ(range->front().request, second);
}
