#include "tracelight/compare/TrainSchedule.h"

#include <algorithm>

#include "tracelight/analysis/AnalysisResults.h"

namespace tracelight {

TrainSchedule trainSchedule(const RequestDetail& d) {
    TrainSchedule out;
    const auto& segments = d.dag.segments;
    const TimeNs origin = d.dag.startNs;
    out.latencyNs = d.dag.endNs - d.dag.startNs;
    // Stations in order of first visit (the detail's hosts are, but a host may have no segment of its own).
    std::vector<std::int64_t> station(d.hosts.size(), -1);
    auto stationOf = [&](std::uint32_t host) {
        if (host >= station.size()) station.resize(std::size_t(host) + 1, -1);
        if (station[host] < 0) {
            station[host] = static_cast<std::int64_t>(out.components.size());
            out.components.push_back(host < d.hosts.size() ? d.hosts[host] : "?");
        }
        return static_cast<std::uint32_t>(station[host]);
    };
    std::vector<std::uint32_t> order(segments.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return segments[a].startNs < segments[b].startNs; });
    for (auto i : order) {
        stationOf(d.segmentStartHost[i]);
        stationOf(d.segmentEndHost[i]);
    }

    // Segments in task order (the detail's canonical order): a leg grows while its task stays in one station.
    std::int64_t open = -1;  // index into out.legs of the task's leg still growing
    std::uint32_t openTask = 0;
    for (std::size_t i = 0; i < segments.size(); ++i) {
        const SegmentInstance& s = segments[i];
        const bool critical = i < d.critical.size() && d.critical[i];
        TrainLeg leg{stationOf(d.segmentStartHost[i]), stationOf(d.segmentEndHost[i]), s.startNs - origin, s.endNs - origin, critical};
        if (open >= 0 && openTask == d.segmentTask[i] && leg.from == leg.to) {
            TrainLeg& last = out.legs[static_cast<std::size_t>(open)];
            if (last.from == last.to && last.to == leg.from && last.endNs == leg.startNs && last.critical == leg.critical) {
                last.endNs = leg.endNs;
                continue;
            }
        }
        out.legs.push_back(leg);
        open = leg.from == leg.to ? static_cast<std::int64_t>(out.legs.size() - 1) : -1;
        openTask = d.segmentTask[i];
    }
    std::stable_sort(out.legs.begin(), out.legs.end(), [](const TrainLeg& a, const TrainLeg& b) { return a.startNs < b.startNs; });
    return out;
}

} // namespace tracelight
