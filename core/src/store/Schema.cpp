#include "store/Schema.h"

#include <iterator>

namespace tracelight::schema {

namespace {

// The current schema (version 17), table by table. Times are integer nanoseconds; every host, task,
// event, attribute key and value, service, operation and span kind is a label id.
constexpr const char* kCurrent = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);

-- Interned texts. An occurrence of a name ("name#k": the k-th span of one operation in a trace) is its
-- name's id and k, in the same id space; label_text spells both.
CREATE TABLE labels(id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
CREATE TABLE label_roles(label_id INTEGER NOT NULL, role INTEGER NOT NULL, PRIMARY KEY(label_id, role)) WITHOUT ROWID;
CREATE TABLE label_occurrences(id INTEGER PRIMARY KEY, name_id INTEGER NOT NULL, occurrence INTEGER NOT NULL);
CREATE VIEW label_text(id, text) AS SELECT id, text FROM labels
  UNION ALL SELECT o.id, n.text || '#' || o.occurrence FROM label_occurrences o JOIN labels n ON n.id=o.name_id;

-- Periods: named sets of requests. Each import is a batch (requests.period_id); a request may be in several.
CREATE TABLE periods(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, definition TEXT NOT NULL DEFAULT '');
CREATE TABLE imports(id INTEGER PRIMARY KEY, started_utc TEXT NOT NULL, format TEXT NOT NULL, inputs TEXT NOT NULL,
                     period_id INTEGER NOT NULL, requests INTEGER NOT NULL, events INTEGER NOT NULL, warnings INTEGER NOT NULL);

CREATE TABLE requests(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  period_id INTEGER NOT NULL,
  import_id INTEGER NOT NULL,
  event_count INTEGER NOT NULL DEFAULT 0,
  task_count INTEGER NOT NULL DEFAULT 0,
  host_count INTEGER NOT NULL DEFAULT 0,
  start_local_ns INTEGER,     -- first event on the request's origin host, local clock
  latency_local_ns INTEGER,   -- span of the origin host's events, local clock (before skew correction)
  start_ns INTEGER,           -- after skew correction; NULL until analysed
  latency_ns INTEGER,
  from_spans INTEGER NOT NULL DEFAULT 0,          -- from a span format: its clocks are kept unless there is evidence of skew
  events_from_spans INTEGER NOT NULL DEFAULT 0);  -- its events, links and event attributes are derived from its spans
CREATE INDEX requests_by_period ON requests(period_id);
CREATE TABLE period_members(period_id INTEGER NOT NULL, request_id INTEGER NOT NULL,
                            PRIMARY KEY(period_id, request_id)) WITHOUT ROWID;
CREATE TRIGGER requests_join_batch AFTER INSERT ON requests BEGIN
  INSERT OR IGNORE INTO period_members(period_id, request_id) VALUES(NEW.period_id, NEW.id);
END;
CREATE TRIGGER requests_leave_periods AFTER DELETE ON requests BEGIN
  DELETE FROM period_members WHERE request_id=OLD.id;
END;
CREATE TABLE request_attrs(request_id INTEGER NOT NULL, key_id INTEGER NOT NULL, value_id INTEGER NOT NULL,
                           PRIMARY KEY(request_id, key_id)) WITHOUT ROWID;
CREATE TABLE import_warnings(request_id INTEGER NOT NULL, message TEXT NOT NULL);
CREATE INDEX import_warnings_by_request ON import_warnings(request_id);

-- The event model of event logs (and of span requests imported before version 13).
CREATE TABLE events(
  request_id INTEGER NOT NULL,
  task_id INTEGER NOT NULL,
  ord INTEGER NOT NULL,         -- position within the task: the input's seq, or input order
  event_id INTEGER NOT NULL,
  host_id INTEGER NOT NULL,
  ts_ns INTEGER NOT NULL,       -- the host's local clock, nanoseconds since the epoch
  PRIMARY KEY(request_id, task_id, ord)) WITHOUT ROWID;
CREATE TABLE event_attrs(request_id INTEGER NOT NULL, task_id INTEGER NOT NULL, ord INTEGER NOT NULL,
                         key_id INTEGER NOT NULL, value_id INTEGER NOT NULL,
                         PRIMARY KEY(request_id, task_id, ord, key_id)) WITHOUT ROWID;
CREATE TABLE causal_links(request_id INTEGER NOT NULL, from_task_id INTEGER NOT NULL, from_ord INTEGER NOT NULL,
                          to_task_id INTEGER NOT NULL, to_ord INTEGER NOT NULL);
CREATE INDEX causal_links_by_request ON causal_links(request_id);

-- A span request, stored once: its spans (depth first, parents before children), each with its tags, events and
-- links packed into one blob each (store/PackedSpanParts.h; NULL: none).
CREATE TABLE spans(request_id INTEGER NOT NULL, idx INTEGER NOT NULL, span_id TEXT NOT NULL,
                   parent INTEGER NOT NULL,          -- index of the parent span in the request; -1: a root
                   service_id INTEGER NOT NULL, operation_id INTEGER NOT NULL, host_id INTEGER NOT NULL,
                   kind_id INTEGER NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
                   task_id INTEGER NOT NULL,         -- the task its events land in, and their positions there
                   start_ord INTEGER NOT NULL, end_ord INTEGER NOT NULL,
                   detached INTEGER NOT NULL DEFAULT 0,   -- its parent did not wait for it
                   caller INTEGER NOT NULL DEFAULT -1,    -- the span that waited for it where not its parent
                   event_host_id INTEGER NOT NULL DEFAULT 0,  -- the host its events run on
                   enter_id INTEGER NOT NULL DEFAULT 0,       -- its call (or serve) event's name; 0: none
                   leave_id INTEGER NOT NULL DEFAULT 0,       -- its return (or served) event's name; 0: none
                   process_id INTEGER NOT NULL DEFAULT 0,     -- its process's (resource's) tags; 0: none
                   tags BLOB,    -- its own tags: (key, value) label ids
                   events BLOB,  -- its events: name, event-model name (numbered when repeated), time
                   links BLOB,   -- the span ids it links to
                   PRIMARY KEY(request_id, idx)) WITHOUT ROWID;
-- A process's (Jaeger) or resource's (OpenTelemetry) tags, shared by every span of it: stored once, not per span.
-- tags: its (key, value) label ids, "key=value" joined by ",", which finds the same process again.
CREATE TABLE processes(id INTEGER PRIMARY KEY, tags TEXT NOT NULL UNIQUE);
CREATE TABLE process_attrs(process_id INTEGER NOT NULL, pos INTEGER NOT NULL, key_id INTEGER NOT NULL, value_id INTEGER NOT NULL,
                           PRIMARY KEY(process_id, pos)) WITHOUT ROWID;
CREATE TABLE request_spans(request_id INTEGER PRIMARY KEY, span_count INTEGER NOT NULL, error_count INTEGER,
                           service_id INTEGER, operation_id INTEGER, call_service_id INTEGER, call_operation_id INTEGER);

-- Live capture (tracelight-cli serve): each span as it was received, kept so that a trace that gets a late span
-- is assembled again with all of its spans, and the traces still open (no quiet time without a span of them
-- yet), each with how many spans it holds. A trace leaves capture_traces when it is stored as a request.
CREATE TABLE capture_spans(id INTEGER PRIMARY KEY, trace TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX capture_spans_by_trace ON capture_spans(trace, id);
CREATE TABLE capture_traces(trace TEXT PRIMARY KEY, spans INTEGER NOT NULL) WITHOUT ROWID;

-- The analysis: a cache, stale when its version, parameters or the last import change.
CREATE TABLE results(name TEXT PRIMARY KEY, analysis_version INTEGER NOT NULL, params TEXT NOT NULL,
                     created_utc TEXT NOT NULL, data BLOB);
CREATE TABLE clock_offsets(host_id INTEGER PRIMARY KEY, offset_ns INTEGER NOT NULL, parent_host_id INTEGER, rtt_ns INTEGER);
CREATE TABLE clock_pairs(client_host_id INTEGER NOT NULL, server_host_id INTEGER NOT NULL,
                         offset_ns INTEGER NOT NULL,   -- clock(server) - clock(client) as decided; 0 where kept
                         rtt_ns INTEGER NOT NULL,      -- the pair's lowest round trip
                         round_trips INTEGER NOT NULL,
                         outside INTEGER NOT NULL,     -- span round trips whose server lay outside its client
                         rule TEXT NOT NULL,           -- min-rtt, fits, child-outside-parent, confirmed-pair, inconsistent
                         applied INTEGER NOT NULL,
                         PRIMARY KEY(client_host_id, server_host_id)) WITHOUT ROWID;
CREATE TABLE request_analysis(request_id INTEGER PRIMARY KEY, latency_ns INTEGER NOT NULL, blind_ns INTEGER NOT NULL,
                              data BLOB NOT NULL);

-- The same critical paths and slack as rows, for SQL of your own, when the database keeps them (analyze --sql-tables
-- on): a path's parts in time order (kind 'segment' or 'blind', whose names are NULL), every segment's slack (NULL:
-- unbounded). Times from the request's first event on the analysis's clocks. Emptied by every new analysis.
CREATE TABLE critical_path_segments(request_id INTEGER NOT NULL, position INTEGER NOT NULL, kind TEXT NOT NULL,
                                    task TEXT, start_event TEXT, end_event TEXT,
                                    start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
                                    PRIMARY KEY(request_id, position)) WITHOUT ROWID;
CREATE TABLE slack(request_id INTEGER NOT NULL, segment INTEGER NOT NULL,
                   task TEXT NOT NULL, start_event TEXT NOT NULL, end_event TEXT NOT NULL,
                   start_ns INTEGER NOT NULL, duration_ns INTEGER NOT NULL, slack_ns INTEGER,
                   critical INTEGER NOT NULL, network INTEGER NOT NULL,
                   PRIMARY KEY(request_id, segment)) WITHOUT ROWID;

-- Host activity: work on a host that no trace shows (system tasks, compactions, garbage collection, cron), and
-- low-level work marked with a request's context (vertical context injection): its request as imported and,
-- within it, a span. Times on the host's own clock; host and what are labels.
CREATE TABLE host_activity(id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
                           what_id INTEGER NOT NULL, request TEXT, span TEXT);
CREATE INDEX host_activity_by_host ON host_activity(host_id, start_ns);
CREATE INDEX host_activity_by_request ON host_activity(request) WHERE request IS NOT NULL;
-- A record is stored once: the same file added again adds nothing.
CREATE UNIQUE INDEX host_activity_once ON host_activity(host_id, start_ns, end_ns, what_id, ifnull(request, ''), ifnull(span, ''));
-- Each host's longest record, so that a window's query starts no earlier than the longest record before it.
CREATE TABLE host_activity_hosts(host_id INTEGER PRIMARY KEY, longest_ns INTEGER NOT NULL);
)sql";

// ---- the history: version 1 and each step after it, for databases older Tracelights wrote ----------

// Version 1 of the schema. Timestamps are microseconds as REAL; labels are interned once.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE labels(id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
CREATE TABLE label_roles(label_id INTEGER NOT NULL, role INTEGER NOT NULL, PRIMARY KEY(label_id, role)) WITHOUT ROWID;
CREATE TABLE periods(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE imports(id INTEGER PRIMARY KEY, started_utc TEXT NOT NULL, format TEXT NOT NULL, inputs TEXT NOT NULL,
                     period_id INTEGER NOT NULL, requests INTEGER NOT NULL, events INTEGER NOT NULL, warnings INTEGER NOT NULL);
CREATE TABLE requests(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  period_id INTEGER NOT NULL,
  import_id INTEGER NOT NULL,
  event_count INTEGER NOT NULL DEFAULT 0,
  task_count INTEGER NOT NULL DEFAULT 0,
  host_count INTEGER NOT NULL DEFAULT 0,
  start_local_us REAL,     -- first event on the request's origin host, local clock
  latency_local_us REAL,   -- span of the origin host's events, local clock (before skew correction)
  start_us REAL,           -- after skew correction; NULL until analysed
  latency_us REAL);
CREATE INDEX requests_by_period ON requests(period_id);
CREATE TABLE events(
  request_id INTEGER NOT NULL,
  task_id INTEGER NOT NULL,
  ord INTEGER NOT NULL,         -- position within the task: the input's seq, or input order
  event_id INTEGER NOT NULL,
  host_id INTEGER NOT NULL,
  ts_local_us REAL NOT NULL,
  ts_adjusted_us REAL,          -- set by clock-skew correction
  PRIMARY KEY(request_id, task_id, ord)) WITHOUT ROWID;
CREATE TABLE request_attrs(request_id INTEGER NOT NULL, key_id INTEGER NOT NULL, value_id INTEGER NOT NULL,
                           PRIMARY KEY(request_id, key_id)) WITHOUT ROWID;
CREATE TABLE event_attrs(request_id INTEGER NOT NULL, task_id INTEGER NOT NULL, ord INTEGER NOT NULL,
                         key_id INTEGER NOT NULL, value_id INTEGER NOT NULL,
                         PRIMARY KEY(request_id, task_id, ord, key_id)) WITHOUT ROWID;
CREATE TABLE results(name TEXT PRIMARY KEY, analysis_version INTEGER NOT NULL, params TEXT NOT NULL,
                     created_utc TEXT NOT NULL, data BLOB);
)sql";

// Version 2 adds the analysis results: clock offsets per host and per-request critical path and slack.
constexpr const char* kMigrateV1ToV2 = R"sql(
CREATE TABLE clock_offsets(host_id INTEGER PRIMARY KEY, offset_us REAL NOT NULL, parent_host_id INTEGER, rtt_us REAL);
CREATE TABLE request_analysis(request_id INTEGER PRIMARY KEY, latency_us REAL NOT NULL, blind_us REAL NOT NULL,
                              data BLOB NOT NULL);
UPDATE meta SET value='2' WHERE key='schema_version';
)sql";

// Version 3 keeps the causal links that span formats state explicitly, and per-request import warnings.
constexpr const char* kMigrateV2ToV3 = R"sql(
CREATE TABLE causal_links(request_id INTEGER NOT NULL, from_task_id INTEGER NOT NULL, from_ord INTEGER NOT NULL,
                          to_task_id INTEGER NOT NULL, to_ord INTEGER NOT NULL);
CREATE INDEX causal_links_by_request ON causal_links(request_id);
CREATE TABLE import_warnings(request_id INTEGER NOT NULL, message TEXT NOT NULL);
CREATE INDEX import_warnings_by_request ON import_warnings(request_id);
UPDATE meta SET value='3' WHERE key='schema_version';
)sql";

// Version 4 holds time as integer nanoseconds: each event its host's local clock (ts_ns); skew correction
// keeps one offset per host, applied when reading, instead of a second timestamp per event. Microsecond
// REALs are converted to the nearest nanosecond (whole microseconds and the fraction apart: at today's
// epoch, us x 1000 as a double would round to 256 ns); analysed values are dropped (the analysis version
// changed with them, so every cached result recomputes).
constexpr const char* kMigrateV3ToV4 = R"sql(
CREATE TABLE events_v4(
  request_id INTEGER NOT NULL,
  task_id INTEGER NOT NULL,
  ord INTEGER NOT NULL,         -- position within the task: the input's seq, or input order
  event_id INTEGER NOT NULL,
  host_id INTEGER NOT NULL,
  ts_ns INTEGER NOT NULL,       -- the host's local clock, nanoseconds since the epoch
  PRIMARY KEY(request_id, task_id, ord)) WITHOUT ROWID;
INSERT INTO events_v4 SELECT request_id, task_id, ord, event_id, host_id,
  CAST(ts_local_us AS INTEGER) * 1000 + CAST(ROUND((ts_local_us - CAST(ts_local_us AS INTEGER)) * 1000) AS INTEGER) FROM events;
DROP TABLE events;
ALTER TABLE events_v4 RENAME TO events;
CREATE TABLE requests_v4(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  period_id INTEGER NOT NULL,
  import_id INTEGER NOT NULL,
  event_count INTEGER NOT NULL DEFAULT 0,
  task_count INTEGER NOT NULL DEFAULT 0,
  host_count INTEGER NOT NULL DEFAULT 0,
  start_local_ns INTEGER,     -- first event on the request's origin host, local clock
  latency_local_ns INTEGER,   -- span of the origin host's events, local clock (before skew correction)
  start_ns INTEGER,           -- after skew correction; NULL until analysed
  latency_ns INTEGER);
INSERT INTO requests_v4 SELECT id, name, period_id, import_id, event_count, task_count, host_count,
  CAST(start_local_us AS INTEGER) * 1000 + CAST(ROUND((start_local_us - CAST(start_local_us AS INTEGER)) * 1000) AS INTEGER),
  CAST(latency_local_us AS INTEGER) * 1000 + CAST(ROUND((latency_local_us - CAST(latency_local_us AS INTEGER)) * 1000) AS INTEGER), NULL, NULL FROM requests;
DROP TABLE requests;
ALTER TABLE requests_v4 RENAME TO requests;
CREATE INDEX requests_by_period ON requests(period_id);
DROP TABLE clock_offsets;
CREATE TABLE clock_offsets(host_id INTEGER PRIMARY KEY, offset_ns INTEGER NOT NULL, parent_host_id INTEGER, rtt_ns INTEGER);
DROP TABLE request_analysis;
CREATE TABLE request_analysis(request_id INTEGER PRIMARY KEY, latency_ns INTEGER NOT NULL, blind_ns INTEGER NOT NULL,
                              data BLOB NOT NULL);
UPDATE meta SET value='4' WHERE key='schema_version';
)sql";

// Version 5 says which requests came from spans (their clocks are kept unless there is evidence of skew)
// and keeps, per host pair, what clock-skew correction decided and why. Older databases: a request is
// from spans when its import read span formats only, or when it has known causal links (only span
// imports write them).
constexpr const char* kMigrateV4ToV5 = R"sql(
ALTER TABLE requests ADD COLUMN from_spans INTEGER NOT NULL DEFAULT 0;
UPDATE requests SET from_spans=1 WHERE import_id IN (SELECT id FROM imports WHERE format NOT LIKE '%events-%')
  OR id IN (SELECT request_id FROM causal_links);
CREATE TABLE clock_pairs(client_host_id INTEGER NOT NULL, server_host_id INTEGER NOT NULL,
                         offset_ns INTEGER NOT NULL,   -- clock(server) - clock(client) as decided; 0 where kept
                         rtt_ns INTEGER NOT NULL,      -- the pair's lowest round trip
                         round_trips INTEGER NOT NULL,
                         outside INTEGER NOT NULL,     -- span round trips whose server lay outside its client
                         rule TEXT NOT NULL,           -- min-rtt, fits, child-outside-parent, confirmed-pair, inconsistent
                         applied INTEGER NOT NULL,
                         PRIMARY KEY(client_host_id, server_host_id)) WITHOUT ROWID;
UPDATE meta SET value='5' WHERE key='schema_version';
)sql";

// Version 6 keeps the span tree of span imports beside the event model: one row per span (keyed by
// request and the span's index, parents before children), its own tags, its events and its links.
// Labels are interned; span ids stay text (one each, not worth a label). Older databases have no spans.
constexpr const char* kMigrateV5ToV6 = R"sql(
CREATE TABLE spans(request_id INTEGER NOT NULL, idx INTEGER NOT NULL, span_id TEXT NOT NULL,
                   parent INTEGER NOT NULL,          -- index of the parent span in the request; -1: a root
                   service_id INTEGER NOT NULL, operation_id INTEGER NOT NULL, host_id INTEGER NOT NULL,
                   kind_id INTEGER NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
                   task_id INTEGER NOT NULL, start_ord INTEGER NOT NULL, end_ord INTEGER NOT NULL,
                   PRIMARY KEY(request_id, idx)) WITHOUT ROWID;
CREATE TABLE span_attrs(request_id INTEGER NOT NULL, idx INTEGER NOT NULL, pos INTEGER NOT NULL,
                        key_id INTEGER NOT NULL, value_id INTEGER NOT NULL,
                        PRIMARY KEY(request_id, idx, pos)) WITHOUT ROWID;
CREATE TABLE span_events(request_id INTEGER NOT NULL, idx INTEGER NOT NULL, pos INTEGER NOT NULL,
                         name_id INTEGER NOT NULL, ts_ns INTEGER NOT NULL,
                         PRIMARY KEY(request_id, idx, pos)) WITHOUT ROWID;
CREATE TABLE span_links(request_id INTEGER NOT NULL, idx INTEGER NOT NULL, pos INTEGER NOT NULL,
                        span_id TEXT NOT NULL,
                        PRIMARY KEY(request_id, idx, pos)) WITHOUT ROWID;
UPDATE meta SET value='6' WHERE key='schema_version';
)sql";

// Version 7 makes periods named sets of requests: a request may belong to several periods. The
// membership table holds them; requests.period_id stays the import batch, and a trigger makes every
// imported request a member of its batch. A definition records how a defined period was made.
constexpr const char* kMigrateV6ToV7 = R"sql(
ALTER TABLE periods ADD COLUMN definition TEXT NOT NULL DEFAULT '';
CREATE TABLE period_members(period_id INTEGER NOT NULL, request_id INTEGER NOT NULL,
                            PRIMARY KEY(period_id, request_id)) WITHOUT ROWID;
INSERT INTO period_members(period_id, request_id) SELECT period_id, id FROM requests;
UPDATE periods SET definition='import batch';
CREATE TRIGGER requests_join_batch AFTER INSERT ON requests BEGIN
  INSERT OR IGNORE INTO period_members(period_id, request_id) VALUES(NEW.period_id, NEW.id);
END;
CREATE TRIGGER requests_leave_periods AFTER DELETE ON requests BEGIN
  DELETE FROM period_members WHERE request_id=OLD.id;
END;
UPDATE meta SET value='7' WHERE key='schema_version';
)sql";

// Version 8 keeps the k-th occurrence of a name in a request ("name#k": the k-th span of one operation
// in a trace, an event a task logs again) as the name's id and k instead of a text label of its own: a
// trace of a million spans of one operation no longer adds millions of strings and index entries. Its
// label id is shared with the labels table's (one id space); "name#k" texts of older imports stay text.
constexpr const char* kMigrateV7ToV8 = R"sql(
CREATE TABLE label_occurrences(id INTEGER PRIMARY KEY, name_id INTEGER NOT NULL, occurrence INTEGER NOT NULL);
CREATE VIEW label_text(id, text) AS SELECT id, text FROM labels
  UNION ALL SELECT o.id, n.text || '#' || o.occurrence FROM label_occurrences o JOIN labels n ON n.id=o.name_id;
UPDATE meta SET value='8' WHERE key='schema_version';
)sql";

// Version 9 keeps a span's process (Jaeger) or resource (OpenTelemetry) tags apart from its own: they were
// merged into its tags. Older span rows are all "own" (process 0), as they were shown.
constexpr const char* kMigrateV8ToV9 = R"sql(
ALTER TABLE span_attrs ADD COLUMN process INTEGER NOT NULL DEFAULT 0;
UPDATE meta SET value='9' WHERE key='schema_version';
)sql";

// Version 10 keeps whether a span's parent waited for it (detached: FOLLOWS_FROM, a consumer under its
// producer). Older span rows are all waited for, as they were imported.
constexpr const char* kMigrateV9ToV10 = R"sql(
ALTER TABLE spans ADD COLUMN detached INTEGER NOT NULL DEFAULT 0;
UPDATE meta SET value='10' WHERE key='schema_version';
)sql";

// Version 11 keeps the span that waited for a span where that is not its parent (a server called from an
// internal span of its parent's service). Older span rows were imported with their callers as their parents.
constexpr const char* kMigrateV10ToV11 = R"sql(
ALTER TABLE spans ADD COLUMN caller INTEGER NOT NULL DEFAULT -1;
UPDATE meta SET value='11' WHERE key='schema_version';
)sql";

// Version 12 keeps what the request list shows of a span request (summarizeSpanRequest): its entry service and
// operation, its first call out of that service, its spans and how many recorded an error. Older span requests
// get all but the error count (NULL: not counted), from their spans.
constexpr const char* kMigrateV11ToV12 = R"sql(
CREATE TABLE request_spans(request_id INTEGER PRIMARY KEY, span_count INTEGER NOT NULL, error_count INTEGER,
                           service_id INTEGER, operation_id INTEGER, call_service_id INTEGER, call_operation_id INTEGER);
INSERT INTO request_spans(request_id, span_count, service_id, operation_id, call_service_id, call_operation_id)
  SELECT e.request_id, (SELECT COUNT(*) FROM spans c WHERE c.request_id = e.request_id), e.service_id, e.operation_id,
         o.service_id, o.operation_id
  FROM spans e LEFT JOIN spans o ON o.request_id = e.request_id AND o.idx = (
    SELECT MIN(x.idx) FROM spans x WHERE x.request_id = e.request_id AND x.service_id <> e.service_id)
  WHERE e.idx = 0;
UPDATE meta SET value='12' WHERE key='schema_version';
)sql";

// Version 13 stores a span request once: its spans. Its events, causal links and event attributes are
// derived from them when read (SpanEventModel.h), from what each span row now also keeps: the host its
// events run on and the names of the events its waiting span has at its start and end (enter, leave), and
// each span event's name in the event model. Requests imported before keep their stored events
// (events_from_spans 0), read as they always were.
constexpr const char* kMigrateV12ToV13 = R"sql(
ALTER TABLE requests ADD COLUMN events_from_spans INTEGER NOT NULL DEFAULT 0;
ALTER TABLE spans ADD COLUMN event_host_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE spans ADD COLUMN enter_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE spans ADD COLUMN leave_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE span_events ADD COLUMN event_id INTEGER NOT NULL DEFAULT 0;
UPDATE meta SET value='13' WHERE key='schema_version';
)sql";

// Version 14 keeps what the live capture (serve) received: every span as it came, and the traces still open.
constexpr const char* kMigrateV13ToV14 = R"sql(
CREATE TABLE capture_spans(id INTEGER PRIMARY KEY, trace TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX capture_spans_by_trace ON capture_spans(trace, id);
CREATE TABLE capture_traces(trace TEXT PRIMARY KEY, spans INTEGER NOT NULL) WITHOUT ROWID;
UPDATE meta SET value='14' WHERE key='schema_version';
)sql";

// Version 15 adds the critical paths and slack as rows for SQL of your own (empty until asked for).
constexpr const char* kMigrateV14ToV15 = R"sql(
CREATE TABLE critical_path_segments(request_id INTEGER NOT NULL, position INTEGER NOT NULL, kind TEXT NOT NULL,
                                    task TEXT, start_event TEXT, end_event TEXT,
                                    start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
                                    PRIMARY KEY(request_id, position)) WITHOUT ROWID;
CREATE TABLE slack(request_id INTEGER NOT NULL, segment INTEGER NOT NULL,
                   task TEXT NOT NULL, start_event TEXT NOT NULL, end_event TEXT NOT NULL,
                   start_ns INTEGER NOT NULL, duration_ns INTEGER NOT NULL, slack_ns INTEGER,
                   critical INTEGER NOT NULL, network INTEGER NOT NULL,
                   PRIMARY KEY(request_id, segment)) WITHOUT ROWID;
UPDATE meta SET value='15' WHERE key='schema_version';
)sql";

// Version 16 adds host activity: what ran on a host that no trace shows, and low-level work marked with a request.
constexpr const char* kMigrateV15ToV16 = R"sql(
CREATE TABLE host_activity(id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
                           what_id INTEGER NOT NULL, request TEXT, span TEXT);
CREATE INDEX host_activity_by_host ON host_activity(host_id, start_ns);
CREATE INDEX host_activity_by_request ON host_activity(request) WHERE request IS NOT NULL;
-- A record is stored once: the same file added again adds nothing.
CREATE UNIQUE INDEX host_activity_once ON host_activity(host_id, start_ns, end_ns, what_id, ifnull(request, ''), ifnull(span, ''));
-- Each host's longest record, so that a window's query starts no earlier than the longest record before it.
CREATE TABLE host_activity_hosts(host_id INTEGER PRIMARY KEY, longest_ns INTEGER NOT NULL);
UPDATE meta SET value='16' WHERE key='schema_version';
)sql";

// Version 17 stores a process's (resource's) tags once, not on every span of it.
constexpr const char* kMigrateV16ToV17 = R"sql(
CREATE TABLE processes(id INTEGER PRIMARY KEY, tags TEXT NOT NULL UNIQUE);
CREATE TABLE process_attrs(process_id INTEGER NOT NULL, pos INTEGER NOT NULL, key_id INTEGER NOT NULL, value_id INTEGER NOT NULL,
                           PRIMARY KEY(process_id, pos)) WITHOUT ROWID;
ALTER TABLE spans ADD COLUMN process_id INTEGER NOT NULL DEFAULT 0;
-- Each span's process tags in order, as one text; the first span of each distinct text gives its rows.
CREATE TEMP TABLE span_process AS
    SELECT request_id, idx, MIN(pos) AS first_pos, group_concat(key_id || '=' || value_id, ',') AS tags
    FROM (SELECT * FROM span_attrs WHERE process=1 ORDER BY request_id, idx, pos) GROUP BY request_id, idx;
CREATE INDEX temp.span_process_by_tags ON span_process(tags);
CREATE INDEX temp.span_process_by_span ON span_process(request_id, idx);
INSERT INTO processes(tags) SELECT tags FROM span_process GROUP BY tags ORDER BY MIN(request_id * 4294967296 + idx);
INSERT INTO process_attrs(process_id, pos, key_id, value_id)
    SELECT p.id, a.pos - f.first_pos, a.key_id, a.value_id
    FROM processes p
    -- a bare column beside MIN() comes from the row of the minimum (SQLite)
    JOIN (SELECT tags, request_id, idx, first_pos, MIN(request_id * 4294967296 + idx) FROM span_process GROUP BY tags) f
         ON f.tags = p.tags
    JOIN span_attrs a ON a.request_id = f.request_id AND a.idx = f.idx AND a.process = 1;
UPDATE spans SET process_id = (SELECT p.id FROM temp.span_process t JOIN processes p ON p.tags = t.tags
                               WHERE t.request_id = spans.request_id AND t.idx = spans.idx)
    WHERE EXISTS(SELECT 1 FROM temp.span_process t WHERE t.request_id = spans.request_id AND t.idx = spans.idx);
DROP TABLE temp.span_process;
DELETE FROM span_attrs WHERE process=1;
ALTER TABLE span_attrs DROP COLUMN process;
UPDATE meta SET value='17' WHERE key='schema_version';
)sql";

// Version 18 packs a span's own tags, events and links onto its row (three rows' worth of tables fewer per span).
// pack_tags, pack_events and pack_links are the store's own aggregates (store/PackedSpanParts.h).
constexpr const char* kMigrateV17ToV18 = R"sql(
ALTER TABLE spans ADD COLUMN tags BLOB;
ALTER TABLE spans ADD COLUMN events BLOB;
ALTER TABLE spans ADD COLUMN links BLOB;
UPDATE spans SET
    tags = (SELECT pack_tags(pos, key_id, value_id) FROM span_attrs a WHERE a.request_id = spans.request_id AND a.idx = spans.idx),
    events = (SELECT pack_events(pos, name_id, event_id, ts_ns) FROM span_events e
              WHERE e.request_id = spans.request_id AND e.idx = spans.idx),
    links = (SELECT pack_links(pos, span_id) FROM span_links l WHERE l.request_id = spans.request_id AND l.idx = spans.idx);
DROP TABLE span_attrs;
DROP TABLE span_events;
DROP TABLE span_links;
UPDATE meta SET value='18' WHERE key='schema_version';
)sql";

// Each step takes the schema from version i+1 to i+2.
constexpr const char* kMigrations[] = {kMigrateV1ToV2, kMigrateV2ToV3, kMigrateV3ToV4, kMigrateV4ToV5, kMigrateV5ToV6,
                                       kMigrateV6ToV7, kMigrateV7ToV8, kMigrateV8ToV9, kMigrateV9ToV10,
                                       kMigrateV10ToV11, kMigrateV11ToV12, kMigrateV12ToV13, kMigrateV13ToV14,
                                       kMigrateV14ToV15, kMigrateV15ToV16, kMigrateV16ToV17,
                                       kMigrateV17ToV18};

} // namespace

const char* current() { return kCurrent; }
const char* version1() { return kSchemaV1; }
std::span<const char* const> migrations() { return kMigrations; }

static_assert(std::size(kMigrations) == kVersion - 1, "one step per version after the first");

} // namespace tracelight::schema
