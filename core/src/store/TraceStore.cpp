#include "tracelight/store/TraceStore.h"

#include <sqlite3.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <limits>
#include <unordered_map>

#include "store/Sqlite.h"
#include "store/BackgroundCheck.h"
#include "store/DerivedEvents.h"
#include "store/OpenFailure.h"
#include "store/PackedSpanParts.h"
#include "store/Schema.h"
#include "store/StoreConnection.h"
#include "tracelight/base/UtcNow.h"
#include "store/StatementCache.h"
#include "tracelight/base/OccurrenceName.h"
#include "tracelight/base/Progress.h"

namespace tracelight {

namespace {

constexpr int kApplicationId = 0x544C4442;  // "TLDB"
static_assert(TraceStore::kSchemaVersion == schema::kVersion);

} // namespace

namespace {

std::filesystem::path directoryOf(const std::string& path) {
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    return dir.empty() ? std::filesystem::path(".") : dir;
}

// Why SQLite could not write: the file itself, or the directory where its -wal and -shm must be created.
std::string readOnlyMessage(const std::string& path) {
    if (::access(path.c_str(), W_OK) != 0)
        return path + ": read-only file: Tracelight cannot write to it (import and analyze need write access)";
    if (::access(directoryOf(path).c_str(), W_OK) != 0)
        return path + ": in a read-only directory (" + directoryOf(path).string() +
               "): writing needs its -wal and -shm files beside it";
    return path + ": read-only database";
}


// "file:" URI of a path, for query parameters.
std::string fileUri(const std::string& path) {
    std::string uri = "file:";
    for (char c : path) {
        if (c == '%' || c == '?' || c == '#') {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
            uri += buf;
        } else {
            uri += c;
        }
    }
    return uri;
}

// Rolls back what a write cut short left in path's -journal (only the first read of a writable connection
// does; reading nothing else). Nothing to do when no writer died: a live writer's journal is not hot.
Status rollBackHotJournal(const std::string& path) {
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, 5000);
        rc = sqlite3_exec(db, "SELECT COUNT(*) FROM sqlite_master", nullptr, nullptr, nullptr);
    }
    std::string message;
    if (rc != SQLITE_OK && ((sqlite3_errcode(db) & 0xff) == SQLITE_READONLY || (sqlite3_errcode(db) & 0xff) == SQLITE_CANTOPEN))
        message = path + ": an import or analysis was cut short (a hot journal beside it) and rolling it back needs write access; "
                         "open it once with write access (e.g. tracelight-cli analyze)";
    else if (rc != SQLITE_OK && (sqlite3_errcode(db) & 0xff) != SQLITE_NOTADB)  // not a database: the open below says so
        message = openFailure(db, path, path + ": cannot roll back the hot journal beside it");
    sqlite3_close(db);
    return message.empty() ? Status::ok() : Status::error(message);
}

} // namespace

std::string openFailure(sqlite3* db, const std::string& path, const std::string& otherwise) {
    switch (sqlite3_errcode(db) & 0xff) {
    case SQLITE_CORRUPT:
        return path + ": database disk image is malformed";
    case SQLITE_NOTADB:
        return path + ": not a Tracelight database (" + sqlite3_errmsg(db) + ")";
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return path + ": database is locked: another process (an import or analysis?) holds it; try again when it has finished";
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
        if (std::error_code ec; !std::filesystem::is_directory(directoryOf(path), ec))
            return path + ": no such directory (" + directoryOf(path).string() + ")";
        if (::access(path.c_str(), W_OK) != 0 || ::access(directoryOf(path).c_str(), W_OK) != 0) return readOnlyMessage(path);
        break;
    default:
        break;
    }
    const std::string why = sqlite3_errmsg(db);
    return otherwise.find(why) == std::string::npos ? otherwise + " (" + why + ")" : otherwise;
}

Result<std::unique_ptr<TraceStore>> TraceStore::open(const std::string& path, Mode mode, WriteCheck check) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const bool exists = fs::exists(path, ec);
    if (!exists && mode != Mode::Create) return Status::error(path + ": no such database");
    if (exists && fs::is_directory(path, ec)) return Status::error(path + ": is a directory, not a database");

    int flags = SQLITE_OPEN_NOMUTEX;
    flags |= mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
    if (mode == Mode::Create) flags |= SQLITE_OPEN_CREATE;
    std::string name = path;
    // Reading a WAL database needs its -shm beside it. In a directory we cannot write to, with no -wal in
    // use, nobody can be writing it: read it as immutable instead of failing. Not beside a -journal: that
    // is a write cut short (a bulk load), which only an open that may roll it back can read correctly.
    if (mode == Mode::ReadOnly && exists && ::access(directoryOf(path).c_str(), W_OK) != 0 &&
        fs::file_size(path + "-wal", ec) == static_cast<std::uintmax_t>(-1) &&
        fs::file_size(path + "-journal", ec) == static_cast<std::uintmax_t>(-1)) {
        name = fileUri(path) + "?immutable=1";
        flags |= SQLITE_OPEN_URI;
    }
    // A hot journal (a write cut short: an import killed mid-load) is rolled back by the first connection that
    // reads the file, which a read-only one cannot do: a writer's open rolls it back first, as analyze's and
    // import's would. Without write access to roll it back, say so.
    if (const auto journal = fs::file_size(path + "-journal", ec); mode == Mode::ReadOnly && exists && !ec && journal > 0)
        if (Status s = rollBackHotJournal(path); !s) return s;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(name.c_str(), &db, flags, nullptr) != SQLITE_OK) {
        std::string message = db ? openFailure(db, path, path + ": cannot open") : path + ": cannot open (out of memory)";
        if (!exists && mode == Mode::Create && !fs::is_directory(directoryOf(path), ec))
            message = path + ": cannot create it: no such directory (" + directoryOf(path).string() + ")";
        else if (!exists && mode == Mode::Create && ::access(directoryOf(path).c_str(), W_OK) != 0)
            message = path + ": cannot create it: read-only directory (" + directoryOf(path).string() + ")";
        sqlite3_close(db);
        return Status::error(message);
    }
    std::unique_ptr<TraceStore> store(new TraceStore(path, db));
    if (mode != Mode::ReadOnly && sqlite3_db_readonly(db, "main") == 1) return Status::error(readOnlyMessage(path));
    sqlite3_busy_timeout(db, 5000);
    // Each b-tree page's cells are checked as the page is loaded: a damaged page fails the query that reads
    // it instead of being read wrong (what lets analyze leave the events table to its own read).
    sqlite::exec(db, "PRAGMA cell_size_check=ON");
    if (Status s = store->initialise(mode, check); !s) return s;
    return store;
}

sqlite3* StoreConnection::of(const TraceStore& store) { return store.db(); }

TraceStore::TraceStore(std::string path, sqlite3* db)
    : m_path(std::move(path)), m_db(db), m_statements(std::make_unique<sqlite::StatementCache>(db)) {}

TraceStore::~TraceStore() {
    m_writeCheck.reset();  // interrupted if still running
    m_statements->clear();
    sqlite3_close(m_db);
}

sqlite3_stmt* TraceStore::cachedStatement(std::string_view sql) { return m_statements->get(sql); }

Status TraceStore::initialise(Mode mode, WriteCheck check) {
    int applicationId = 0;
    bool empty = true;
    {
        // Scoped: open statements would hold a read transaction and block the switch to WAL below.
        sqlite::Statement appId(m_db, "PRAGMA application_id");
        if (appId.step() != SQLITE_ROW)
            return Status::error(openFailure(m_db, m_path, m_path + ": not a Tracelight database"));
        applicationId = static_cast<int>(appId.int64(0));
        sqlite::Statement tables(m_db, "SELECT COUNT(*) FROM sqlite_master");
        if (tables.step() != SQLITE_ROW)
            return Status::error(openFailure(m_db, m_path, m_path + ": damaged Tracelight database"));
        empty = tables.int64(0) == 0;
    }
    if (applicationId == 0 && empty) {
        // Only an import makes a database of an empty file: analyze and the rest leave it as it is.
        if (mode != Mode::Create) return Status::error(m_path + ": empty file, not a Tracelight database");
        sqlite::exec(m_db, "PRAGMA journal_mode=WAL");
        if (Status s = sqlite::exec(m_db, "BEGIN"); !s) return Status::error(openFailure(m_db, m_path, m_path + ": " + s.message()));
        Status s = sqlite::exec(m_db, schema::current());
        if (s) s = sqlite::exec(m_db, ("PRAGMA application_id=" + std::to_string(kApplicationId)).c_str());
        if (s) {
            sqlite::Statement meta(m_db, "INSERT INTO meta(key, value) VALUES('schema_version', ?1), ('created_utc', ?2)");
            meta.bind(1, std::to_string(kSchemaVersion)).bind(2, utcNow());
            if (meta.step() != SQLITE_DONE) s = Status::error(sqlite3_errmsg(m_db));
        }
        if (!s) {
            const std::string message = openFailure(m_db, m_path, m_path + ": cannot create schema: " + s.message());
            sqlite::exec(m_db, "ROLLBACK");
            return Status::error(message);
        }
        if (Status c = sqlite::exec(m_db, "COMMIT"); !c) return Status::error(openFailure(m_db, m_path, m_path + ": " + c.message()));
        m_schemaVersion = kSchemaVersion;
        return Status::ok();
    }
    if (applicationId != kApplicationId) return Status::error(m_path + ": not a Tracelight database");

    {
        sqlite::Statement version(m_db, "SELECT value FROM meta WHERE key='schema_version'");
        if (!version.isValid() || version.step() != SQLITE_ROW)
            return Status::error(openFailure(m_db, m_path, m_path + ": damaged Tracelight database (no schema version)"));
        m_schemaVersion = std::atoi(std::string(version.text(0)).c_str());
    }
    if (m_schemaVersion > kSchemaVersion)
        return Status::error(m_path + ": written by a newer Tracelight (schema version " + std::to_string(m_schemaVersion) +
                             "; this build reads up to " + std::to_string(kSchemaVersion) + "); refusing to open it");
    if (m_schemaVersion < 1) return Status::error(m_path + ": damaged Tracelight database (schema version " +
                                                  std::to_string(m_schemaVersion) + ")");
    // Before anything is written, every page must be sound: writing into a damaged b-tree spreads the damage.
    // A schema upgrade writes at once, so it is checked first whatever the caller asked.
    const bool checkLater = mode != Mode::ReadOnly && check != WriteCheck::OnOpen && m_schemaVersion == kSchemaVersion &&
                            m_path != ":memory:" && !m_path.empty();
    if (mode != Mode::ReadOnly && !checkLater)
        if (Status s = quickCheck(); !s) return s;
    if (m_schemaVersion < kSchemaVersion) {
        // Older databases are migrated one version at a time, in one transaction, never reinterpreted.
        if (mode == Mode::ReadOnly)
            return Status::error(m_path + ": schema version " + std::to_string(m_schemaVersion) +
                                 " needs upgrading; open it once for writing (e.g. tracelight-cli analyze)");
        if (Status s = packed::registerPackingFunctions(m_db); !s) return Status::error(m_path + ": " + s.message());
        if (Status s = sqlite::exec(m_db, "BEGIN IMMEDIATE"); !s)
            return Status::error(openFailure(m_db, m_path, m_path + ": " + s.message()));
        for (int v = m_schemaVersion; v < kSchemaVersion; ++v)
            if (Status s = sqlite::exec(m_db, schema::migrations()[static_cast<std::size_t>(v - 1)]); !s) {
                sqlite::exec(m_db, "ROLLBACK");
                return Status::error(m_path + ": cannot upgrade schema from version " + std::to_string(v) + ": " + s.message());
            }
        if (Status s = sqlite::exec(m_db, "COMMIT"); !s) return Status::error(m_path + ": " + s.message());
        m_schemaVersion = kSchemaVersion;
    }
    if (mode != Mode::ReadOnly) sqlite::exec(m_db, "PRAGMA journal_mode=WAL");
    if (checkLater) {
        std::vector<std::string> tables;  // none: the whole file
        if (check == WriteCheck::BesideFullRead)
            for (const std::string& table : analysisTables())
                if (table != "events") tables.push_back(table);
        m_writeCheck = std::make_unique<BackgroundCheck>(m_path, std::move(tables));
        // Writes that do not go through begin() (an autocommit UPDATE) wait at their commit; a damaged
        // file's commit is turned into a rollback, so nothing reaches it.
        sqlite3_commit_hook(m_db, [](void* self) { return static_cast<TraceStore*>(self)->awaitWriteCheck() ? 0 : 1; }, this);
    }
    return Status::ok();
}

const std::vector<std::string>& TraceStore::analysisTables() {
    static const std::vector<std::string> tables{"meta", "imports", "labels", "label_occurrences", "requests", "events",
                                                 "causal_links", "spans", "results", "clock_offsets", "clock_pairs", "request_analysis",
                                                 "critical_path_segments", "slack"};
    return tables;
}

bool TraceStore::writeCheckDone() const { return !m_writeCheck || m_writeCheck->done(); }

Status TraceStore::awaitWriteCheck() {
    if (!m_writeCheck) return Status::ok();
    // The same verdict on every call: a damaged file stays refused.
    if (Status s = m_writeCheck->wait(); !s) return s;
    // Left to a full read that did not happen (or failed): checked now, before the first write; once it
    // ran, its verdict stands whatever is read later.
    return m_eventsReadInFull && !m_writeCheck->leftOutChecked() ? Status::ok() : m_writeCheck->checkLeftOut();
}

Status TraceStore::quickCheck() const { return quickCheckConnection(m_db, m_path); }

// Transaction control through the statement cache: an import begins and ends one, and parsing these
// again per import showed in the fuzz targets' profile.
Status TraceStore::runCached(std::string_view sql) {
    sqlite::Statement st;
    if (!st.borrow(cachedStatement(sql))) return Status::error(sqlite3_errmsg(m_db));
    if (st.step() != SQLITE_DONE) return Status::error(sqlite3_errmsg(m_db));
    return Status::ok();
}

Status TraceStore::begin() {
    if (Status s = awaitWriteCheck(); !s) return s;
    if (Status s = runCached("BEGIN IMMEDIATE"); !s) return Status::error(openFailure(m_db, m_path, m_path + ": " + s.message()));
    return Status::ok();
}

Status TraceStore::beginBulkLoad() {
    if (Status s = awaitWriteCheck(); !s) return s;
    bool holdsRequests = true;
    {
        sqlite::Statement any(m_db, "SELECT EXISTS(SELECT 1 FROM requests)");
        holdsRequests = any.step() != SQLITE_ROW || any.int64(0) != 0;
    }
    // The switch fails (and the mode stays WAL) while another connection has the file open: its readers
    // keep their snapshot. In a transaction or in memory there is nothing to switch.
    if (!holdsRequests && sqlite3_get_autocommit(m_db) && !m_path.empty() && m_path != ":memory:") {
        sqlite::Statement mode(m_db, "PRAGMA journal_mode=DELETE");
        m_bulkLoad = mode.step() == SQLITE_ROW && mode.text(0) == "delete";
    }
    if (Status s = begin(); !s) {
        leaveBulkLoad();
        return s;
    }
    return Status::ok();
}

void TraceStore::leaveBulkLoad() {
    if (!m_bulkLoad) return;
    m_bulkLoad = false;
    // Should another connection have opened the file meanwhile, the switch waits for a later writer: every
    // read-write open() asks for WAL mode again.
    sqlite::exec(m_db, "PRAGMA journal_mode=WAL");
}

Status TraceStore::commit() {
    // A COMMIT refused because a reader holds the file (in rollback-journal mode a reader that opened the
    // file during a bulk load blocks it; the busy timeout has already waited 5 s) leaves the transaction
    // open and can be tried again: an import of a minute is not thrown away for a reader of seconds.
    Status s = runCached("COMMIT");
    for (int retry = 0; !s && sqlite3_errcode(m_db) == SQLITE_BUSY && !sqlite3_get_autocommit(m_db) && retry < 11; ++retry)
        s = runCached("COMMIT");
    if (!s) {
        rollback();
        return Status::error(m_path + ": " + s.message());
    }
    leaveBulkLoad();
    return Status::ok();
}

void TraceStore::rollback() {
    if (!sqlite3_get_autocommit(m_db)) runCached("ROLLBACK");
    leaveBulkLoad();
}

Status TraceStore::beginRead() const {
    if (m_readDepth > 0) {  // inside a read of ours: it ends with the outermost endRead()
        ++m_readDepth;
        return Status::ok();
    }
    if (!sqlite3_get_autocommit(m_db)) return Status::ok();  // inside a transaction already: its snapshot holds
    if (Status s = sqlite::exec(m_db, "BEGIN"); !s) return Status::error(m_path + ": " + s.message());
    // A deferred transaction takes its snapshot at the first read: take it now.
    sqlite::Statement first(m_db, "SELECT COUNT(*) FROM meta");
    first.step();
    m_readDepth = 1;
    return Status::ok();
}

bool TraceStore::holdsReadSnapshot() const { return !sqlite3_get_autocommit(m_db); }

void TraceStore::endRead() const {
    if (m_readDepth == 0 || --m_readDepth > 0) return;
    if (!sqlite3_get_autocommit(m_db)) sqlite::exec(m_db, "COMMIT");
}

std::int64_t TraceStore::lastImportId() const {
    sqlite::Statement q(m_db, "SELECT COALESCE(MAX(id), 0) FROM imports");
    return q.step() == SQLITE_ROW ? q.int64(0) : 0;
}

std::vector<std::vector<std::string>> TraceStore::importedInputs() const {
    std::vector<std::vector<std::string>> out;
    sqlite::Statement q(m_db, "SELECT inputs FROM imports ORDER BY id");
    while (q.step() == SQLITE_ROW) {
        std::vector<std::string>& files = out.emplace_back();
        const std::string_view inputs = q.text(0);
        for (std::size_t from = 0; from <= inputs.size();) {  // ';'-separated, as importTraces records them
            const std::size_t to = std::min(inputs.find(';', from), inputs.size());
            if (to > from) files.emplace_back(inputs.substr(from, to - from));
            from = to + 1;
        }
    }
    return out;
}

Result<StoreInfo> TraceStore::info() const {
    StoreInfo info;
    sqlite::Statement totals(m_db,
                             "SELECT COUNT(*), COALESCE(SUM(event_count),0), COALESCE(SUM(event_count-task_count),0) "
                             "FROM requests");
    if (totals.step() != SQLITE_ROW) return Status::error(m_path + ": " + sqlite3_errmsg(m_db));
    info.requests = totals.int64(0);
    info.events = totals.int64(1);
    info.segments = totals.int64(2);
    // Spans: those of the stored span requests, and every span received of a trace still open in a live
    // capture (instead of its request's, when a late span opened a stored trace again).
    sqlite::Statement spans(m_db,
                            "SELECT (SELECT COALESCE(SUM(s.span_count),0) FROM request_spans s WHERE s.request_id NOT IN "
                            "(SELECT r.id FROM requests r JOIN capture_traces c ON c.trace=r.name)) + "
                            "(SELECT COALESCE(SUM(spans),0) FROM capture_traces)");
    if (spans.step() != SQLITE_ROW) return Status::error(m_path + ": " + sqlite3_errmsg(m_db));
    info.spans = spans.int64(0);
    sqlite::Statement hosts(m_db, "SELECT COUNT(*) FROM label_roles WHERE role=?1");
    hosts.bind(1, static_cast<int>(LabelRole::Host));
    if (hosts.step() == SQLITE_ROW) info.hosts = hosts.int64(0);
    sqlite::Statement periods(m_db,
                              "SELECT p.name, (SELECT COUNT(*) FROM period_members m WHERE m.period_id=p.id) FROM periods p "
                              "WHERE p.definition!='deleted' ORDER BY p.id");
    while (periods.step() == SQLITE_ROW) info.periods.push_back({std::string(periods.text(0)), periods.int64(1)});
    return info;
}



std::string TraceStore::label(LabelId id) const {
    sqlite::Statement q(m_db, "SELECT text FROM labels WHERE id=?1");
    q.bind(1, id.value);
    if (q.step() == SQLITE_ROW) return std::string(q.text(0));
    sqlite::Statement occurrence(m_db,
                                 "SELECT n.text, o.occurrence FROM label_occurrences o JOIN labels n ON n.id=o.name_id WHERE o.id=?1");
    occurrence.bind(1, id.value);
    if (occurrence.step() == SQLITE_ROW)
        return occurrenceName(occurrence.text(0), static_cast<std::uint32_t>(occurrence.int64(1)));
    return std::string();
}

} // namespace tracelight
