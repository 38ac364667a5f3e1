#pragma once
// Opening a trace file as people expect: File › Open, `tracelight FILE` and a drop accept a raw trace
// (OTLP, Jaeger, Zipkin, span tables, event logs) as well as a database. A trace file is imported into a
// database of its own — beside it, or in the user's cache folder when its folder is not writable — and that
// database is opened again, without importing, while the file has not changed since.
#include <QString>

namespace tracelight::app {

// SQLite's file header: a database (Tracelight's or not; opening says which), not a trace file. It opens the
// file: not for a database this process has open (closing the descriptor drops SQLite's locks on it).
bool looksLikeDatabase(const QString& path);

// The database a trace file is imported into: FILE.tldb beside it, else the cache folder's
// traces/NAME-HASH.tldb (HASH of the file's absolute path).
QString databaseForTraceFile(const QString& trace);

// The database holds exactly one import, of this very file: it is the file's own database.
bool holdsOnlyImportOf(const QString& database, const QString& trace);
// ... and was written after the file last changed.
bool holdsCurrentImportOf(const QString& database, const QString& trace);

} // namespace tracelight::app
