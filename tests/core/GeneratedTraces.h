#pragma once
// Turns generated page loads into core's TraceData (on local clocks, as an import would give them),
// keeping the generator's ground truth beside it.
#include <map>
#include <string>
#include <vector>

#include "generator/PageLoadGenerator.h"
#include "tracelight/analysis/TraceData.h"

namespace tracelight::test {

struct GeneratedTraces {
    TraceData data;
    std::vector<samples::GeneratedRequest> truth;   // same order as data's requests
    std::map<std::uint32_t, std::uint32_t> hostOfLabel;  // label id -> generator host index
};

// trueClocks: timestamps without the per-host clock offsets (for checking the skew estimator).
inline GeneratedTraces generateTraces(const samples::PageLoadGenerator& gen, std::int64_t requests, bool trueClocks = false) {
    GeneratedTraces out;
    TraceDataBuilder builder;
    std::map<std::string, std::uint32_t> ids;
    auto intern = [&](const std::string& text) {
        auto [it, fresh] = ids.emplace(text, static_cast<std::uint32_t>(ids.size() + 1));
        if (fresh) builder.setLabel(it->second, text);
        return it->second;
    };
    const auto& tasks = samples::PageLoadGenerator::taskNames();
    const auto& events = samples::PageLoadGenerator::eventNames();
    for (std::int64_t i = 0; i < requests; ++i) {
        auto r = gen.generate(i);
        builder.beginRequest(RequestId(static_cast<std::uint32_t>(i + 1)));
        // Group by task in order of first appearance, as the store's (request, task, position) scan would.
        std::vector<std::uint16_t> taskOrder;
        for (const auto& e : r.events)
            if (std::find(taskOrder.begin(), taskOrder.end(), e.task) == taskOrder.end()) taskOrder.push_back(e.task);
        for (auto task : taskOrder)
            for (const auto& e : r.events) {
                if (e.task != task) continue;
                const std::uint32_t host = intern(gen.hostName(e.host));
                out.hostOfLabel[host] = e.host;
                builder.addEvent(intern(std::string(tasks[e.task])), intern(std::string(events[e.event])), host,
                                 e.trueNs + (trueClocks ? 0 : gen.clockOffsetNs(e.host)));
            }
        out.truth.push_back(std::move(r));
    }
    out.data = builder.finish();
    return out;
}

} // namespace tracelight::test
