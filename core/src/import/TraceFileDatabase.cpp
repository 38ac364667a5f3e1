#include "tracelight/import/TraceFileDatabase.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "tracelight/store/TraceStore.h"

namespace tracelight {

namespace fs = std::filesystem;

namespace {

std::string absolute(const std::string& path) {
    std::error_code ec;
    const fs::path p = fs::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

// A stable name for a path (FNV-1a, 64 bits): the same file maps to the same cached database in every run.
std::string hashOf(const std::string& text) {
    std::uint64_t h = 1469598103934665603ULL;
    for (const unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
    return std::string(out, 10);
}

// The database was written after the file last changed.
bool writtenSince(const std::string& database, const std::string& trace) {
    std::error_code a, b;
    const auto dbTime = fs::last_write_time(database, a), fileTime = fs::last_write_time(trace, b);
    return !a && !b && dbTime >= fileTime;
}

} // namespace

bool looksLikeDatabase(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char header[16] = {};
    return in.read(header, sizeof header) && std::memcmp(header, "SQLite format 3\0", 16) == 0;
}

std::string traceCacheFolder() {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    const fs::path base = xdg && *xdg ? fs::path(xdg) : fs::path(home && *home ? home : "/tmp") / ".cache";
    const fs::path folder = base / "tracelight" / "traces";
    std::error_code ec;
    fs::create_directories(folder, ec);
    return folder.string();
}

std::string databaseForTraceFile(const std::string& trace, const std::string& cacheFolder) {
    const fs::path file(absolute(trace));
    const fs::path folder = file.parent_path();
    if (::access(folder.c_str(), W_OK) == 0) return file.string() + ".tldb";
    return (fs::path(cacheFolder) / (file.stem().string() + "-" + hashOf(file.string()) + ".tldb")).string();
}

bool holdsOnlyImportOf(const std::string& database, const std::string& trace) {
    auto store = TraceStore::open(database, TraceStore::Mode::ReadOnly);
    // One an older Tracelight wrote is read once it is upgraded, as any database is when opened for writing.
    if (!store && store.message().find("needs upgrading") != std::string::npos)
        store = TraceStore::open(database, TraceStore::Mode::ReadWrite);
    if (!store) return false;
    const auto imports = store.value()->importedInputs();
    return imports.size() == 1 && imports.front().size() == 1 && absolute(imports.front().front()) == absolute(trace);
}

bool holdsCurrentImportOf(const std::string& database, const std::string& trace) {
    return writtenSince(database, trace) && holdsOnlyImportOf(database, trace);
}

Result<TraceFileDatabase> traceFileDatabase(const std::string& trace, const std::string& cacheFolder) {
    TraceFileDatabase out;
    out.path = databaseForTraceFile(trace, cacheFolder);
    std::error_code ec;
    if (!fs::exists(out.path, ec)) return out;
    // One read of the database says whose it is; its time against the file's (before that read upgrades an
    // older one) says whether it is current.
    const bool current = writtenSince(out.path, trace);
    if (!holdsOnlyImportOf(out.path, trace))
        return Status::error(trace + " would be imported into " + out.path + ", which holds other data");
    if (current) {
        out.current = true;
        return out;
    }
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(out.path + suffix, ec);
    return out;
}

} // namespace tracelight
