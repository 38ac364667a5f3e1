#pragma once
// The database connection, for tests (and the fuzz harness) that check the stored rows with their own SQL.
// TraceStore keeps its connection to itself; this one friend is for checking from outside, never for core.
#include "tracelight/store/TraceStore.h"

namespace tracelight::test {

struct StoreAccess {
    static sqlite3* db(const TraceStore& store) { return store.db(); }
};

} // namespace tracelight::test
