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
#include <vector>

#include "tracelight/base/Status.h"

namespace tracelight {

// The check's verdict on an open connection: ok, or "PATH: database disk image is malformed (...)". With a
// table, only that table and its indexes are checked (no page accounting across the file).
Status quickCheckConnection(sqlite3* db, const std::string& path, const std::string& table = {});

class BackgroundCheck {
public:
    // Opens a read-only connection to path and starts checking it: the whole file, or only `tables` (those
    // the file has, each with its indexes, the schema table first): a job's tables but the one it reads in
    // full itself, where SQLite checks each page it loads.
    explicit BackgroundCheck(const std::string& path, std::vector<std::string> tables = {});
    ~BackgroundCheck();  // an unfinished check is interrupted
    BackgroundCheck(const BackgroundCheck&) = delete;
    BackgroundCheck& operator=(const BackgroundCheck&) = delete;

    // Blocks until the check is done; the same answer on every call.
    Status wait();
    bool done() const { return m_done.load(); }  // wait() would not block
    // For when the job did not read its table in full: the whole file checked now after all, page
    // accounting across tables included (once; the same answer on every call). Ok when the whole file was
    // checked already.
    Status checkLeftOut();
    bool leftOutChecked() const { return m_leftOutDone.load(); }  // a verdict of checkLeftOut() stands

private:
    std::string m_path;
    sqlite3* m_db = nullptr;
    Status m_result = Status::ok();
    std::thread m_thread;
    std::vector<std::string> m_tables;  // empty: the whole file
    Status m_leftOutResult = Status::ok();
    std::once_flag m_joined, m_leftOutChecked;
    std::atomic<bool> m_leftOutDone{false};
    std::atomic<bool> m_done{false};
    std::atomic<bool> m_stop{false};  // set when destroyed unfinished; a progress handler stops the check
};

} // namespace tracelight
