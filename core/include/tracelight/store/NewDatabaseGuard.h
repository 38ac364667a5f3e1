#pragma once
// A database file that an import is about to create: removed again, with the -wal, -shm and -journal files
// the import created, unless keep() is called (the import succeeded). A database that existed is never
// touched, so a failed or cancelled import into a new path leaves nothing behind. The CLI and the app both
// use it.
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace tracelight {

class NewDatabaseGuard {
public:
    explicit NewDatabaseGuard(const std::string& db) {
        if (absent(db))
            for (const char* suffix : {"", "-wal", "-shm", "-journal"})
                if (absent(db + suffix)) m_created.push_back(db + suffix);
    }
    ~NewDatabaseGuard() {
        if (m_keep) return;
        for (const auto& path : m_created) {
            std::error_code ec;
            std::filesystem::remove(path, ec);
        }
    }
    void keep() { m_keep = true; }

private:
    static bool absent(const std::string& path) {
        std::error_code ec;
        return !std::filesystem::exists(std::filesystem::symlink_status(path, ec));
    }
    std::vector<std::string> m_created;
    bool m_keep = false;
};

} // namespace tracelight
