#include "store/ImportWriter.h"
#include "store/PackedSpanParts.h"
#include "tracelight/base/UtcNow.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <ctime>
#include <limits>
#include <optional>
#include <span>
#include <utility>

namespace tracelight {

namespace {
std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

constexpr std::uint32_t kNoLabel = std::numeric_limits<std::uint32_t>::max();
} // namespace

Status ImportWriter::start(std::string_view periodName, std::string_view format, std::string_view inputs) {
    // An import is one transaction: with SQLite's default 2 MB page cache a large one spills dirty pages
    // to the WAL and reads them back while it runs. 32 MB is enough: importing the 60 M-event corpus took
    // as long as with 256 MB (39-41 s either way), and a million-span trace held in memory has less beside it.
    sqlite::exec(m_db, "PRAGMA cache_size=-32768");
    // Kept by the connection: a process that imports again (the app, the fuzz targets) does not parse them again.
    auto prepare = [&](sqlite::Statement& st, const char* sql) { return st.borrow(m_store.cachedStatement(sql)); };
    auto batch = [&](BatchedInsert& rows, const char* head, int columns, const char* what) {
        return rows.prepare(m_db, m_worker, [&](const std::string& sql) { return m_store.cachedStatement(sql); }, head, columns, what);
    };
    if (!prepare(m_insertLabel, "INSERT INTO labels(id, text) VALUES(?1, ?2)") ||
        !prepare(m_insertRequest, "INSERT INTO requests(name, period_id, import_id, from_spans, events_from_spans) VALUES(?1, ?2, ?3, ?4, ?4)") ||
        !prepare(m_insertSummedRequest, "INSERT INTO requests(id, name, period_id, import_id, from_spans, event_count, task_count, "
                                        "host_count, start_local_ns, latency_local_ns, events_from_spans) "
                                        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?5)") ||
        !prepare(m_insertEvent,
                 "INSERT INTO events(request_id, task_id, ord, event_id, host_id, ts_ns) VALUES(?1,?2,?3,?4,?5,?6)") ||
        !batch(m_eventRows, "INSERT INTO events(request_id, task_id, ord, event_id, host_id, ts_ns)", 6, "event") ||
        !batch(m_occurrenceRows, "INSERT INTO label_occurrences(id, name_id, occurrence)", 3, "label") ||
        !batch(m_roleRows, "INSERT OR IGNORE INTO label_roles(label_id, role)", 2, "label role") ||
        !prepare(m_insertProcess, "INSERT INTO processes(id, tags) VALUES(?1, ?2)") ||
        !prepare(m_insertProcessAttr, "INSERT INTO process_attrs(process_id, pos, key_id, value_id) VALUES(?1, ?2, ?3, ?4)") ||
        !batch(m_requestAttrRows, "INSERT OR IGNORE INTO request_attrs(request_id, key_id, value_id)", 3, "attribute") ||
        !batch(m_eventAttrRows, "INSERT OR REPLACE INTO event_attrs(request_id, task_id, ord, key_id, value_id)", 5, "attribute") ||
        !prepare(m_insertRequestAttr,
                 "INSERT OR IGNORE INTO request_attrs(request_id, key_id, value_id) VALUES(?1, ?2, ?3)") ||
        !prepare(m_selectRequestAttr, "SELECT value_id FROM request_attrs WHERE request_id=?1 AND key_id=?2") ||
        !prepare(m_insertWarning, "INSERT INTO import_warnings(request_id, message) VALUES(?1, ?2)") ||
        !prepare(m_updateRequest, "UPDATE requests SET event_count=?1, task_count=?2, host_count=?3, start_local_ns=?4, "
                                  "latency_local_ns=?5 WHERE id=?6") ||
        !prepare(m_insertSpan,
                 "INSERT INTO spans(request_id, idx, span_id, parent, service_id, operation_id, host_id, kind_id, start_ns, "
                 "end_ns, task_id, start_ord, end_ord, detached, caller, event_host_id, enter_id, leave_id, process_id, tags, events, "
                 "links) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22)") ||
        !prepare(m_insertRequestSpans, "INSERT OR REPLACE INTO request_spans(request_id, span_count, error_count, service_id, "
                                       "operation_id, call_service_id, call_operation_id) VALUES(?1,?2,?3,?4,?5,?6,?7)"))
        return Status::error(std::string("cannot prepare import: ") + sqlite3_errmsg(m_db));

    sqlite::Statement labels = cached("SELECT id, text FROM labels");
    while (labels.step() == SQLITE_ROW) {
        const auto id = static_cast<std::uint32_t>(labels.int64(0));
        m_labels.emplace(std::string(labels.text(1)), id);
        m_nextLabelId = std::max(m_nextLabelId, id + 1);
    }
    sqlite::Statement occurrences = cached("SELECT id, name_id, occurrence FROM label_occurrences");
    while (occurrences.step() == SQLITE_ROW) {
        const auto id = static_cast<std::uint32_t>(occurrences.int64(0));
        const auto k = occurrences.int64(2);
        if (k >= 2 && k <= kMaxOccurrence) rememberOccurrence(static_cast<std::uint32_t>(occurrences.int64(1)), static_cast<std::uint32_t>(k), id);
        m_nextLabelId = std::max(m_nextLabelId, id + 1);
        if (id >= m_labelBits.size()) m_labelBits.resize(std::size_t(id) + 1, 0);
        m_labelBits[id] |= kOccurrenceBit;
    }
    // Databases written before occurrences were kept apart hold "name#k" as text: the same task again.
    // Their name may not be a label yet ("call s:op#2" without "call s:op"): it is matched when made.
    for (const auto& [text, id] : m_labels)
        if (auto split = splitOccurrenceName(text)) {
            if (auto name = m_labels.find(split->first); name != m_labels.end()) rememberOccurrence(name->second, split->second, id);
            else m_unnamedOccurrences[std::string(split->first)].push_back({split->second, id});
        }
    sqlite::Statement roles = cached("SELECT label_id, role FROM label_roles");
    while (roles.step() == SQLITE_ROW) {
        const auto id = static_cast<std::size_t>(roles.int64(0));
        if (id >= m_labelBits.size()) m_labelBits.resize(id + 1, 0);
        m_labelBits[id] |= static_cast<std::uint8_t>(1u << (roles.int64(1) & 7));
    }
    if (m_labelBits.size() < m_nextLabelId) m_labelBits.resize(m_nextLabelId, 0);
    sqlite::Statement processes = cached("SELECT id, tags FROM processes");
    while (processes.step() == SQLITE_ROW) {
        m_processes.emplace(std::string(processes.text(1)), processes.int64(0));
        m_nextProcessId = std::max(m_nextProcessId, processes.int64(0) + 1);
    }

    sqlite::Statement period = cached("INSERT INTO periods(name) VALUES(?1) ON CONFLICT(name) DO UPDATE SET name=name RETURNING id");
    period.bind(1, periodName);
    if (period.step() != SQLITE_ROW) return Status::error(std::string("cannot create period: ") + sqlite3_errmsg(m_db));
    m_periodId = static_cast<std::uint32_t>(period.int64(0));
    period.reset();

    const std::string stamp = utcNow();
    sqlite::Statement import = cached("INSERT INTO imports(started_utc, format, inputs, period_id, requests, events, warnings) "
                             "VALUES(?1, ?2, ?3, ?4, 0, 0, 0)");
    import.bind(1, std::string_view(stamp)).bind(2, format).bind(3, inputs).bind(4, m_periodId);
    if (import.step() != SQLITE_DONE) return Status::error(std::string("cannot record import: ") + sqlite3_errmsg(m_db));
    m_importId = sqlite3_last_insert_rowid(m_db);

    sqlite::Statement maxRequest = cached("SELECT COALESCE(MAX(id), 0) FROM requests");
    maxRequest.step();
    m_firstRequestId = maxRequest.int64(0) + 1;
    return Status::ok();
}

Status ImportWriter::writeInBackground(bool on) {
    // The request being held has no row yet (it waits for the summary), and its id is promised: stored now,
    // before a request made without the thread takes the next id from SQLite.
    if (!on && m_held && !m_held->rowStored)
        if (Status s = storeRequestRow(*m_held, nullptr); !s) return s;
    if (!on || m_firstRequestId != 1) return m_worker.stop();  // 1: the store held no requests
    m_worker.start();
    return Status::ok();
}

// New labels get their ids here and reach the database in batches (flushLabels, every kLabelBatch from
// addEvent and at the end): a trace of 100,000 spans names 200,000 tasks, and two statements per new label
// were a third of its import.
std::uint32_t ImportWriter::newLabelId() {
    const std::uint32_t id = m_nextLabelId++;
    if (id >= m_labelBits.size()) m_labelBits.resize(std::max<std::size_t>(std::size_t(id) + 1, m_labelBits.size() * 2), 0);
    return id;
}

void ImportWriter::addRole(std::uint32_t id, LabelRole role) {
    const auto bit = static_cast<std::uint8_t>(1u << static_cast<int>(role));
    if (m_labelBits[id] & (bit | kOccurrenceBit)) return;  // an occurrence's role is its name's
    m_labelBits[id] |= bit;
    m_pendingRoles.push_back((static_cast<std::uint64_t>(id) << 3) | static_cast<std::uint64_t>(role));
}

bool ImportWriter::isName(std::string_view text) const {
    auto it = m_labels.find(text);
    return it != m_labels.end() && !(m_labelBits[it->second] & kOccurrenceBit);
}

Result<std::uint32_t> ImportWriter::intern(std::string_view text, LabelRole role) {
    std::uint32_t id;
    if (auto it = m_labels.find(text); it != m_labels.end()) {
        id = it->second;
    } else if (auto split = splitOccurrenceName(text); split && isName(split->first)) {
        // "name#k" given as text (an event log's task, say) is that occurrence of the name.
        auto occurrence = internOccurrence(m_labels.find(split->first)->second, split->second, role);
        if (!occurrence) return occurrence;
        m_labels.emplace(std::string(text), occurrence.value());
        return occurrence;
    } else {
        if (m_nextLabelId == kNoLabel) return Status::error("too many distinct labels");
        id = newLabelId();
        // A node's key stays where it is when the map rehashes, so the batch can point at it.
        m_pendingLabels.push_back({id, &m_labels.emplace(std::string(text), id).first->first, 0, 0});
        if (auto older = m_unnamedOccurrences.find(text); older != m_unnamedOccurrences.end()) {
            for (auto [k, occurrence] : older->second) rememberOccurrence(id, k, occurrence);
            m_unnamedOccurrences.erase(older);
        }
    }
    addRole(id, role);
    return id;
}

// Slot for an occurrence's id (0: none yet), made on demand; grown geometrically, as names are numbered upwards.
std::uint32_t& ImportWriter::occurrenceSlot(std::uint32_t name, std::uint32_t occurrence) {
    if (name >= m_occurrences.size()) m_occurrences.resize(std::max<std::size_t>(std::size_t(name) + 1, m_occurrences.size() * 2));
    auto& ids = m_occurrences[name];
    if (occurrence - 2 >= ids.size()) ids.resize(std::max<std::size_t>(occurrence - 1, ids.size() * 2), 0);
    return ids[occurrence - 2];
}

void ImportWriter::rememberOccurrence(std::uint32_t name, std::uint32_t occurrence, std::uint32_t id) {
    std::uint32_t& slot = occurrenceSlot(name, occurrence);
    if (slot == 0) slot = id;
}

Result<std::uint32_t> ImportWriter::internOccurrence(std::uint32_t name, std::uint32_t occurrence, LabelRole role) {
    if (occurrence <= 1) return name;
    if (occurrence > kMaxOccurrence) return Status::error("more than " + std::to_string(kMaxOccurrence) + " occurrences of one name");
    // An occurrence of an occurrence (a task logging "call x#2" twice) is rare: kept as text.
    if (name < m_labelBits.size() && (m_labelBits[name] & kOccurrenceBit)) {
        // So that the store can spell the name: the labels so far stored, then read on this thread.
        if (Status s = flushLabels(); !s) return s;
        if (Status s = m_worker.drain(); !s) return s;
        return intern(occurrenceName(m_store.label(LabelId(name)), occurrence), role);
    }
    std::uint32_t& id = occurrenceSlot(name, occurrence);
    if (id == 0) {
        if (m_nextLabelId == kNoLabel) return Status::error("too many distinct labels");
        id = newLabelId();
        m_labelBits[id] |= kOccurrenceBit;
        m_pendingLabels.push_back({id, nullptr, name, occurrence});
    }
    return id;
}

Result<std::uint32_t> ImportWriter::intern(std::string_view text, std::uint32_t occurrence, LabelRole role) {
    auto name = intern(text, role);
    if (!name || occurrence <= 1) return name;
    return internOccurrence(name.value(), occurrence, role);
}

Status ImportWriter::flushLabels() {
    // In id order, which is both tables' rowid order (text order, the unique index's, measured slower);
    // the roles in their key's order.
    // Texts are copied for the worker (the map they live in grows on this thread meanwhile).
    std::vector<std::pair<std::uint32_t, std::string>> texts;
    for (const PendingLabel& label : m_pendingLabels) {
        if (label.text) texts.emplace_back(label.id, *label.text);
        else if (Status s = m_occurrenceRows.add(label.id, label.name, label.occurrence); !s) return s;
    }
    m_pendingLabels.clear();
    if (!texts.empty()) {
        Status posted = m_worker.post([this, texts = std::move(texts)] {
            for (const auto& [id, text] : texts) {
                m_insertLabel.bind(1, id).bind(2, std::string_view(text));
                const int rc = m_insertLabel.step();
                m_insertLabel.reset();
                if (rc != SQLITE_DONE) return Status::error(std::string("cannot store label: ") + sqlite3_errmsg(m_db));
            }
            return Status::ok();
        });
        if (!posted) return posted;
    }
    std::sort(m_pendingRoles.begin(), m_pendingRoles.end());
    for (const std::uint64_t key : m_pendingRoles)
        if (Status s = m_roleRows.add(key >> 3, key & 7); !s) return s;
    m_pendingRoles.clear();
    if (Status s = m_occurrenceRows.flush(); !s) return s;
    return m_roleRows.flush();
}

void ImportWriter::warn(std::string message) {
    ++m_warnings;
    // The samples show different problems: a repeated message is counted, not listed again.
    if (wantsSample() && std::find(m_warningSamples.begin(), m_warningSamples.end(), message) == m_warningSamples.end())
        m_warningSamples.push_back(std::move(message));
}

Status ImportWriter::setAttribute(const RequestState& state, std::uint32_t taskId, std::int64_t ord, const RawAttribute& attr) {
    const std::uint32_t request = state.id;
    const bool firstVisit = !state.summed;
    auto key = intern(attr.key, LabelRole::AttributeKey);
    if (!key) return key.status();
    auto value = intern(attr.value, LabelRole::AttributeValue);
    if (!value) return value.status();
    if (key.value() >= m_attrCache.size()) m_attrCache.resize(std::size_t(key.value()) + 1);
    StoredAttribute& cached = m_attrCache[key.value()];
    std::uint32_t stored = cached.value;
    if (cached.request != request && firstVisit) {
        // The request's events so far all came in a row, so the cache knows its keys: this one is new to it.
        if (Status s = m_requestAttrRows.add(request, key.value(), value.value()); !s) return s;
        cached = {request, value.value()};
        stored = value.value();
    } else if (cached.request != request) {
        // A request the input came back to: what an earlier visit stored is in the table.
        if (Status s = m_requestAttrRows.flush(); !s) return s;
        if (Status s = m_worker.drain(); !s) return s;
        m_insertRequestAttr.bind(1, request).bind(2, key.value()).bind(3, value.value());
        m_insertRequestAttr.step();
        m_insertRequestAttr.reset();
        if (sqlite3_changes(m_db) == 1) {
            stored = value.value();
        } else {
            m_selectRequestAttr.bind(1, request).bind(2, key.value());
            if (m_selectRequestAttr.step() == SQLITE_ROW) stored = static_cast<std::uint32_t>(m_selectRequestAttr.int64(0));
            m_selectRequestAttr.reset();
        }
        cached = {request, stored};
    }
    // The request keeps its first value; a differing value stays with the event that logged it (a span's
    // with its span: its event's is derived from there).
    if (stored != value.value() && !state.fromSpans) return m_eventAttrRows.add(request, taskId, ord, key.value(), value.value());
    return Status::ok();
}

Status ImportWriter::addEvent(const RawEvent& e) {
    if (e.request.empty()) return Status::error("empty request id");
    if (e.host.empty()) return Status::error("empty host");
    if (e.task.empty()) return Status::error("empty task");
    if (e.event.empty()) return Status::error("empty event name");
    if (!isPlausibleTimestamp(e.tsNs))
        return Status::error("absurd timestamp " + formatMicroseconds(e.tsNs) + " us (not within the years 1824 to 2116)");

    auto host = intern(e.host, LabelRole::Host);
    if (!host) return host.status();
    auto task = intern(e.task, e.taskOccurrence, LabelRole::Task);
    if (!task) return task.status();
    auto event = intern(e.event, e.eventOccurrence, LabelRole::Event);
    if (!event) return event.status();
    return addEvent(InternedEvent{e.request, host.value(), task.value(), event.value(), e.tsNs, e.seq, e.attributes, e.task});
}

ImportWriter::RequestState* ImportWriter::findRequest(std::string_view name) {
    if (m_lastRequest && *m_lastRequestName == name) return m_lastRequest;
    auto it = m_requests.find(name);
    if (it == m_requests.end()) return nullptr;
    m_lastRequestName = &it->first;  // node-based map: stays where it is when the map rehashes
    m_lastRequest = &it->second;
    return m_lastRequest;
}

Result<ImportWriter::RequestState*> ImportWriter::requestFor(std::string_view name, std::uint32_t host) {
    if (RequestState* known = findRequest(name)) return known;
    if (m_worker.running()) {
        // The id SQLite would give it (the next rowid: this import is the only writer); its row is stored
        // with its first summary (storeRequestRow).
        const auto id = static_cast<std::uint32_t>(m_firstRequestId + static_cast<std::int64_t>(m_requests.size()));
        auto [it, fresh] = m_requests.emplace(std::string(name), RequestState{id, host});
        it->second.rowStored = false;
        it->second.fromSpans = m_fromSpans;
        it->second.name = &it->first;
        return findRequest(name);
    }
    if (Status s = m_worker.drain(); !s) return s;
    m_insertRequest.bind(1, name).bind(2, m_periodId).bind(3, m_importId).bind(4, m_fromSpans ? 1 : 0);
    const int rc = m_insertRequest.step();
    m_insertRequest.reset();
    if (rc == SQLITE_CONSTRAINT)
        return Status::error("request " + quoted(name) + " is already in the database from an earlier import (request ids must be new)");
    if (rc != SQLITE_DONE) return Status::error(std::string("cannot store request: ") + sqlite3_errmsg(m_db));
    auto [it, fresh] = m_requests.emplace(std::string(name), RequestState{static_cast<std::uint32_t>(sqlite3_last_insert_rowid(m_db)), host});
    it->second.fromSpans = m_fromSpans;
    return findRequest(name);
}

Status ImportWriter::addEvent(const InternedEvent& e) {
    if (e.request.empty()) return Status::error("empty request id");
    // New labels go on in batches as they are made, not all at the end: a trace of a million spans makes
    // three million (its tasks' occurrences, and the calls and returns of them).
    if (m_pendingLabels.size() + m_pendingRoles.size() >= kLabelBatch)
        if (Status s = flushLabels(); !s) return s;
    if (!isPlausibleTimestamp(e.tsNs))
        return Status::error("absurd timestamp " + formatMicroseconds(e.tsNs) + " us (not within the years 1824 to 2116)");
    auto request = requestFor(e.request, e.host);
    if (!request) return request.status();
    const std::uint32_t requestId = request.value()->id;
    const std::int64_t ord = e.seq ? *e.seq : m_inputOrder;
    ++m_inputOrder;

    // Batched when the event is surely new: the request's events so far came in this visit and each task's
    // positions rise (the usual input). Else stored now, so that a repeated seq is caught at its own line.
    if (request.value() != m_visiting) {
        m_visiting = request.value();
        ++m_visit;
    }
    TaskLastOrd& last = m_taskLastOrd.at(e.task);
    const bool firstOfTask = last.visit != m_visit;  // in this visit
    const bool rising = firstOfTask || ord > last.ord;
    // A span request's events are derived from its spans when read (SpanEventModel.h): summed, not stored.
    if (request.value()->fromSpans) {
        if (!rising) return Status::error("events of task " + quoted(e.taskText) + " out of order in request " + quoted(e.request));
    } else if (rising && !request.value()->summed) {
        if (Status s = m_eventRows.add(requestId, e.task, ord, e.event, e.host, e.tsNs); !s) return s;
    } else {
        if (Status s = m_eventRows.flush(); !s) return s;
        if (Status s = m_worker.drain(); !s) return s;
        m_insertEvent.bind(1, requestId).bind(2, e.task).bind(3, ord).bind(4, e.event).bind(5, e.host).bind(6, e.tsNs);
        const int rc = m_insertEvent.step();
        m_insertEvent.reset();
        if (rc == SQLITE_CONSTRAINT)
            return Status::error("seq " + std::to_string(ord) + " appears twice for task " + quoted(e.taskText) + " in request " +
                                 quoted(e.request));
        if (rc != SQLITE_DONE) return Status::error(std::string("cannot store event: ") + sqlite3_errmsg(m_db));
    }
    if (rising) last = {m_visit, ord};
    ++m_events;
    if (request.value() != m_held)
        if (Status s = summariseHeld(); !s) return s;
    if (Status s = hold(*request.value(), e.task, ord, e.event, e.host, e.tsNs, firstOfTask, rising); !s) return s;

    for (const RawAttribute& attr : e.attributes) {
        if (attr.value.empty()) continue;  // empty = absent
        if (Status s = setAttribute(*request.value(), e.task, ord, attr); !s) return s;
    }
    return Status::ok();
}

Status ImportWriter::addWarning(std::string_view request, const std::string& message) {
    warn("trace " + std::string(request) + ": " + message);
    const RequestState* state = findRequest(request);
    if (!state) return Status::ok();  // no span of it could be placed: counted, not stored
    if (Status s = m_worker.drain(); !s) return s;
    m_insertWarning.bind(1, state->id).bind(2, message);
    const int rc = m_insertWarning.step();
    m_insertWarning.reset();
    if (rc != SQLITE_DONE) return Status::error(std::string("cannot store warning: ") + sqlite3_errmsg(m_db));
    return Status::ok();
}

Result<std::int64_t> ImportWriter::processId(const std::vector<std::pair<std::string, std::string>>& tags) {
    if (tags.empty()) return std::int64_t{0};
    // Its tags as label ids, "key=value" joined by ",": the same process's spans find one row. Every span has
    // its process's tags: the key and the ids are built in buffers kept from span to span.
    m_processKey.clear();
    m_processTagIds.clear();
    char number[16];
    auto append = [&](std::uint32_t id) {
        const auto end = std::to_chars(number, number + sizeof number, id).ptr;
        m_processKey.append(number, end);
    };
    for (const auto& [k, v] : tags) {
        auto key = intern(k, LabelRole::AttributeKey);
        if (!key) return key.status();
        auto value = intern(v, LabelRole::AttributeValue);
        if (!value) return value.status();
        m_processTagIds.push_back({key.value(), value.value()});
        if (!m_processKey.empty()) m_processKey += ',';
        append(key.value());
        m_processKey += '=';
        append(value.value());
    }
    if (auto it = m_processes.find(m_processKey); it != m_processes.end()) return it->second;
    const std::int64_t id = m_nextProcessId++;
    m_processes.emplace(m_processKey, id);
    Status posted = m_worker.post([this, id, text = m_processKey, ids = m_processTagIds] {
        auto stepped = [&](sqlite::Statement& st) -> Status {
            const int rc = st.step();
            st.reset();
            if (rc != SQLITE_DONE) return Status::error(std::string("cannot store a process's tags: ") + sqlite3_errmsg(m_db));
            return Status::ok();
        };
        m_insertProcess.bind(1, id).bind(2, std::string_view(text));
        if (Status st = stepped(m_insertProcess); !st) return st;
        for (std::size_t k = 0; k < ids.size(); ++k) {
            m_insertProcessAttr.bind(1, id).bind(2, static_cast<std::int64_t>(k)).bind(3, std::int64_t{ids[k][0]}).bind(4, std::int64_t{ids[k][1]});
            if (Status st = stepped(m_insertProcessAttr); !st) return st;
        }
        return Status::ok();
    });
    if (!posted) return posted;
    return id;
}

Status ImportWriter::addSpans(std::string_view request, const RequestSpans& spans, std::span<const SpanModelIds> modelIds,
                              std::span<const std::uint32_t> spanEventIds) {
    if (spans.empty()) return Status::ok();
    if (modelIds.size() != spans.size()) return Status::error("spans of request " + quoted(request) + " without their event names");
    const RequestState* state = findRequest(request);
    if (!state) return Status::error("spans of unknown request " + quoted(request));
    const std::uint32_t requestId = state->id;
    // The rows of up to kChunk spans, handed to the worker together (their ids are text, so not a BatchedInsert).
    constexpr std::size_t kChunk = 1024;
    struct Rows {
        std::vector<std::int64_t> spans;  // kSpanColumns per span, span_id and the packed parts apart
        std::vector<std::string> spanIds;
        std::string packed;                    // each span's tags, events and links (store/PackedSpanParts.h)
        std::vector<std::size_t> packedEnds;   // where each of them ends in packed: three per span
    };
    constexpr std::size_t kSpanColumns = 17;  // idx, parent, ..., caller, event host, enter, leave, process: the statement's 2 and 4 to 19
    Rows rows;
    auto handOver = [&]() -> Status {
        if (rows.spanIds.empty()) return Status::ok();
        Status posted = m_worker.post([this, requestId, rows = std::move(rows)] {
            auto stepped = [&](sqlite::Statement& st, const char* what) -> Status {
                const int rc = st.step();
                st.reset();
                if (rc != SQLITE_DONE) return Status::error(std::string("cannot store ") + what + ": " + sqlite3_errmsg(m_db));
                return Status::ok();
            };
            const std::string_view packed(rows.packed);
            std::size_t from = 0;
            for (std::size_t i = 0; i < rows.spanIds.size(); ++i) {
                const std::int64_t* v = &rows.spans[i * kSpanColumns];
                m_insertSpan.bind(1, requestId).bind(2, v[0]).bind(3, std::string_view(rows.spanIds[i]));
                for (int c = 1; c < int(kSpanColumns); ++c) m_insertSpan.bind(c + 3, v[c]);
                for (int part = 0; part < 3; ++part) {
                    const std::size_t to = rows.packedEnds[i * 3 + std::size_t(part)];
                    m_insertSpan.bindBlob(int(kSpanColumns) + 3 + part, packed.substr(from, to - from));
                    from = to;
                }
                if (Status st = stepped(m_insertSpan, "span"); !st) return st;
            }
            return Status::ok();
        });
        rows = {};
        return posted;
    };
    std::size_t nextEvent = 0;  // in spanEventIds
    for (std::size_t i = 0; i < spans.size(); ++i) {
        const SpanRecord& s = spans[i];
        const auto idx = static_cast<std::int64_t>(i);
        auto service = intern(s.service, LabelRole::Span);
        if (!service) return service.status();
        auto operation = intern(s.operation, LabelRole::Span);
        if (!operation) return operation.status();
        auto host = intern(s.host, LabelRole::Span);
        if (!host) return host.status();
        auto kind = intern(s.kind, LabelRole::Span);
        if (!kind) return kind.status();
        auto task = intern(s.task, s.taskOccurrence, LabelRole::Task);
        if (!task) return task.status();
        auto process = processId(s.processAttributes);
        if (!process) return process.status();
        rows.spans.insert(rows.spans.end(), {idx, static_cast<std::int64_t>(s.parent), service.value(), operation.value(), host.value(),
                                             kind.value(), s.startNs, s.endNs, task.value(), s.startOrd, s.endOrd,
                                             s.detached ? 1 : 0, static_cast<std::int64_t>(s.caller), modelIds[i].host,
                                             modelIds[i].enter, modelIds[i].leave, process.value()});
        rows.spanIds.push_back(s.spanId);
        for (const auto& [k, v] : s.attributes) {
            auto key = intern(k, LabelRole::AttributeKey);
            if (!key) return key.status();
            auto value = intern(v, LabelRole::AttributeValue);
            if (!value) return value.status();
            packed::addTag(rows.packed, key.value(), value.value());
        }
        rows.packedEnds.push_back(rows.packed.size());
        std::int64_t previousNs = 0;
        for (const auto& event : s.events) {
            auto name = intern(event.name, LabelRole::Span);
            if (!name) return name.status();
            if (nextEvent >= spanEventIds.size()) return Status::error("span events of request " + quoted(request) + " without their event names");
            packed::addEvent(rows.packed, name.value(), spanEventIds[nextEvent++], event.tsNs, previousNs);
        }
        rows.packedEnds.push_back(rows.packed.size());
        for (const auto& link : s.links) packed::addLink(rows.packed, link);
        rows.packedEnds.push_back(rows.packed.size());
        if (rows.spanIds.size() == kChunk)
            if (Status st = handOver(); !st) return st;
    }
    if (Status st = handOver(); !st) return st;
    // What the request list shows of it, in the same worker's order.
    const SpanRequestSummary summary = summarizeSpanRequest(spans);
    std::array<std::int64_t, 4> names{-1, -1, -1, -1};  // entry service, operation; first call's service, operation
    for (int k = 0; k < 2; ++k) {
        const std::int32_t at = k == 0 ? summary.entry : summary.firstCall;
        if (at < 0) continue;
        const SpanRecord& s = spans[static_cast<std::size_t>(at)];
        auto service = intern(s.service, LabelRole::Span);
        if (!service) return service.status();
        auto operation = intern(s.operation, LabelRole::Span);
        if (!operation) return operation.status();
        names[2 * k] = service.value();
        names[2 * k + 1] = operation.value();
    }
    return m_worker.post([this, requestId, summary, names] {
        m_insertRequestSpans.bind(1, requestId).bind(2, std::int64_t(summary.spanCount)).bind(3, std::int64_t(summary.errorCount));
        for (int c = 0; c < 4; ++c) {
            if (names[static_cast<std::size_t>(c)] >= 0) m_insertRequestSpans.bind(c + 4, names[static_cast<std::size_t>(c)]);
            else m_insertRequestSpans.bindNull(c + 4);
        }
        const int rc = m_insertRequestSpans.step();
        m_insertRequestSpans.reset();
        if (rc != SQLITE_DONE) return Status::error(std::string("cannot store the request's span summary: ") + sqlite3_errmsg(m_db));
        return Status::ok();
    });
}

Status ImportWriter::hold(RequestState& request, std::uint32_t task, std::int64_t ord, std::uint32_t event, std::uint32_t host,
                          TimeNs ts, bool firstOfTask, bool rising) {
    if (m_held == &request && m_streamed) {
        // Still task by task, each task's positions rising? Else summed again from the table at the end.
        if (task == m_streamTask ? !rising : !firstOfTask) {
            request.summed = request.revisited = true;
            m_held = nullptr;
            m_streamed = false;
            // Its entries so far go, so they take no place among the warning samples meanwhile.
            m_summer.renames.resize(m_streamRenamesFrom);
            m_summer.backInTime.resize(m_streamBackInTimeFrom);
            return request.rowStored ? Status::ok() : storeRequestRow(request, nullptr);
        }
        m_streamTask = task;
        m_summer.add(task, ord, event, host, ts);
        return Status::ok();
    }
    if (m_held != &request && !request.summed && request.fromSpans) {
        // A trace's events come task by task in position order (the span assembler makes them so): summed as
        // they come, not held and sorted (a million-span trace: four million events, 128 MB).
        m_held = &request;
        m_streamed = true;
        m_streamTask = task;
        m_streamRenamesFrom = m_summer.renames.size();
        m_streamBackInTimeFrom = m_summer.backInTime.size();
        m_summer.begin(request.id, request.originHost);
        m_summer.add(task, ord, event, host, ts);
        return Status::ok();
    }
    if (m_held == &request) {
        if (m_heldEvents.size() >= m_maxHeldEvents) {
            // Too big to hold: summed from the table at the end, like a request the input comes back to.
            request.summed = request.revisited = true;
            m_held = nullptr;
            std::vector<HeldEvent>().swap(m_heldEvents);
            return request.rowStored ? Status::ok() : storeRequestRow(request, nullptr);
        }
        m_heldEvents.push_back({task, ord, event, host, ts});
    } else if (request.summed) {
        request.revisited = true;  // its events so far are in the table; so will these be
    } else {
        m_held = &request;
        m_heldEvents.push_back({task, ord, event, host, ts});
    }
    return Status::ok();
}

Status ImportWriter::storeSummary(std::uint32_t request, const RequestSummer::Totals& totals) {
    return m_worker.post([this, request, totals] {
        sqlite::Statement& summarise = m_updateRequest;
        summarise.bind(1, totals.events).bind(2, totals.tasks).bind(3, totals.hosts);
        if (totals.originSeen) summarise.bind(4, totals.originStart).bind(5, totals.originEnd - totals.originStart);
        else summarise.bindNull(4).bindNull(5);
        summarise.bind(6, request);
        const int rc = summarise.step();
        summarise.reset();
        if (rc != SQLITE_DONE) return Status::error(std::string("cannot summarise request: ") + sqlite3_errmsg(m_db));
        return Status::ok();
    });
}

Status ImportWriter::storeRequestRow(RequestState& request, const RequestSummer::Totals* totals) {
    request.rowStored = true;
    return m_worker.post([this, id = request.id, name = *request.name, fromSpans = request.fromSpans,
                          totals = totals ? *totals : RequestSummer::Totals{}, summed = totals != nullptr] {
        sqlite::Statement& insert = m_insertSummedRequest;
        insert.bind(1, id).bind(2, std::string_view(name)).bind(3, m_periodId).bind(4, m_importId).bind(5, fromSpans ? 1 : 0);
        insert.bind(6, totals.events).bind(7, totals.tasks).bind(8, totals.hosts);
        if (summed && totals.originSeen) insert.bind(9, totals.originStart).bind(10, totals.originEnd - totals.originStart);
        else insert.bindNull(9).bindNull(10);
        const int rc = insert.step();
        insert.reset();
        if (rc != SQLITE_DONE) return Status::error(std::string("cannot store request: ") + sqlite3_errmsg(m_db));
        return Status::ok();
    });
}

Status ImportWriter::summariseHeld() {
    if (!m_held) return Status::ok();
    RequestState& request = *m_held;
    m_held = nullptr;
    RequestSummer::Totals totals;
    if (m_streamed) {
        m_streamed = false;
        totals = m_summer.end();
        // In key order, as a request summed from memory or the table lists them (but for which of its
        // back-in-time samples fit under the cap: the first to come here, the lowest tasks there).
        std::sort(m_summer.renames.begin() + static_cast<std::ptrdiff_t>(m_streamRenamesFrom), m_summer.renames.end(),
                  [](const RequestSummer::Rename& a, const RequestSummer::Rename& b) { return a.task != b.task ? a.task < b.task : a.ord < b.ord; });
        std::stable_sort(m_summer.backInTime.begin() + static_cast<std::ptrdiff_t>(m_streamBackInTimeFrom), m_summer.backInTime.end(),
                         [](const RequestSummer::BackInTime& a, const RequestSummer::BackInTime& b) { return a.task < b.task; });
    } else {
        // Key order; (task, ord) is unique, as the table's key made sure when each was stored.
        std::sort(m_heldEvents.begin(), m_heldEvents.end(),
                  [](const HeldEvent& a, const HeldEvent& b) { return a.task != b.task ? a.task < b.task : a.ord < b.ord; });
        m_summer.begin(request.id, request.originHost);
        for (const HeldEvent& e : m_heldEvents) m_summer.add(e.task, e.ord, e.event, e.host, e.ts);
        totals = m_summer.end();
        m_heldEvents.clear();
    }
    request.summed = true;
    request.backInTime = totals.backInTime;
    if (!request.rowStored) return storeRequestRow(request, &totals);
    return storeSummary(request.id, totals);
}

// Requests the input came back to after moving on (a request spread over several files) are summed again
// from the table: each on its own when they are few, else in one scan of everything this import stored.
Status ImportWriter::summariseAgain(const ProgressSink* progress, const CancelToken* cancel) {
    std::vector<RequestState*> again;
    for (auto& [name, state] : m_requests)
        if (state.revisited) again.push_back(&state);
    if (again.empty()) return Status::ok();
    const bool scanAll = again.size() > m_requests.size() / 8;
    if (scanAll) {
        again.clear();
        for (auto& [name, state] : m_requests) again.push_back(&state);
    }
    std::sort(again.begin(), again.end(), [](const RequestState* a, const RequestState* b) { return a->id < b->id; });
    std::vector<bool> redo(again.back()->id - m_firstRequestId + 1, false);  // by request id - first
    for (const RequestState* r : again) redo[r->id - m_firstRequestId] = true;
    auto redone = [&](std::uint32_t request) {
        return request >= m_firstRequestId && request - m_firstRequestId < static_cast<std::int64_t>(redo.size()) &&
               redo[request - m_firstRequestId];
    };
    std::erase_if(m_summer.renames, [&](const RequestSummer::Rename& r) { return redone(r.request); });
    std::erase_if(m_summer.backInTime, [&](const RequestSummer::BackInTime& b) { return redone(b.request); });

    sqlite::Statement scan = cached("SELECT task_id, ord, event_id, host_id, ts_ns, request_id FROM events "
                                    "WHERE request_id >= ?1 AND request_id < ?2 ORDER BY request_id, task_id, ord");
    ThrottledProgress reporter(progress);
    std::int64_t processed = 0;
    auto sum = [&](std::span<RequestState* const> requests, std::int64_t firstId, std::int64_t endId) -> Status {
        scan.bind(1, firstId).bind(2, endId);
        std::size_t next = 0;
        RequestState* current = nullptr;
        auto close = [&]() -> Status {
            if (!current) return Status::ok();
            const RequestSummer::Totals totals = m_summer.end();
            current->backInTime = totals.backInTime;
            return storeSummary(current->id, totals);
        };
        int rc = SQLITE_ROW;
        while ((rc = scan.step()) == SQLITE_ROW) {
            const auto request = static_cast<std::uint32_t>(scan.int64(5));
            if (!current || request != current->id) {
                if (Status s = close(); !s) return s;
                while (next < requests.size() && requests[next]->id < request) ++next;
                if (next == requests.size() || requests[next]->id != request) {
                    current = nullptr;
                    continue;
                }
                current = requests[next];
                m_summer.begin(current->id, current->originHost);
            }
            if (!current) continue;
            m_summer.add(static_cast<std::uint32_t>(scan.int64(0)), scan.int64(1), static_cast<std::uint32_t>(scan.int64(2)),
                         static_cast<std::uint32_t>(scan.int64(3)), scan.int64(4));
            if ((++processed & 0xFFFF) == 0) {
                if (cancel && cancel->isCancelled()) return Status::error("import cancelled");
                reporter.report(m_events ? double(processed) / double(m_events) : 1.0, "summarising requests");
            }
        }
        scan.reset();
        if (rc != SQLITE_DONE) return Status::error(std::string("cannot read events back: ") + sqlite3_errmsg(m_db));
        return close();
    };
    if (scanAll) return sum(again, m_firstRequestId, std::numeric_limits<std::int64_t>::max());
    for (RequestState* r : again)
        if (Status s = sum(std::span<RequestState* const>(&r, 1), r->id, std::int64_t(r->id) + 1); !s) return s;
    return Status::ok();
}

Status ImportWriter::finish(ImportSummary& summary, const ProgressSink* progress, const CancelToken* cancel) {
    // Every row still waiting in a batch, before anything reads the tables back.
    for (BatchedInsert* rows : {&m_eventRows, &m_requestAttrRows, &m_eventAttrRows})
        if (Status s = rows->flush(); !s) return s;
    if (Status s = summariseHeld(); !s) return s;
    // The rest reads what was written and writes little: on this thread, once every write handed over is done.
    if (Status s = m_worker.stop(); !s) return s;
    if (Status s = summariseAgain(progress, cancel); !s) return s;
    if (Status s = flushLabels(); !s) return s;  // so that warnings can name tasks

    // A request's name as the input gave it, for warnings (only while samples are kept).
    auto nameOf = [&](std::int64_t id) -> std::string {
        for (const auto& [name, state] : m_requests)
            if (state.id == id) return name;
        return "#" + std::to_string(id);
    };
    std::int64_t backInTime = 0;
    for (const auto& [name, state] : m_requests) backInTime += state.backInTime;
    // In request order; within a request they are in key order already.
    std::stable_sort(m_summer.backInTime.begin(), m_summer.backInTime.end(),
                     [](const RequestSummer::BackInTime& a, const RequestSummer::BackInTime& b) { return a.request < b.request; });
    for (const RequestSummer::BackInTime& b : m_summer.backInTime) {
        if (!wantsSample()) break;
        --backInTime;
        warn("request " + quoted(nameOf(b.request)) + ": task " + m_store.label(LabelId(b.task)) +
             " goes back in time on one host (" + formatMicroseconds(b.from) + " -> " + formatMicroseconds(b.to) + " us)");
    }
    m_warnings += backInTime;  // counted; the message (a label lookup) only while samples are kept

    // A task that logs the same event again (a loop, a retried lock) gets EVENT#2, EVENT#3, ...
    sqlite::Statement rename = cached("UPDATE events SET event_id=?1 WHERE request_id=?2 AND task_id=?3 AND ord=?4");
    for (const RequestSummer::Rename& r : m_summer.renames) {
        auto label = internOccurrence(r.event, r.occurrence, LabelRole::Event);
        if (!label) return label.status();
        rename.bind(1, label.value()).bind(2, r.request).bind(3, r.task).bind(4, r.ord);
        const int rc = rename.step();
        rename.reset();
        if (rc != SQLITE_DONE) return Status::error(std::string("cannot number repeated event: ") + sqlite3_errmsg(m_db));
    }

    if (Status s = flushLabels(); !s) return s;  // the EVENT#k labels just made

    summary.requests = static_cast<std::int64_t>(m_requests.size());
    summary.events = m_events;
    summary.renamedEvents = static_cast<std::int64_t>(m_summer.renames.size()) + m_renamedBefore;
    summary.warnings = m_warnings;
    summary.warningSamples = m_warningSamples;
    sqlite::Statement record = cached("UPDATE imports SET requests=?1, events=?2, warnings=?3 WHERE id=?4");
    record.bind(1, summary.requests).bind(2, summary.events).bind(3, summary.warnings).bind(4, m_importId);
    if (record.step() != SQLITE_DONE) return Status::error(std::string("cannot record import: ") + sqlite3_errmsg(m_db));
    if (progress) ThrottledProgress(progress).report(1.0, "summarising requests", true);
    return Status::ok();
}

} // namespace tracelight
