#pragma once
// Which requests a profile covers, as critical path tracing (CACM 2023) chooses them: a random sample of those
// selected (by default 100,000, the paper's compromise between precision and the cost of looking at the
// profile), without the requests an operator asked to trace (not a random sample of the traffic).
#include <cstdint>
#include <string>
#include <vector>

#include "tracelight/base/Ids.h"

namespace tracelight {

class TraceStore;

inline constexpr std::size_t kDefaultProfileSample = 100000;
// Request attributes that mark a request traced on an operator's request: Jaeger's debug id, OpenTracing's
// sampling priority.
std::vector<std::string> defaultOptInMarkers();

// Per row of ids: 1 where one of the markers has a value other than empty (absent), 0 or false.
std::vector<std::uint8_t> optInRows(const TraceStore& store, const std::vector<RequestId>& ids, const std::vector<std::string>& markers);

// At most n of the rows drawn at random (the same for the same seed), in row order; n = 0: all of them.
std::vector<std::uint32_t> sampleRows(std::vector<std::uint32_t> rows, std::size_t n, std::uint64_t seed);

} // namespace tracelight
