#pragma once
// A trace file used directly — the app's File › Open, `tracelight-cli critical-path TRACE_FILE` — is imported into
// a database of its own: FILE.tldb beside it, or, when its folder is not writable, NAME-HASH.tldb in the user's
// cache folder. That database is used again, without importing, while it holds the file's import and is newer
// than the file; a stale one of ours is imported afresh; a file of that name holding anything else is left alone
// and the use refused. The app and the command line share this, so each reuses what the other imported.
#include <string>

#include "tracelight/base/Status.h"

namespace tracelight {

// SQLite's file header: a database (Tracelight's or not; opening says which), not a trace file. It opens the
// file: not for a database this process has open (closing the descriptor drops SQLite's locks on it).
bool looksLikeDatabase(const std::string& path);

// $XDG_CACHE_HOME/tracelight/traces, else ~/.cache/tracelight/traces; created when missing.
std::string traceCacheFolder();

// Where the file's own database lives (nothing is created).
std::string databaseForTraceFile(const std::string& trace, const std::string& cacheFolder);

// The database holds exactly one import, of this very file: it is the file's own database.
bool holdsOnlyImportOf(const std::string& database, const std::string& trace);
// ... and was written after the file last changed.
bool holdsCurrentImportOf(const std::string& database, const std::string& trace);

struct TraceFileDatabase {
    std::string path;
    bool current = false;  // holds the file's import as the file is now: use it as it is
};
// The file's own database and whether it is current; an error when that path holds other data. A stale database
// of ours is removed (with its -wal and -shm), ready for a fresh import.
Result<TraceFileDatabase> traceFileDatabase(const std::string& trace, const std::string& cacheFolder);

} // namespace tracelight
