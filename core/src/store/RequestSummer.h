#pragma once
// What an import records of a request once all its events are in: counts, the origin host's span of
// local time, the repeated <task, event> pairs to number, and tasks that go back in time on one host.
// Fed one request's events in key order (task, then position), from memory or from the events table.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "tracelight/base/PagedArray.h"
#include "tracelight/base/Time.h"

namespace tracelight {

class RequestSummer {
public:
    struct Rename {
        std::uint32_t request, task;
        std::int64_t ord;
        std::uint32_t event;  // as stored; it becomes the occurrence-th of its name
        std::uint32_t occurrence;
    };
    struct BackInTime {
        std::uint32_t request, task;
        TimeNs from, to;
    };
    struct Totals {
        std::int64_t events = 0, tasks = 0, hosts = 0, backInTime = 0;
        bool originSeen = false;  // any event on the origin host
        TimeNs originStart = 0, originEnd = 0;
    };

    void begin(std::uint32_t request, std::uint32_t originHost) {
        m_request = request;
        m_originHost = originHost;
        m_totals = {};
        m_hosts.clear();
        m_task = kNoTask;
    }

    void add(std::uint32_t task, std::int64_t ord, std::uint32_t event, std::uint32_t host, TimeNs ts) {
        if (task != m_task) {
            m_task = task;
            ++m_totals.tasks;
            if (++m_taskSerial == 0) {  // after 4 billion tasks: the slots' serials could read as current
                m_occurrences.clear();
                m_taskSerial = 1;
            }
        } else if (host == m_lastHost && ts < m_lastTs) {
            ++m_totals.backInTime;
            if (backInTime.size() < kMaxBackInTimeSamples) backInTime.push_back({m_request, task, m_lastTs, ts});
        }
        if (m_totals.events == 0 || host != m_lastHost) m_hosts.push_back(host);  // each host at least once, not per event
        m_lastHost = host;
        m_lastTs = ts;
        ++m_totals.events;
        if (host == m_originHost) {
            m_totals.originStart = m_totals.originSeen ? std::min(m_totals.originStart, ts) : ts;
            m_totals.originEnd = m_totals.originSeen ? std::max(m_totals.originEnd, ts) : ts;
            m_totals.originSeen = true;
        }
        // Occurrences of each event within the current task, by event id; the task serial makes a slot
        // from another task read as none, so nothing is cleared per task.
        Occurrences& seen = m_occurrences.at(event);
        if (seen.taskSerial != m_taskSerial) seen = {m_taskSerial, 0};
        if (++seen.count > 1) renames.push_back({m_request, task, ord, event, seen.count});
    }

    Totals end() {
        std::sort(m_hosts.begin(), m_hosts.end());
        m_totals.hosts = std::unique(m_hosts.begin(), m_hosts.end()) - m_hosts.begin();
        return m_totals;
    }

    // Of every request summed so far; a caller that sums a request again drops its entries first.
    std::vector<Rename> renames;
    std::vector<BackInTime> backInTime;  // the first few, for warning samples
    static constexpr std::size_t kMaxBackInTimeSamples = 32;

private:
    static constexpr std::uint32_t kNoTask = ~0u;
    struct Occurrences {
        std::uint32_t taskSerial = 0;
        std::uint32_t count = 0;
    };
    std::uint32_t m_request = 0, m_originHost = 0, m_task = kNoTask, m_lastHost = 0;
    TimeNs m_lastTs = 0;
    std::uint32_t m_taskSerial = 0;
    Totals m_totals;
    std::vector<std::uint32_t> m_hosts;
    PagedArray<Occurrences> m_occurrences;  // by event label id
};

} // namespace tracelight
