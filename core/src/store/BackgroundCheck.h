#pragma once
// PRAGMA quick_check of a database file on a connection and thread of its own, so a long job that reads the
// file first (analyze: the scan of every event) checks it meanwhile instead of before (on a 2.7 GB
// database the check alone takes as long as the scan). The writer waits for it before anything it wrote
// can reach the file (TraceStore's commit hook and begin()).
#include <sqlite3.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>

#include "tracelight/base/Status.h"

namespace tracelight {

// The check's verdict on an open connection: ok, or "PATH: database disk image is malformed (...)".
Status quickCheckConnection(sqlite3* db, const std::string& path);

class BackgroundCheck {
public:
    // Opens a read-only connection to path and starts checking it.
    explicit BackgroundCheck(const std::string& path);
    ~BackgroundCheck();  // an unfinished check is interrupted
    BackgroundCheck(const BackgroundCheck&) = delete;
    BackgroundCheck& operator=(const BackgroundCheck&) = delete;

    // Blocks until the check is done; the same answer on every call.
    Status wait();

private:
    std::string m_path;
    sqlite3* m_db = nullptr;
    Status m_result = Status::ok();
    std::thread m_thread;
    std::once_flag m_joined;
    std::atomic<bool> m_stop{false};  // set when destroyed unfinished; a progress handler stops the check
};

} // namespace tracelight
