#pragma once
// Periods: named sets of requests in a trace database (schema 7). Each import's batch is one; more are
// defined by a time window or by a request attribute (ATTR OP VALUE). A request may be in several.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tracelight/base/Ids.h"
#include "tracelight/base/Status.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

struct PeriodDefinition {
    std::string name;
    std::int64_t requests = 0;
    std::string definition;  // "import batch", "time [from, to) us", "where ATTR OP VALUE"
};
std::vector<PeriodDefinition> listPeriods(const TraceStore& store);
// Requests whose (analysed, else local) start lies in [fromNs, toNs).
Result<std::int64_t> addPeriodByTime(TraceStore& store, std::string_view name, std::int64_t fromNs, std::int64_t toNs);
// Requests with attribute ATTR OP VALUE; OP is one of = != < >. Numbers compare numerically, else text.
Result<std::int64_t> addPeriodWhere(TraceStore& store, std::string_view name, std::string_view predicate);
// The requests matching ATTR OP VALUE (as addPeriodWhere), read only: a filter that stores nothing.
Result<std::vector<RequestId>> requestsWhere(const TraceStore& store, std::string_view predicate);
// Ok when some request has the attribute; else the error "no request has the attribute 'K' (attributes: ...)"
// that addPeriodWhere and requestsWhere give, for any command that splits or filters by an attribute.
Status requireAttribute(const TraceStore& store, std::string_view key);
Status renamePeriod(TraceStore& store, std::string_view oldName, std::string_view newName);
// Removes the name and its membership; never requests or events.
Status deletePeriod(TraceStore& store, std::string_view name);
// The requests of a period (import batch or defined period), by name.
std::vector<RequestId> requestsInPeriod(const TraceStore& store, std::string_view period);
// Each request's periods by request id, their names joined by ", " in the order the periods were made.
std::unordered_map<std::uint32_t, std::string> periodNamesByRequest(const TraceStore& store);

} // namespace tracelight
