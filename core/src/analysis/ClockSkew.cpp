#include "tracelight/analysis/ClockSkew.h"

#include <algorithm>
#include <limits>
#include <queue>

#include "tracelight/base/Bytes.h"

namespace tracelight {

std::string_view skewRuleName(SkewRule rule) {
    switch (rule) {
    case SkewRule::MinRtt: return "min-rtt";
    case SkewRule::Fits: return "fits";
    case SkewRule::ChildOutsideParent: return "child-outside-parent";
    case SkewRule::ConfirmedPair: return "confirmed-pair";
    case SkewRule::Inconsistent: return "inconsistent";
    }
    return "?";
}

std::pair<SkewEstimate*, bool> SkewEstimates::findOrAdd(std::uint64_t key, const SkewEstimate& initial) {
    const auto next = static_cast<std::uint32_t>(m_pairs.size());
    const auto [at, fresh] = m_index.emplace(static_cast<std::uint32_t>(key >> 32), static_cast<std::uint32_t>(key), 0, next);
    if (fresh) m_pairs.emplace_back(key, initial);
    return {&m_pairs[at].second, fresh};
}

void SkewEstimates::add(HostId client, HostId server, TimeNs rttNs, TimeNs offsetNs, bool fromSpans, TimeNs lo, TimeNs hi) {
    const std::uint64_t key = (std::uint64_t(client.value) << 32) | server.value;
    auto [found, fresh] = findOrAdd(key, SkewEstimate{rttNs, offsetNs, 0});
    SkewEstimate& e = *found;
    ++e.samples;
    if (fromSpans) {
        ++e.spanTrips;
        // Only a server that starts before its client sent the call is evidence of skew: nothing else
        // explains it. One that ends after the client's reply is explained without skew (work after the
        // response was sent, or a caller that stopped waiting), so it is no evidence, though an applied
        // offset still respects it.
        if (hi < 0) ++e.outside;
        e.loNs = std::max(e.loNs, lo);
        e.hiNs = std::min(e.hiNs, hi);
    } else {
        ++e.eventTrips;
    }
    if (!fresh && rttNs < e.rttNs) {
        e.rttNs = rttNs;
        e.offsetNs = offsetNs;
    }
}

void SkewEstimates::addRequest(std::span<const EventRecord> events, bool fromSpans) {
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
            // The offsets this round trip allows: the server's first event after the send, its last
            // before the reply. Offset 0 outside them is a server outside its client.
            add(client, server, rtt, first - events[send].localNs - rtt / 2, fromSpans, last - events[reply].localNs,
                first - events[send].localNs);
        }
        taskStart = taskEnd;
    }
}

void SkewEstimates::merge(const SkewEstimates& other) {
    for (const auto& [key, e] : other.m_pairs) {
        auto [found, fresh] = findOrAdd(key, e);
        if (fresh) continue;
        SkewEstimate& mine = *found;
        mine.samples += e.samples;
        mine.eventTrips += e.eventTrips;
        mine.spanTrips += e.spanTrips;
        mine.outside += e.outside;
        mine.loNs = std::max(mine.loNs, e.loNs);
        mine.hiNs = std::min(mine.hiNs, e.hiNs);
        if (e.rttNs < mine.rttNs) {
            mine.rttNs = e.rttNs;
            mine.offsetNs = e.offsetNs;
        }
    }
}

std::string SkewEstimates::bytes() const {
    std::string out;
    for (const auto& [key, e] : m_pairs) {
        putValue(out, key);
        putValue(out, e);
    }
    return out;
}

bool SkewEstimates::mergeBytes(std::string_view in) {
    SkewEstimates other;
    while (!in.empty()) {
        std::uint64_t key = 0;
        SkewEstimate e;
        if (!getValue(in, key) || !getValue(in, e)) return false;
        other.findOrAdd(key, e);
    }
    merge(other);
    return true;
}

std::vector<SkewDecision> decideSkew(const SkewEstimates& estimates) {
    std::vector<SkewDecision> out;
    out.reserve(estimates.pairs().size());
    for (const auto& [key, e] : estimates.pairs()) {
        SkewDecision d;
        d.client = HostId(static_cast<std::uint32_t>(key >> 32));
        d.server = HostId(static_cast<std::uint32_t>(key & 0xFFFFFFFFu));
        d.rttNs = e.rttNs;
        d.roundTrips = e.samples;
        d.outside = e.outside;
        if (e.eventTrips > 0) {
            // Event logs: the Mystery Machine's correction, whatever the spans of a mixed database say.
            d.rule = SkewRule::MinRtt;
            d.offsetNs = e.offsetNs;
        } else if (e.outside == 0) {
            d.rule = SkewRule::Fits;  // no evidence of skew: one round trip, or many, that fit is not evidence
        } else if (e.loNs <= e.hiNs) {
            // Every round trip allows one offset range that excludes 0: centre the fastest round trip's
            // server in its client (Jaeger's latency split evenly), kept inside what the others allow.
            d.rule = e.spanTrips >= kConfirmedRoundTrips ? SkewRule::ConfirmedPair : SkewRule::ChildOutsideParent;
            d.offsetNs = std::clamp(e.offsetNs, e.loNs, e.hiNs);
        } else {
            // Some servers lie outside their clients, but no one offset would fit every round trip: the
            // clocks are not shown to be apart (asynchronous work, or noise); the recorded clocks stay.
            d.rule = SkewRule::Inconsistent;
        }
        d.applied = d.rule == SkewRule::MinRtt || d.rule == SkewRule::ChildOutsideParent || d.rule == SkewRule::ConfirmedPair;
        out.push_back(d);
    }
    std::sort(out.begin(), out.end(), [](const SkewDecision& a, const SkewDecision& b) {
        return a.client.value != b.client.value ? a.client.value < b.client.value : a.server.value < b.server.value;
    });
    return out;
}

ClockOffsets solveClockOffsets(const SkewEstimates& estimates, std::size_t hostCount) {
    ClockOffsets result = ClockOffsets::none(hostCount);

    // Undirected view: an estimate A->B with offset d gives B = A + d and A = B - d.
    struct Edge { std::uint32_t to; TimeNs rtt; TimeNs offset; };
    std::vector<std::vector<Edge>> adjacent(hostCount);
    std::vector<std::int64_t> degree(hostCount, 0);
    // Every pair is an edge: an applied one with its offset, a kept one with 0, so that hosts whose
    // clocks agree move together when one of them is corrected (Jaeger shifts the child's subtree).
    result.decisions = decideSkew(estimates);
    for (const SkewDecision& d : result.decisions) {
        const std::uint32_t a = d.client.value, b = d.server.value;
        if (a >= hostCount || b >= hostCount || a == b) continue;
        const TimeNs offset = d.applied ? d.offsetNs : 0;
        adjacent[a].push_back({b, d.rttNs, offset});
        adjacent[b].push_back({a, d.rttNs, -offset});
        degree[a] += d.roundTrips;
        degree[b] += d.roundTrips;
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
            if (offset != 0) ++result.correctedHosts;
            expand(host);
        }
    }
    return result;
}

} // namespace tracelight
