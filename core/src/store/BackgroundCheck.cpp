#include "store/BackgroundCheck.h"

#include <algorithm>
#include <vector>

#include "store/OpenFailure.h"
#include "store/Sqlite.h"

namespace tracelight {

Status quickCheckConnection(sqlite3* db, const std::string& path, const std::string& table) {
    std::string sql = "PRAGMA quick_check(1)";
    if (!table.empty()) {
        std::string quoted;
        for (char c : table) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
        sql = "PRAGMA quick_check(\"" + quoted + "\")";
    }
    sqlite::Statement check(db, sql.c_str());
    const int rc = check.step();
    if (rc == SQLITE_INTERRUPT) return Status::error(path + ": the check of the database was interrupted");
    if (rc != SQLITE_ROW) return Status::error(openFailure(db, path, path + ": cannot check the database"));
    std::string first(check.text(0));
    if (first == "ok") return Status::ok();
    // One line: "*** in database main ***\nPage 13: ...\nPage 14: ..." becomes "Page 13: ..." (a check of one
    // table reports up to a hundred problems in that row; the first says where).
    if (const auto header = first.find("***\n"); first.rfind("*** in database", 0) == 0 && header != std::string::npos)
        first.erase(0, header + 4);
    if (const auto more = first.find('\n'); more != std::string::npos) first.erase(more);
    return Status::error(path + ": database disk image is malformed (PRAGMA quick_check: " + first + ")");
}

namespace {

// The schema table, then each of `tables` the file has (with its indexes).
Status quickCheckTables(sqlite3* db, const std::string& path, const std::vector<std::string>& tables) {
    std::vector<std::string> present{"sqlite_schema"};
    {
        sqlite::Statement names(db, "SELECT name FROM sqlite_schema WHERE type='table' ORDER BY rootpage");
        int rc = SQLITE_ROW;
        while ((rc = names.step()) == SQLITE_ROW)
            if (std::string name(names.text(0)); std::find(tables.begin(), tables.end(), name) != tables.end())
                present.push_back(std::move(name));
        if (rc != SQLITE_DONE) return Status::error(openFailure(db, path, path + ": cannot check the database"));
    }
    for (const std::string& table : present)
        if (Status s = quickCheckConnection(db, path, table); !s) return s;
    return Status::ok();
}

} // namespace

BackgroundCheck::BackgroundCheck(const std::string& path, std::vector<std::string> tables) : m_path(path), m_tables(std::move(tables)) {
    if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
        m_result = Status::error(m_db ? openFailure(m_db, path, path + ": cannot check the database")
                                      : path + ": cannot check the database (out of memory)");
        m_done = true;  // the verdict is in: no thread to wait for
        return;
    }
    sqlite3_busy_timeout(m_db, 5000);
    sqlite3_progress_handler(
        m_db, 10000, [](void* self) { return static_cast<BackgroundCheck*>(self)->m_stop.load() ? 1 : 0; }, this);
    m_thread = std::thread([this] {
        m_result = m_tables.empty() ? quickCheckConnection(m_db, m_path) : quickCheckTables(m_db, m_path, m_tables);
        m_done = true;
    });
}

Status BackgroundCheck::wait() {
    std::call_once(m_joined, [this] {
        if (m_thread.joinable()) m_thread.join();
    });
    return m_result;
}

Status BackgroundCheck::checkLeftOut() {
    if (Status s = wait(); !s) return s;
    std::call_once(m_leftOutChecked, [this] {
        if (!m_tables.empty()) m_leftOutResult = quickCheckConnection(m_db, m_path);
        m_leftOutDone = true;
    });
    return m_leftOutResult;
}

BackgroundCheck::~BackgroundCheck() {
    m_stop = true;
    wait();
    sqlite3_close(m_db);
}

} // namespace tracelight
