#pragma once
// Requests in a trace database by name, and the attributes of a request and of its events.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tracelight/base/Ids.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

std::optional<RequestId> requestByName(const TraceStore& store, std::string_view name);
std::optional<std::string> requestName(const TraceStore& store, RequestId request);
// The request's attributes as (key, value) text, in key order.
std::vector<std::pair<std::string, std::string>> requestAttributes(const TraceStore& store, RequestId request);
// The attributes of the request's events (trace-point parameters, span tags) as (event label, key, value)
// text, in (task, position) order.
struct EventAttribute {
    std::string event, key, value;
};
std::vector<EventAttribute> eventAttributes(const TraceStore& store, RequestId request);
// Request attribute values by request id, for one attribute key.
std::unordered_map<std::uint32_t, std::string> attributeValues(const TraceStore& store, std::string_view key);
// Every attribute key in use, in text order.
std::vector<std::string> attributeKeys(const TraceStore& store);

} // namespace tracelight
