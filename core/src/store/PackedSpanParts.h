#pragma once
// A span's own tags, events and links, packed into one blob each on its row of `spans` (a span has a few of
// each, and a row per tag made them most of a span import's rows): unsigned LEB128 varints, each part
// one after another.
//   tags:   key label id, value label id
//   events: name label id, event-model name label id, start time less the previous event's (zigzag; the
//           first less 0)
//   links:  the linked span id's length in bytes, then its bytes
// A blob that does not decode (a damaged file) is reported, not guessed at.
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "tracelight/base/Status.h"

namespace tracelight::packed {

inline void putVarint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>(v | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

// The next varint of `in`, which moves past it; false at the end or on a damaged one.
inline bool getVarint(std::string_view& in, std::uint64_t& v) {
    v = 0;
    for (unsigned shift = 0; shift < 64 && !in.empty(); shift += 7) {
        const auto byte = static_cast<unsigned char>(in.front());
        in.remove_prefix(1);
        v |= std::uint64_t(byte & 0x7f) << shift;
        if (!(byte & 0x80)) return true;
    }
    return false;
}

inline std::uint64_t zigzag(std::int64_t v) { return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63); }
inline std::int64_t unzigzag(std::uint64_t v) { return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1); }

inline void addTag(std::string& out, std::uint32_t key, std::uint32_t value) {
    putVarint(out, key);
    putVarint(out, value);
}
inline void addEvent(std::string& out, std::uint32_t name, std::uint32_t event, std::int64_t tsNs, std::int64_t& previousNs) {
    putVarint(out, name);
    putVarint(out, event);
    putVarint(out, zigzag(tsNs - previousNs));
    previousNs = tsNs;
}
inline void addLink(std::string& out, std::string_view spanId) {
    putVarint(out, spanId.size());
    out.append(spanId);
}

// Each part of a blob to f; false when the blob is damaged (f may have seen the parts before the damage).
template <typename F>  // f(std::uint32_t key, std::uint32_t value)
bool forEachTag(std::string_view blob, F&& f) {
    std::uint64_t key = 0, value = 0;
    while (!blob.empty()) {
        if (!getVarint(blob, key) || !getVarint(blob, value) || key > UINT32_MAX || value > UINT32_MAX) return false;
        f(static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(value));
    }
    return true;
}
template <typename F>  // f(std::uint32_t name, std::uint32_t event, std::int64_t tsNs)
bool forEachEvent(std::string_view blob, F&& f) {
    std::uint64_t name = 0, event = 0, delta = 0;
    std::int64_t ts = 0;
    while (!blob.empty()) {
        if (!getVarint(blob, name) || !getVarint(blob, event) || !getVarint(blob, delta) || name > UINT32_MAX || event > UINT32_MAX)
            return false;
        ts = static_cast<std::int64_t>(static_cast<std::uint64_t>(ts) + static_cast<std::uint64_t>(unzigzag(delta)));
        f(static_cast<std::uint32_t>(name), static_cast<std::uint32_t>(event), ts);
    }
    return true;
}
template <typename F>  // f(std::string_view spanId)
bool forEachLink(std::string_view blob, F&& f) {
    std::uint64_t size = 0;
    while (!blob.empty()) {
        if (!getVarint(blob, size) || size > blob.size()) return false;
        f(blob.substr(0, size));
        blob.remove_prefix(size);
    }
    return true;
}

// The SQL aggregates that pack rows of the tables schema 17 kept them in (the upgrade to 18 uses them), each
// ordered by its first argument, the part's position: pack_tags(pos, key_id, value_id),
// pack_events(pos, name_id, event_id, ts_ns), pack_links(pos, span_id). NULL for no rows.
Status registerPackingFunctions(sqlite3* db);

} // namespace tracelight::packed
