#pragma once
// The trace database: one SQLite file holding events, interned labels, requests, periods and cached results.
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <functional>
#include <unordered_map>

#include "tracelight/base/Ids.h"
#include "tracelight/base/Status.h"
#include "tracelight/base/Time.h"
#include "tracelight/store/LabelTexts.h"
#include "tracelight/store/SpanRecords.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tracelight {

class CancelToken;
class BackgroundCheck;
namespace sqlite {
class StatementCache;
}
struct RequestTable;
struct StoreConnection;
namespace test {
struct StoreAccess;  // tests' raw SQL checks
}

// Roles a label plays; a label (say "web-1") may play several.
// Span: a service, operation, span kind or span event name of the span tree (span imports only).
enum class LabelRole : int { Host = 1, Task = 2, Event = 3, AttributeKey = 4, AttributeValue = 5, Span = 6 };

struct PeriodInfo {
    std::string name;
    std::int64_t requests = 0;
};

struct StoreInfo {
    std::int64_t requests = 0;
    std::int64_t events = 0;
    std::int64_t segments = 0;
    std::int64_t hosts = 0;
    std::int64_t spans = 0;  // of span requests, and received by a live capture for traces still open
    std::vector<PeriodInfo> periods;
};

// One stored event, by label ids (task, event, host) and its position (ord) within its task.
struct EventRow {
    std::int64_t request;
    std::uint32_t task, event, host;
    std::int64_t ord;
    TimeNs localNs;  // the host's own clock
};
// A known causal edge (from span links), by task and position.
struct LinkRow {
    std::int64_t request;
    std::uint32_t fromTask;
    std::int64_t fromOrd;
    std::uint32_t toTask;
    std::int64_t toOrd;
};

class TraceStore {
public:
    static constexpr int kSchemaVersion = 18;  // store/Schema.h holds it

    enum class Mode { ReadOnly, ReadWrite, Create };  // Create: read-write, creating the file if missing

    // Opens (or creates) a database; refuses files that are not Tracelight databases or come from a newer version,
    // and (for writing) damaged, read-only or locked ones, saying which.
    // When a writer's PRAGMA quick_check runs: before open() returns, or meanwhile on a thread of its own
    // (a job that reads the whole file first: analyze). Either way nothing is written before it passed:
    // begin() waits for it and fails with its verdict, and a commit hook refuses any other write until then.
    // BesideFullRead, for analyze, which reads every event before it writes: in the background only the
    // other tables it reads or writes (analysisTables()); SQLite checks each events page as that read loads
    // it (cell_size_check is on for every connection) and a damaged page fails the read. A table analyze
    // never touches is not checked: its write cannot reach it (nor does a check of single tables find a
    // page that two of them share). The job says so with noteEventsReadInFull(); a write without it checks
    // the whole file first.
    enum class WriteCheck { OnOpen, InBackground, BesideFullRead };
    static Result<std::unique_ptr<TraceStore>> open(const std::string& path, Mode mode, WriteCheck check = WriteCheck::OnOpen);
    // Every table analyze reads or writes, events among them (a test holds it to what an analysis touches).
    static const std::vector<std::string>& analysisTables();
    ~TraceStore();
    TraceStore(const TraceStore&) = delete;
    TraceStore& operator=(const TraceStore&) = delete;

    const std::string& path() const { return m_path; }
    int schemaVersion() const { return m_schemaVersion; }

    Status begin();  // BEGIN IMMEDIATE: one writer at a time
    // Whether begin() would go ahead without waiting for the background check (a writer that must stay
    // cancellable polls this first).
    bool writeCheckDone() const;
    // begin() for a transaction that fills a store holding no requests yet (an import into a new database):
    // in rollback-journal mode when no other connection has the file open, so each new page is written
    // once, into the file. In WAL mode every page of it is written to the WAL and copied into the file
    // again at the checkpoint (2.3 GB twice for the 1.3 M-request corpus); a rollback journal keeps only
    // the pages that existed before the transaction and were changed by it (next to nothing here) and is
    // as safe against a crash. Anywhere else it is begin(). commit() and rollback() return to WAL mode.
    Status beginBulkLoad();
    Status commit();
    void rollback();
    // A read snapshot: every query until endRead() sees the database as it was at the first one, whatever
    // other connections commit meanwhile. Inside another beginRead(), the snapshot lasts until the outermost
    // endRead(); inside a transaction not begun by beginRead(), both do nothing. Const: a
    // snapshot changes what the connection sees when, not what the store holds.
    Status beginRead() const;
    bool holdsReadSnapshot() const;  // inside beginRead() or another transaction
    void endRead() const;
    // Every row of the events table was read without error, on this connection or on others opened on the
    // same file for the same snapshot (see WriteCheck::BesideFullRead).
    void noteEventsReadInFull() const { m_eventsReadInFull = true; }
    bool eventsReadInFull() const { return m_eventsReadInFull; }

    // The id of the newest import (0 when none): what results computed from this data are stamped with.
    std::int64_t lastImportId() const;
    // The input files of each import, oldest import first, each as the import was given them.
    std::vector<std::vector<std::string>> importedInputs() const;

    Result<StoreInfo> info() const;
    // PRAGMA quick_check: every page of the file is sound. Reads the whole file (seconds for a large one);
    // open() runs it before writing.
    Status quickCheck() const;

    std::string label(LabelId id) const;


    // ---- reads and writes of the analysis (the SQL stays here) ----------------------------------

    std::int64_t requestCount() const;
    std::int64_t eventCount() const;
    // Requests and their events with request ids in [firstId, endId).
    std::pair<std::int64_t, std::int64_t> requestAndEventCount(std::int64_t firstId, std::int64_t endId) const;
    // Each occurrence label ("name#k", see OccurrenceName.h): its id, the label of its name and k, in id order.
    std::vector<LabelOccurrence> labelOccurrences() const;
    // (id, text) of every label stored as text: the names, not their occurrences (a million-span trace
    // has three million of those).
    std::vector<std::pair<std::uint32_t, std::string>> labelNames() const;
    // The texts of the labels whose ids are set in `wanted` (occurrences spelt "name#k"), in one read of
    // the label tables.
    LabelTexts labelTexts(const std::vector<bool>& wanted) const;
    // Each label (`wanted`: only those) with its text, names before occurrences.
    void forEachLabel(const std::vector<bool>* wanted, const std::function<void(std::uint32_t, std::string_view)>& f) const;
    // Every event in (request, task, ord) order, in one scan; f returns false to stop (cancel).
    Status scanEvents(const std::function<bool(const EventRow&)>& f) const;
    // The same scan over the requests with ids in [firstId, endId) (one process's share of a distributed run);
    // without `withOrder` every row's ord is 0 (the rows still come in order).
    Status scanEvents(const std::function<bool(const EventRow&)>& f, std::int64_t firstId, std::int64_t endId,
                      bool withOrder = true) const;
    // Events past every scan's end: a request_id of the largest integer, or text or a blob (which sort after
    // numbers; a file written by something else). One index seek.
    bool holdsEventsPastEveryScan() const;
    // Request ids cut into `parts` runs of about equal request count, in id order: run p is
    // [cuts[p], cuts[p + 1]); parts + 1 values, the first at or below every id, the last above every id.
    std::vector<std::int64_t> requestIdCuts(int parts) const;
    // Of [firstId, endId), which holds `requests` requests when the caller has counted them (-1: count them).
    std::vector<std::int64_t> requestIdCuts(int parts, std::int64_t firstId, std::int64_t endId, std::int64_t requests = -1) const;
    // One request's events in (task, ord) order, one by one (a million-span trace's three million rows
    // were 124 MB as a list), and the stored count to reserve for what is kept of them.
    Status scanRequestEvents(RequestId request, const std::function<void(const EventRow&)>& f) const;
    std::size_t requestEventCountHint(RequestId request) const;
    // Known causal links of the requests in [firstId, endId), in request order; or of one request.
    Result<std::vector<LinkRow>> causalLinks(std::int64_t firstId, std::int64_t endId) const;
    Result<std::vector<LinkRow>> causalLinks(RequestId request) const;
    // ---- the naming filter: test and debug log points left out by name (the Mystery Machine's one regex) ----

    // An ECMAScript regular expression searched in the names of an event-log event's task and event (an
    // occurrence "E#2" by its name "E"); the events it finds stay stored but every event scan of this
    // connection (scanEvents, scanRequestEvents) leaves them out, so the analysis, the views and the command
    // line see the same requests without them. Span requests keep every event. Empty: none.
    std::string namingFilter() const;
    // Kept in the database (a write); an expression that does not compile is refused, naming the error.
    Status setNamingFilter(std::string_view regex);
    // Whether `regex` compiles; its error otherwise.
    static Status checkNamingFilter(std::string_view regex);


private:
    // The connection stays inside store/: the classes and functions there that hold SQL, and tests.
    friend class ImportWriter;
    friend class StagingTable;
    friend Result<RequestTable> loadRequestTable(const TraceStore& store, const CancelToken* cancel);
    friend struct test::StoreAccess;
    friend struct StoreConnection;
    sqlite3* db() const { return m_db; }
    // A statement prepared once per connection (see store/StatementCache.h); nullptr when it does not prepare.
    sqlite3_stmt* cachedStatement(std::string_view sql);
    Status runCached(std::string_view sql);  // one statement without results (BEGIN, COMMIT, ...)

    TraceStore(std::string path, sqlite3* db);
    Status initialise(Mode mode, WriteCheck check);
    Status awaitWriteCheck();  // ok when no check is pending or it passed
    void leaveBulkLoad();      // back to WAL mode after beginBulkLoad()'s transaction

    // The labels the naming filter hides (by id) and the requests it leaves alone (spans), found on the first
    // scan; hidden() is true for an event-log event it leaves out.
    struct NamingFilterState;
    const NamingFilterState* namingFilterState() const;
    static bool hidden(const NamingFilterState* state, const EventRow& row);
    mutable std::shared_ptr<const NamingFilterState> m_namingFilter;

    std::string m_path;
    sqlite3* m_db = nullptr;
    std::unique_ptr<sqlite::StatementCache> m_statements;
    std::unique_ptr<BackgroundCheck> m_writeCheck;  // the quick_check still running (WriteCheck::InBackground)
    mutable std::atomic<bool> m_eventsReadInFull{false};
    int m_schemaVersion = 0;
    mutable int m_readDepth = 0;  // beginRead() calls not yet ended; the snapshot is ours when > 0
    bool m_bulkLoad = false;  // inside beginBulkLoad()'s transaction, in rollback-journal mode
};

} // namespace tracelight
