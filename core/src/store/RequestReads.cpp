// Requests by name, and their attributes and their events' attributes.
#include "tracelight/store/RequestReads.h"

#include <sqlite3.h>

#include "store/DerivedEvents.h"
#include "store/Sqlite.h"
#include "store/StoreConnection.h"

namespace tracelight {

std::optional<RequestId> requestByName(const TraceStore& store, std::string_view name) {
    sqlite3* db = StoreConnection::of(store);
    sqlite::Statement q(db, "SELECT id FROM requests WHERE name=?1");
    q.bind(1, name);
    if (q.step() != SQLITE_ROW) return std::nullopt;
    return RequestId(static_cast<std::uint32_t>(q.int64(0)));
}

std::optional<std::string> requestName(const TraceStore& store, RequestId request) {
    sqlite3* db = StoreConnection::of(store);
    sqlite::Statement q(db, "SELECT name FROM requests WHERE id=?1");
    q.bind(1, request.value);
    if (q.step() != SQLITE_ROW) return std::nullopt;
    return std::string(q.text(0));
}

std::vector<std::pair<std::string, std::string>> requestAttributes(const TraceStore& store, RequestId request) {
    sqlite3* db = StoreConnection::of(store);
    std::vector<std::pair<std::string, std::string>> out;
    sqlite::Statement q(db,
                        "SELECT k.text, v.text FROM request_attrs a JOIN labels k ON k.id=a.key_id "
                        "JOIN labels v ON v.id=a.value_id WHERE a.request_id=?1 ORDER BY k.text");
    q.bind(1, request.value);
    while (q.step() == SQLITE_ROW) out.emplace_back(std::string(q.text(0)), std::string(q.text(1)));
    return out;
}

std::vector<EventAttribute> eventAttributes(const TraceStore& store, RequestId request) {
    sqlite3* db = StoreConnection::of(store);
    if (DerivedEvents derived(db); derived.isDerived(request.value)) {
        auto attributes = derived.attributes(request.value);
        return attributes ? std::move(attributes.value()) : std::vector<EventAttribute>{};
    }
    std::vector<EventAttribute> out;
    sqlite::Statement q(db,
                        "SELECT l.text, k.text, v.text FROM event_attrs a JOIN events e ON e.request_id=a.request_id AND "
                        "e.task_id=a.task_id AND e.ord=a.ord JOIN label_text l ON l.id=e.event_id JOIN labels k ON k.id=a.key_id "
                        "JOIN labels v ON v.id=a.value_id WHERE a.request_id=?1 ORDER BY a.task_id, a.ord, k.text");
    q.bind(1, request.value);
    while (q.step() == SQLITE_ROW) out.push_back({std::string(q.text(0)), std::string(q.text(1)), std::string(q.text(2))});
    return out;
}

std::unordered_map<std::uint32_t, std::string> attributeValues(const TraceStore& store, std::string_view key) {
    sqlite3* db = StoreConnection::of(store);
    std::unordered_map<std::uint32_t, std::string> out;
    sqlite::Statement q(db,
                        "SELECT a.request_id, v.text FROM request_attrs a JOIN labels k ON k.id=a.key_id JOIN labels v ON v.id=a.value_id "
                        "WHERE k.text=?1");
    q.bind(1, key);
    while (q.step() == SQLITE_ROW) out.emplace(static_cast<std::uint32_t>(q.int64(0)), std::string(q.text(1)));
    return out;
}

std::vector<std::string> attributeKeys(const TraceStore& store) {
    sqlite3* db = StoreConnection::of(store);
    std::vector<std::string> out;
    sqlite::Statement q(db, "SELECT DISTINCT k.text FROM request_attrs a JOIN labels k ON k.id=a.key_id ORDER BY k.text");
    while (q.step() == SQLITE_ROW) out.emplace_back(q.text(0));
    return out;
}

} // namespace tracelight
