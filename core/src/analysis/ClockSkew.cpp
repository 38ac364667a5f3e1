#include "tracelight/analysis/ClockSkew.h"

#include <algorithm>
#include <limits>
#include <queue>

namespace tracelight {

void SkewEstimates::add(HostId client, HostId server, TimeNs rttNs, TimeNs offsetNs) {
    const std::uint64_t key = (std::uint64_t(client.value) << 32) | server.value;
    auto [it, fresh] = m_pairs.try_emplace(key, SkewEstimate{rttNs, offsetNs, 1});
    if (fresh) return;
    ++it->second.samples;
    if (rttNs < it->second.rttNs) {
        it->second.rttNs = rttNs;
        it->second.offsetNs = offsetNs;
    }
}

void SkewEstimates::addRequest(std::span<const EventRecord> events) {
    // Tasks are contiguous runs; within a task, find each excursion away from a host and back to it.
    std::size_t taskStart = 0;
    while (taskStart < events.size()) {
        std::size_t taskEnd = taskStart + 1;
        while (taskEnd < events.size() && events[taskEnd].task == events[taskStart].task) ++taskEnd;
        for (std::size_t send = taskStart; send + 1 < taskEnd; ++send) {
            const HostId client = events[send].host;
            if (events[send + 1].host == client) continue;
            // The excursion ends at the task's next event back on the client.
            std::size_t reply = send + 1;
            while (reply < taskEnd && events[reply].host != client) ++reply;
            if (reply == taskEnd) continue;  // never came back: no RPC pattern from here
            // The server is the host the task moved to; deeper hops are patterns of their own.
            const HostId server = events[send + 1].host;
            TimeNs first = events[send + 1].localNs, last = first;
            for (std::size_t j = send + 2; j < reply; ++j)
                if (events[j].host == server) {
                    first = std::min(first, events[j].localNs);
                    last = std::max(last, events[j].localNs);
                }
            // Clocks decades apart are garbage, not skew (and would overflow the arithmetic below).
            if (std::abs(first - events[send].localNs) > kTimestampLimit / 2) continue;
            const TimeNs clientInterval = events[reply].localNs - events[send].localNs;
            const TimeNs rtt = clientInterval - (last - first);
            if (rtt < 0) continue;  // inconsistent logs: a server busy longer than its client waited
            add(client, server, rtt, first - events[send].localNs - rtt / 2);
        }
        taskStart = taskEnd;
    }
}

void SkewEstimates::merge(const SkewEstimates& other) {
    for (const auto& [key, e] : other.m_pairs) {
        auto [it, fresh] = m_pairs.try_emplace(key, e);
        if (fresh) continue;
        it->second.samples += e.samples;
        if (e.rttNs < it->second.rttNs) {
            it->second.rttNs = e.rttNs;
            it->second.offsetNs = e.offsetNs;
        }
    }
}

ClockOffsets solveClockOffsets(const SkewEstimates& estimates, std::size_t hostCount) {
    ClockOffsets result;
    result.offsetNs.assign(hostCount, 0);
    result.parent.assign(hostCount, -1);
    result.rttNs.assign(hostCount, 0);

    // Undirected view: an estimate A->B with offset d gives B = A + d and A = B - d.
    struct Edge { std::uint32_t to; TimeNs rtt; TimeNs offset; };
    std::vector<std::vector<Edge>> adjacent(hostCount);
    std::vector<std::int64_t> degree(hostCount, 0);
    for (const auto& [key, e] : estimates.pairs()) {
        const auto a = static_cast<std::uint32_t>(key >> 32), b = static_cast<std::uint32_t>(key & 0xFFFFFFFFu);
        if (a >= hostCount || b >= hostCount || a == b) continue;
        adjacent[a].push_back({b, e.rttNs, e.offsetNs});
        adjacent[b].push_back({a, e.rttNs, -e.offsetNs});
        degree[a] += e.samples;
        degree[b] += e.samples;
    }
    // Prim's algorithm per connected group: grow the tree along the lowest-RTT estimates.
    std::vector<bool> placed(hostCount, false);
    std::vector<std::uint32_t> byDegree(hostCount);
    for (std::uint32_t h = 0; h < hostCount; ++h) byDegree[h] = h;
    std::stable_sort(byDegree.begin(), byDegree.end(), [&](auto x, auto y) { return degree[x] > degree[y]; });
    using Item = std::tuple<TimeNs, std::uint32_t, std::uint32_t, TimeNs>;  // rtt, host, parent, offset
    for (std::uint32_t root : byDegree) {
        if (placed[root] || adjacent[root].empty()) continue;
        placed[root] = true;
        std::priority_queue<Item, std::vector<Item>, std::greater<>> frontier;
        auto expand = [&](std::uint32_t h) {
            for (const Edge& e : adjacent[h])
                if (!placed[e.to]) frontier.emplace(e.rtt, e.to, h, result.offsetNs[h] + e.offset);
        };
        expand(root);
        while (!frontier.empty()) {
            auto [rtt, host, parent, offset] = frontier.top();
            frontier.pop();
            if (placed[host]) continue;
            placed[host] = true;
            result.offsetNs[host] = offset;
            result.parent[host] = static_cast<std::int32_t>(parent);
            result.rttNs[host] = rtt;
            ++result.correctedHosts;
            expand(host);
        }
    }
    return result;
}

} // namespace tracelight
