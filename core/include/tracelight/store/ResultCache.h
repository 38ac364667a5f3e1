#pragma once
// Cached analysis results in a trace database, by name, tagged with the analysis version and the parameters
// (the last import's id among them) that made them: a result of another version or other parameters is stale.
#include <optional>
#include <string>
#include <string_view>

#include "tracelight/base/Status.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

Status putResult(TraceStore& store, std::string_view name, int analysisVersion, std::string_view params, std::string_view data);
// Empty when missing, or stale (another version or other parameters).
std::optional<std::string> cachedResult(const TraceStore& store, std::string_view name, int analysisVersion, std::string_view params);
// The newest result of that name and analysis version, whatever its parameters (views show it while a fresh
// analysis runs).
std::optional<std::string> latestResult(const TraceStore& store, std::string_view name, int analysisVersion);

} // namespace tracelight
