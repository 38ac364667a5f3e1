#pragma once
// The model of a call on span data, shared by the bottleneck types and the suspects: a client span — one whose
// children all run in other services — is what its caller waited; its own time (not covered by the callee's
// spans) is the hop between the two services; any other span's own time is its service's work.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tracelight/store/SpanRecords.h"

namespace tracelight {

struct SpanCalls {
    std::vector<std::string> service;  // per span: its service as the studies name it (hostRole of it, else its host)
    std::vector<std::int32_t> callee;  // per span: for a client span, its first child (a span of the callee); else -1
};

// Refills `out` for one request's spans (parents by index; out-of-range parents are roots).
void spanCalls(std::span<const SpanShape> spans, SpanCalls& out);

// The hop of a call on span data, by the services at the two ends of one of its network segments. Both legs
// are the caller's wait for the callee, so both are the one hop named `caller → callee` (breakdown category,
// profile frame): the trip back, whose start event is the server's "served NAME", runs callee to caller.
struct SpanHop {
    std::string_view caller, callee;
};
bool isTripBack(std::string_view startEvent);
SpanHop spanHop(bool tripBack, std::string_view startService, std::string_view endService);
// Sets `out` to "caller → callee" (U+2192) and returns it.
std::string& assignHopName(std::string& out, SpanHop hop);

} // namespace tracelight
