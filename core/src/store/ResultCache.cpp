// Cached analysis results: one row per name, tagged with the analysis version and the parameters (the last
// import's id among them) that made it, so a result from another version or other parameters is stale.
#include "tracelight/store/ResultCache.h"

#include <sqlite3.h>

#include "store/Sqlite.h"
#include "store/StoreConnection.h"
#include "tracelight/base/UtcNow.h"

namespace tracelight {

Status putResult(TraceStore& store, std::string_view name, int analysisVersion, std::string_view params, std::string_view data) {
    sqlite3* db = StoreConnection::of(store);
    sqlite::Statement q(db,
                        "INSERT OR REPLACE INTO results(name, analysis_version, params, created_utc, data) "
                        "VALUES(?1, ?2, ?3, ?4, ?5)");
    q.bind(1, name).bind(2, analysisVersion).bind(3, params).bind(4, utcNow());
    sqlite3_bind_blob(q.get(), 5, data.data(), static_cast<int>(data.size()), SQLITE_TRANSIENT);
    if (q.step() != SQLITE_DONE) return Status::error(store.path() + ": cannot store result: " + sqlite3_errmsg(db));
    return Status::ok();
}

std::optional<std::string> cachedResult(const TraceStore& store, std::string_view name, int analysisVersion,
                                        std::string_view params) {
    sqlite3* db = StoreConnection::of(store);
    sqlite::Statement q(db, "SELECT data FROM results WHERE name=?1 AND analysis_version=?2 AND params=?3");
    q.bind(1, name).bind(2, analysisVersion).bind(3, params);
    if (q.step() != SQLITE_ROW) return std::nullopt;
    const auto* blob = static_cast<const char*>(sqlite3_column_blob(q.get(), 0));
    return std::string(blob ? blob : "", static_cast<std::size_t>(sqlite3_column_bytes(q.get(), 0)));
}

std::optional<std::string> latestResult(const TraceStore& store, std::string_view name, int analysisVersion) {
    sqlite3* db = StoreConnection::of(store);
    sqlite::Statement q(db, "SELECT data FROM results WHERE name=?1 AND analysis_version=?2");
    q.bind(1, name).bind(2, analysisVersion);
    if (q.step() != SQLITE_ROW) return std::nullopt;
    const auto* blob = static_cast<const char*>(sqlite3_column_blob(q.get(), 0));
    return std::string(blob ? blob : "", static_cast<std::size_t>(sqlite3_column_bytes(q.get(), 0)));
}
} // namespace tracelight
