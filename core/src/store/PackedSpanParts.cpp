#include "store/PackedSpanParts.h"

#include <algorithm>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace tracelight::packed {

namespace {

// One span's rows as an aggregate collects them: (position, the row's packed part), packed in position order.
struct Parts {
    std::vector<std::pair<std::int64_t, std::string>> rows;
};

Parts* partsOf(sqlite3_context* context, bool create) {
    auto** slot = static_cast<Parts**>(sqlite3_aggregate_context(context, create ? static_cast<int>(sizeof(Parts*)) : 0));
    if (!slot) return nullptr;
    if (!*slot && create) *slot = new (std::nothrow) Parts;
    return *slot;
}

std::uint32_t idArg(sqlite3_value* v) { return static_cast<std::uint32_t>(sqlite3_value_int64(v)); }

template <typename Pack>  // Pack(std::string& into, sqlite3_value** argv): the row's part
void step(sqlite3_context* context, int, sqlite3_value** argv, Pack pack) {
    Parts* parts = partsOf(context, true);
    if (!parts) {
        sqlite3_result_error_nomem(context);
        return;
    }
    std::string part;
    pack(part, argv);
    parts->rows.emplace_back(sqlite3_value_int64(argv[0]), std::move(part));
}

// The parts in position order, one after another. Events are packed as deltas of their times, so each event's
// part is its time alone until here (see stepEvent).
void finish(sqlite3_context* context, bool events) {
    Parts* parts = partsOf(context, false);
    if (!parts) {
        sqlite3_result_null(context);
        return;
    }
    std::stable_sort(parts->rows.begin(), parts->rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string out;
    std::int64_t previous = 0;
    for (const auto& [pos, part] : parts->rows) {
        if (!events) {
            out += part;
            continue;
        }
        std::string_view in(part);
        std::uint64_t name = 0, event = 0, ts = 0;
        getVarint(in, name);
        getVarint(in, event);
        getVarint(in, ts);
        addEvent(out, static_cast<std::uint32_t>(name), static_cast<std::uint32_t>(event), unzigzag(ts), previous);
    }
    delete parts;
    if (out.empty()) sqlite3_result_null(context);
    else sqlite3_result_blob(context, out.data(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
}

void stepTag(sqlite3_context* c, int n, sqlite3_value** argv) {
    step(c, n, argv, [](std::string& into, sqlite3_value** a) { addTag(into, idArg(a[1]), idArg(a[2])); });
}
void stepEvent(sqlite3_context* c, int n, sqlite3_value** argv) {
    step(c, n, argv, [](std::string& into, sqlite3_value** a) {
        putVarint(into, idArg(a[1]));
        putVarint(into, idArg(a[2]));
        putVarint(into, zigzag(sqlite3_value_int64(a[3])));
    });
}
void stepLink(sqlite3_context* c, int n, sqlite3_value** argv) {
    step(c, n, argv, [](std::string& into, sqlite3_value** a) {
        const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(a[1]));
        addLink(into, text ? std::string_view(text, static_cast<std::size_t>(sqlite3_value_bytes(a[1]))) : std::string_view());
    });
}

} // namespace

Status registerPackingFunctions(sqlite3* db) {
    const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
    if (sqlite3_create_function(db, "pack_tags", 3, flags, nullptr, nullptr, stepTag, [](sqlite3_context* c) { finish(c, false); }) != SQLITE_OK ||
        sqlite3_create_function(db, "pack_events", 4, flags, nullptr, nullptr, stepEvent, [](sqlite3_context* c) { finish(c, true); }) != SQLITE_OK ||
        sqlite3_create_function(db, "pack_links", 2, flags, nullptr, nullptr, stepLink, [](sqlite3_context* c) { finish(c, false); }) != SQLITE_OK)
        return Status::error(std::string("cannot register the packing functions: ") + sqlite3_errmsg(db));
    return Status::ok();
}

} // namespace tracelight::packed
