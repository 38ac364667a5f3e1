#pragma once
// The store's connection, for the files of store/ that each hold the SQL of one part of the store (periods,
// ...): TraceStore keeps it to itself otherwise.
struct sqlite3;

namespace tracelight {

class TraceStore;

struct StoreConnection {
    static sqlite3* of(const TraceStore& store);
};

} // namespace tracelight
