// libFuzzer target for one importer (the format is fixed at compile time by TRACELIGHT_FUZZ_FORMAT):
// any bytes must give a clean error or an import, never a crash, a hang or a sanitizer report.
//
// Built for speed (thousands of inputs a second): one in-memory database per process, its schema
// created once; each input's import runs to the end and is then rolled back (a commit hook turns the
// import's COMMIT into a ROLLBACK), so the next input meets the same empty database. The input is
// handed to the importer as a path to an anonymous in-memory file (memfd), rewritten per input:
// nothing is left on disk.
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "StoreAccess.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

namespace {

struct FuzzState {
    std::unique_ptr<TraceStore> store;
    ImportOptions options;
    int fd = -1;
    std::string path;          // what the importer opens
    std::string fallbackFile;  // a real temporary file, only when memfd is unavailable; removed at exit
    bool committed = false;    // the import reached its COMMIT (which the hook then vetoed)
    std::uint64_t inputs = 0, imported = 0;
    sqlite3_stmt* rows = nullptr;  // the number of rows in every table of the database, prepared once
    sqlite3_int64 emptyRows = 0;   // ... in the freshly created database
};

FuzzState* g_state = nullptr;

// Vetoes a commit that writes the main database (non-zero: SQLite rolls it back instead); lets the
// importer's own clean-up of its temporary staging table through.
int vetoCommit(void*) {
    if (sqlite3_txn_state(test::StoreAccess::db(*g_state->store), "main") != SQLITE_TXN_WRITE) return 0;
    g_state->committed = true;
    return 1;
}

void atExit() {
    if (!g_state) return;
    if (!g_state->fallbackFile.empty()) std::remove(g_state->fallbackFile.c_str());
    // How many inputs went all the way to a commit: a fuzzer that never gets there tests little.
    std::fprintf(stderr, "fuzz harness: %llu of %llu inputs imported (then rolled back)\n",
                 static_cast<unsigned long long>(g_state->imported), static_cast<unsigned long long>(g_state->inputs));
}

[[noreturn]] void die(const char* what) {
    std::fprintf(stderr, "fuzz harness: %s\n", what);
    std::abort();
}

sqlite3_int64 rowCount(FuzzState& s) {
    if (sqlite3_step(s.rows) != SQLITE_ROW) die("cannot count rows");
    const sqlite3_int64 n = sqlite3_column_int64(s.rows, 0);
    sqlite3_reset(s.rows);
    return n;
}

FuzzState& setUp() {
    auto* s = new FuzzState;  // lives for the whole process
    g_state = s;
    auto store = TraceStore::open(":memory:", TraceStore::Mode::Create);
    if (!store) die(store.message().c_str());
    s->store = std::move(store.value());
    sqlite3* db = test::StoreAccess::db(*s->store);
    sqlite3_commit_hook(db, vetoCommit, nullptr);
    // One statement counting the rows of every table, so that "nothing left behind" means everything.
    std::string count;
    {
        sqlite3_stmt* tables = nullptr;
        sqlite3_prepare_v2(db, "SELECT name FROM sqlite_schema WHERE type='table' AND name NOT LIKE 'sqlite_%'", -1, &tables, nullptr);
        while (sqlite3_step(tables) == SQLITE_ROW) {
            count += count.empty() ? "SELECT " : " + ";
            count += "(SELECT COUNT(*) FROM \"" + std::string(reinterpret_cast<const char*>(sqlite3_column_text(tables, 0))) + "\")";
        }
        sqlite3_finalize(tables);
    }
    if (count.empty() || sqlite3_prepare_v2(db, count.c_str(), -1, &s->rows, nullptr) != SQLITE_OK) die("cannot count rows");
    s->emptyRows = rowCount(*s);
    s->options.format = *inputFormatFromName(TRACELIGHT_FUZZ_FORMAT);
    s->options.period = "fuzz";
    s->fd = ::memfd_create("tracelight-fuzz", MFD_CLOEXEC);
    if (s->fd >= 0) {
        s->path = "/proc/self/fd/" + std::to_string(s->fd);
        if (::access(s->path.c_str(), R_OK) != 0) {  // no /proc: fall back to a file
            ::close(s->fd);
            s->fd = -1;
        }
    }
    if (s->fd < 0) {
        const char* tmp = std::getenv("TMPDIR");
        std::string name = std::string(tmp && *tmp ? tmp : "/tmp") + "/tracelight-fuzz-XXXXXX";
        s->fd = ::mkstemp(name.data());
        if (s->fd < 0) die("cannot create a temporary input file");
        s->fallbackFile = s->path = name;
    }
    std::atexit(atExit);
    s->options.inputs = {s->path};
    return *s;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    setUp();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzState& s = g_state ? *g_state : setUp();
    if (::ftruncate(s.fd, 0) != 0) die("cannot truncate the input file");
    for (std::size_t done = 0; done < size;) {
        const ssize_t n = ::pwrite(s.fd, data + done, size - done, static_cast<off_t>(done));
        if (n <= 0) die("cannot write the input file");
        done += static_cast<std::size_t>(n);
    }
    s.committed = false;
    auto result = importTraces(*s.store, s.options);
    // Every import is rolled back: by the importer itself on an error, by the hook on success.
    if (result) die("an import succeeded although its commit was vetoed");
    ++s.inputs;
    if (s.committed) ++s.imported;
    if (!sqlite3_get_autocommit(test::StoreAccess::db(*s.store))) die("an import left its transaction open");
    if (result.message().empty()) die("an import failed without a message");
    // Nothing of any input may remain (a failed import must leave the database as it was).
    if (rowCount(s) != s.emptyRows) die("an import left rows behind");
    return 0;
}
