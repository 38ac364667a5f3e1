#pragma once
// The model of a call on span data, shared by the bottleneck types and the suspects: a client span — one whose
// children all run in other services — is what its caller waited; its own time (not covered by the callee's
// spans) is the hop between the two services; any other span's own time is its service's work.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tracelight/store/SpanRecords.h"

namespace tracelight {

struct SpanCalls {
    std::vector<std::string> service;  // per span: its service as the studies name it (hostRole of it, else its host)
    std::vector<std::int32_t> callee;  // per span: for a client span, its first child (a span of the callee); else -1
};

// Refills `out` for one request's spans (parents by index; out-of-range parents are roots).
void spanCalls(std::span<const SpanShape> spans, SpanCalls& out);

} // namespace tracelight
