#pragma once
// Format-independent half of every importer: interns labels, creates requests, stores events and
// attributes, and after the last event numbers repeated <task, event> pairs and summarises requests.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tracelight/base/PagedArray.h"
#include "store/BatchedInsert.h"
#include "store/RequestSummer.h"
#include "store/Sqlite.h"
#include "store/SqlWorker.h"
#include "tracelight/base/StringMap.h"
#include "tracelight/base/Time.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/SpanRecords.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

struct RawAttribute {
    std::string_view key;
    std::string_view value;
};

struct RawEvent {
    std::string_view request;
    std::string_view host;
    std::string_view task;
    std::string_view event;
    TimeNs tsNs = 0;  // the host's local clock
    std::optional<std::int64_t> seq;  // position within the task; input order when absent
    std::span<const RawAttribute> attributes;
    // Which occurrence of its name the task and the event are (1: the name itself; see OccurrenceName.h).
    std::uint32_t taskOccurrence = 1, eventOccurrence = 1;
};

// An event whose labels are interned already (ImportWriter::label): for callers that name the same
// things many times, such as a span trace's tasks, so each text is hashed once per trace, not per event.
struct InternedEvent {
    std::string_view request;
    std::uint32_t host = 0, task = 0, event = 0;  // label ids
    TimeNs tsNs = 0;
    std::optional<std::int64_t> seq;
    std::span<const RawAttribute> attributes;
    std::string_view taskText;  // for error messages
};

class ImportWriter {
public:
    explicit ImportWriter(TraceStore& store) : m_store(store), m_db(store.db()) {}

    // Inside an open transaction: prepares statements, loads the label vocabulary, creates the period.
    Status start(std::string_view periodName, std::string_view format, std::string_view inputs);
    // The error message carries no location; the parser prefixes file and line.
    Status addEvent(const RawEvent& event);
    // The label id of a text (its occurrence-th instance: "name#k" for k > 1) in a role, made when new.
    Result<std::uint32_t> label(std::string_view text, std::uint32_t occurrence, LabelRole role) {
        return intern(text, occurrence, role);
    }
    // The label of the occurrence-th instance of a name interned by label(name, 1, role).
    Result<std::uint32_t> occurrenceLabel(std::uint32_t name, std::uint32_t occurrence, LabelRole role) {
        return internOccurrence(name, occurrence, role);
    }
    Status addEvent(const InternedEvent& event);
    Status addWarning(std::string_view request, const std::string& message);
    // The request's span tree (after its events, so the request exists), parents before children, with the
    // label ids its event model is derived from when read (SpanEventModel.h): by span, and by span event.
    struct SpanModelIds {
        std::uint32_t host = 0, enter = 0, leave = 0;  // 0: none
    };
    Status addSpans(std::string_view request, const RequestSpans& spans, std::span<const SpanModelIds> modelIds,
                    std::span<const std::uint32_t> spanEventIds);
    // Bytes of one request's events held to be summed in memory (ImportOptions::requestMemoryBudget).
    void setHeldEventBudget(std::uint64_t bytes) { m_maxHeldEvents = bytes / sizeof(HeldEvent); }
    // Requests created from now on came from spans (their clocks are kept unless there is evidence of skew).
    void setFromSpans(bool fromSpans) { m_fromSpans = fromSpans; }
    // Events the caller numbered as later occurrences itself (a span trace's repeated span events).
    void addRenamedEvents(std::int64_t count) { m_renamedBefore += count; }
    Status finish(ImportSummary& summary, const ProgressSink* progress, const CancelToken* cancel);
    // From now on the writes run on a thread of their own (SqlWorker.h), or, off, on the caller's once every
    // write handed over is done. On only while nothing but this writer uses the store's connection; and
    // only into a store that held no requests before this import, where a request name cannot clash with
    // a stored one (that clash is reported at its input line, which needs the answer at once).
    Status writeInBackground(bool on);
    // Nothing handed over is still being written, nor will be: before the caller rolls the transaction back.
    void abandon() { m_worker.discard(); }

    std::int64_t eventCount() const { return m_events; }
    const std::vector<std::string>& warningSamples() const { return m_warningSamples; }

private:
    // A statement from the connection's cache (prepared once per connection).
    sqlite::Statement cached(std::string_view sql) {
        sqlite::Statement st;
        st.borrow(m_store.cachedStatement(sql));
        return st;
    }
    Result<std::uint32_t> intern(std::string_view text, LabelRole role);
    // The label of the occurrence-th <name>: the name itself for 1, else "name#k" kept as (name, k).
    Result<std::uint32_t> internOccurrence(std::uint32_t name, std::uint32_t occurrence, LabelRole role);
    Result<std::uint32_t> intern(std::string_view text, std::uint32_t occurrence, LabelRole role);
    std::uint32_t newLabelId();
    std::uint32_t& occurrenceSlot(std::uint32_t name, std::uint32_t occurrence);
    void rememberOccurrence(std::uint32_t name, std::uint32_t occurrence, std::uint32_t id);
    bool isName(std::string_view text) const;  // a label that is not itself an occurrence
    void addRole(std::uint32_t id, LabelRole role);
    Status flushLabels();  // the labels, occurrences and roles interned since the last flush
    struct RequestState;
    // Stored with the request when its events so far all came in a row (it was not summed yet), else checked
    // against what an earlier visit stored.
    Status setAttribute(const RequestState& request, std::uint32_t taskId, std::int64_t ord, const RawAttribute& attr);
    // The request of that name, created (with its first event's host as origin) when new.
    Result<RequestState*> requestFor(std::string_view name, std::uint32_t host);
    // The events of the request being read are kept until the input moves to another request, then
    // summed from memory (summariseHeld): one request at a time, no second scan of the table; a span
    // request's, which come task by task, are summed as they come. A request the input comes back to (or
    // whose span events turn out not to come task by task) is summed again from the table at the end.
    // firstOfTask: the task's first event in this visit; rising: its position above the task's last in it.
    Status hold(RequestState& request, std::uint32_t task, std::int64_t ord, std::uint32_t event, std::uint32_t host, TimeNs ts,
                bool firstOfTask, bool rising);
    Status summariseHeld();
    Status storeSummary(std::uint32_t request, const RequestSummer::Totals& totals);
    // The request's row, with its summary when there is one yet (totals null: the columns' defaults).
    Status storeRequestRow(RequestState& request, const RequestSummer::Totals* totals);
    Status summariseAgain(const ProgressSink* progress, const CancelToken* cancel);
    RequestState* findRequest(std::string_view name);
    void warn(std::string message);
    bool wantsSample() const { return m_warningSamples.size() < kMaxWarningSamples; }
    static constexpr std::size_t kMaxWarningSamples = 10;

    struct RequestState {
        std::uint32_t id;
        std::uint32_t originHost;  // host of the request's first event: its local clock times the request
        bool summed = false;       // from memory, when the input moved on
        bool revisited = false;    // events came after it was summed: summed again from the table
        std::int64_t backInTime = 0;  // its events that go back in time on one host, as last summed
        // Written in the background, its row waits for its first summary and is stored with it (one
        // statement instead of an insert and an update): until then the name and origin are kept here.
        bool rowStored = true;
        bool fromSpans = false;
        const std::string* name = nullptr;  // its key in m_requests
    };
    struct HeldEvent {
        std::uint32_t task;
        std::int64_t ord;
        std::uint32_t event, host;
        TimeNs ts;
    };
    RequestState* m_held = nullptr;  // the request whose events m_heldEvents are (or m_summer sums, streamed)
    std::vector<HeldEvent> m_heldEvents;
    // A span request's events come task by task and are summed as they come (m_summer), not held.
    bool m_streamed = false;
    std::uint32_t m_streamTask = 0;
    std::size_t m_streamRenamesFrom = 0, m_streamBackInTimeFrom = 0;  // its entries in m_summer's lists
    std::uint64_t m_maxHeldEvents = std::uint64_t(-1);
    RequestSummer m_summer;

    TraceStore& m_store;
    sqlite3* m_db;
    StringMap<std::uint32_t> m_labels;  // text labels (and legacy "name#k" texts) by text
    // By label id: bit r for each LabelRole r stored, bit 7 when the label is an occurrence of another.
    std::vector<std::uint8_t> m_labelBits;
    static constexpr std::uint8_t kOccurrenceBit = 0x80;
    // By name id: the ids of its occurrences 2, 3, ... (0 where none yet).
    std::vector<std::vector<std::uint32_t>> m_occurrences;
    // "name#k" texts of older imports whose name is not a label yet: (k, id) by name.
    StringMap<std::vector<std::pair<std::uint32_t, std::uint32_t>>> m_unnamedOccurrences;
    std::uint32_t m_nextLabelId = 1;
    struct PendingLabel {
        std::uint32_t id;
        const std::string* text;  // a key of m_labels; null for an occurrence
        std::uint32_t name, occurrence;
    };
    std::vector<PendingLabel> m_pendingLabels;  // in id order
    static constexpr std::size_t kLabelBatch = 1 << 16;  // labels and roles pending before addEvent flushes them
    std::vector<std::uint64_t> m_pendingRoles;
    StringMap<RequestState> m_requests;
    // The request the last event belonged to: inputs come grouped by request, so most events skip the lookup.
    const std::string* m_lastRequestName = nullptr;
    RequestState* m_lastRequest = nullptr;
    std::uint32_t m_periodId = 0;
    std::int64_t m_importId = 0;
    std::int64_t m_inputOrder = 0;
    std::int64_t m_events = 0;
    std::int64_t m_firstRequestId = 0;
    std::int64_t m_warnings = 0;
    std::int64_t m_renamedBefore = 0;
    bool m_fromSpans = false;
    std::vector<std::string> m_warningSamples;

    // By attribute key id: the value stored for the request that set the key last (inputs are usually
    // grouped by request). Indexed, not searched, so a row with 100,000 columns stays linear.
    struct StoredAttribute {
        std::uint32_t request = 0;  // 0: none yet (request ids start at 1)
        std::uint32_t value = 0;
    };
    std::vector<StoredAttribute> m_attrCache;

    // Events are batched while they are surely new (see addEvent): by task label id, the highest position
    // stored in the current visit of a request (a visit: events of one request in a row).
    struct TaskLastOrd {
        std::uint64_t visit = 0;
        std::int64_t ord = 0;
    };
    PagedArray<TaskLastOrd> m_taskLastOrd;
    std::uint64_t m_visit = 0;
    const RequestState* m_visiting = nullptr;

    sqlite::Statement m_insertLabel, m_insertRequest, m_insertEvent;
    sqlite::Statement m_insertRequestAttr, m_selectRequestAttr, m_insertWarning;
    // The id of the process with these tags (0: none), stored the first time it is seen.
    Result<std::int64_t> processId(const std::vector<std::pair<std::string, std::string>>& tags);
    // Processes (their tags, stored once) by their tags as label ids (processId's key).
    StringMap<std::int64_t> m_processes;
    std::int64_t m_nextProcessId = 1;
    std::string m_processKey;
    std::vector<std::array<std::uint32_t, 2>> m_processTagIds;
    sqlite::Statement m_insertProcess, m_insertProcessAttr;
    sqlite::Statement m_insertSpan, m_updateRequest, m_insertSummedRequest, m_insertRequestSpans;
    BatchedInsert m_eventRows, m_requestAttrRows, m_occurrenceRows, m_roleRows, m_eventAttrRows;
    // Last, so that it is stopped (every job done) before the statements and rows its jobs use go.
    SqlWorker m_worker;
};

} // namespace tracelight
