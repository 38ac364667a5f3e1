#pragma once
// The trace database: one SQLite file holding events, interned labels, requests, periods and cached results.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tracelight/base/Ids.h"
#include "tracelight/base/Status.h"

struct sqlite3;

namespace tracelight {

// Roles a label plays; a label (say "web-1") may play several.
enum class LabelRole : int { Host = 1, Task = 2, Event = 3, AttributeKey = 4, AttributeValue = 5 };

struct PeriodInfo {
    std::string name;
    std::int64_t requests = 0;
};

struct StoreInfo {
    std::int64_t requests = 0;
    std::int64_t events = 0;
    std::int64_t segments = 0;
    std::int64_t hosts = 0;
    std::vector<PeriodInfo> periods;
};

class TraceStore {
public:
    static constexpr int kSchemaVersion = 4;

    enum class Mode { ReadOnly, ReadWrite, Create };  // Create: read-write, creating the file if missing

    // Opens (or creates) a database; refuses files that are not Tracelight databases or come from a newer version.
    static Result<std::unique_ptr<TraceStore>> open(const std::string& path, Mode mode);
    ~TraceStore();
    TraceStore(const TraceStore&) = delete;
    TraceStore& operator=(const TraceStore&) = delete;

    const std::string& path() const { return m_path; }
    sqlite3* db() const { return m_db; }
    int schemaVersion() const { return m_schemaVersion; }

    Status begin();  // BEGIN IMMEDIATE: one writer at a time
    Status commit();
    void rollback();
    // A read snapshot: every query until endRead() sees the database as it was at the first one, whatever
    // other connections commit meanwhile. Nested inside an open transaction, both do nothing.
    Status beginRead();
    void endRead();

    // The id of the newest import (0 when none): what results computed from this data are stamped with.
    std::int64_t lastImportId() const;

    Result<StoreInfo> info() const;

    // The request's attributes as (key, value) text, in key order.
    std::vector<std::pair<std::string, std::string>> requestAttributes(RequestId request) const;
    std::string label(LabelId id) const;
    std::optional<RequestId> requestByName(std::string_view name) const;

    // Cached analysis results, tagged with the analysis version and its parameters.
    Status putResult(std::string_view name, int analysisVersion, std::string_view params, std::string_view data);
    // Empty when missing, or stale (another version or other parameters).
    std::optional<std::string> result(std::string_view name, int analysisVersion, std::string_view params) const;
    // The newest result of that name and analysis version, whatever its parameters (views show it while
    // a fresh analysis runs).
    std::optional<std::string> latestResult(std::string_view name, int analysisVersion) const;

private:
    TraceStore(std::string path, sqlite3* db) : m_path(std::move(path)), m_db(db) {}
    Status initialise(Mode mode);

    std::string m_path;
    sqlite3* m_db = nullptr;
    int m_schemaVersion = 0;
    bool m_inRead = false;
};

} // namespace tracelight
