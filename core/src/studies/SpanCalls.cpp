#include "tracelight/studies/SpanCalls.h"

#include "tracelight/studies/Categories.h"

namespace tracelight {

void spanCalls(std::span<const SpanShape> spans, SpanCalls& out) {
    const std::size_t n = spans.size();
    out.service.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const SpanShape& s = spans[i];
        out.service[i] = hostRole(std::string(!s.service.empty() ? s.service : !s.host.empty() ? s.host : std::string_view("?")));
    }
    out.callee.assign(n, -1);
    std::vector<bool> local(n, false);  // a child in its own service: it does work there
    for (std::size_t i = 0; i < n; ++i) {
        const std::int32_t p = spans[i].parent;
        if (p < 0 || static_cast<std::size_t>(p) >= n || static_cast<std::size_t>(p) == i) continue;
        const auto parent = static_cast<std::size_t>(p);
        if (out.service[parent] == out.service[i]) local[parent] = true;
        else if (out.callee[parent] < 0) out.callee[parent] = static_cast<std::int32_t>(i);
    }
    for (std::size_t i = 0; i < n; ++i)
        if (local[i]) out.callee[i] = -1;
}

bool isTripBack(std::string_view startEvent) { return startEvent.starts_with("served "); }

SpanHop spanHop(bool tripBack, std::string_view startService, std::string_view endService) {
    return tripBack ? SpanHop{endService, startService} : SpanHop{startService, endService};
}

std::string& assignHopName(std::string& out, SpanHop hop) {
    return out.assign(hop.caller).append(" \xE2\x86\x92 ").append(hop.callee);
}

} // namespace tracelight
