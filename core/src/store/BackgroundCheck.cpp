#include "store/BackgroundCheck.h"

#include <algorithm>

#include "store/OpenFailure.h"
#include "store/Sqlite.h"

namespace tracelight {

Status quickCheckConnection(sqlite3* db, const std::string& path) {
    sqlite::Statement check(db, "PRAGMA quick_check(1)");
    const int rc = check.step();
    if (rc == SQLITE_INTERRUPT) return Status::error(path + ": the check of the database was interrupted");
    if (rc != SQLITE_ROW) return Status::error(openFailure(db, path, path + ": cannot check the database"));
    std::string first(check.text(0));
    if (first == "ok") return Status::ok();
    // One line: "*** in database main ***\nPage 13: ..." becomes "Page 13: ...".
    if (const auto header = first.find("***\n"); first.rfind("*** in database", 0) == 0 && header != std::string::npos)
        first.erase(0, header + 4);
    std::replace(first.begin(), first.end(), '\n', ' ');
    return Status::error(path + ": database disk image is malformed (PRAGMA quick_check: " + first + ")");
}

BackgroundCheck::BackgroundCheck(const std::string& path) : m_path(path) {
    if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
        m_result = Status::error(m_db ? openFailure(m_db, path, path + ": cannot check the database")
                                      : path + ": cannot check the database (out of memory)");
        return;
    }
    sqlite3_busy_timeout(m_db, 5000);
    sqlite3_progress_handler(
        m_db, 10000, [](void* self) { return static_cast<BackgroundCheck*>(self)->m_stop.load() ? 1 : 0; }, this);
    m_thread = std::thread([this] { m_result = quickCheckConnection(m_db, m_path); });
}

Status BackgroundCheck::wait() {
    std::call_once(m_joined, [this] {
        if (m_thread.joinable()) m_thread.join();
    });
    return m_result;
}

BackgroundCheck::~BackgroundCheck() {
    m_stop = true;
    wait();
    sqlite3_close(m_db);
}

} // namespace tracelight
