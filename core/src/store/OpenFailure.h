#pragma once
// One line saying what really went wrong with the last SQLite call on db (damaged, not a database, locked by
// another process, read-only file or directory); `otherwise` when nothing specific. Defined in TraceStore.cpp.
#include <sqlite3.h>

#include <string>

namespace tracelight {

std::string openFailure(sqlite3* db, const std::string& path, const std::string& otherwise);

} // namespace tracelight
