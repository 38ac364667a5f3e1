#pragma once
// A process's tags (key and value label ids, in their order), which all its spans share: read once per process
// from process_attrs, for the spans' reads and for the event attributes derived from them.
#include <sqlite3.h>

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "store/Sqlite.h"

namespace tracelight {

class ProcessTagIds {
public:
    using Tags = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

    explicit ProcessTagIds(sqlite3* db) : m_query(db, "SELECT key_id, value_id FROM process_attrs WHERE process_id=?1 ORDER BY pos") {}
    bool isValid() const { return m_query.isValid(); }

    // The tags of process `process` (0: no process, no tags).
    const Tags& of(std::int64_t process) {
        auto [tags, fresh] = m_tags.try_emplace(process);
        if (fresh && process != 0) {
            m_query.bind(1, process);
            while (m_query.step() == SQLITE_ROW)
                tags->second.emplace_back(static_cast<std::uint32_t>(m_query.int64(0)), static_cast<std::uint32_t>(m_query.int64(1)));
            m_query.reset();
        }
        return tags->second;
    }

private:
    sqlite::Statement m_query;
    std::unordered_map<std::int64_t, Tags> m_tags;
};

} // namespace tracelight
