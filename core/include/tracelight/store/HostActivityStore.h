#pragma once
// Host activity in the trace database (table host_activity, schema 16): work on a host that no trace shows,
// and low-level work marked with a request's context (HostActivity.h). Its host and what are labels, shared
// with the traces: a record on "db-1" is filed under the same label as the events on db-1.
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "tracelight/base/Status.h"
#include "tracelight/bottleneck/HostActivity.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

// Adds the records in one transaction: all of them, or (on failure) none, and what was stored before stays.
// A record the database holds already (same host, times, what and marker) is passed over. Returns how many
// were added.
Result<std::int64_t> addHostActivity(TraceStore& store, std::span<const HostActivityInput> records);
// Every record, by host label and start; a marker naming a stored request resolves to it (a request imported
// after the activity too).
Result<HostActivitySet> loadHostActivity(const TraceStore& store);
// Only what a request's context needs (hostActivityQuery in TemporalContext.h): a few of a host's records, not
// all of them, whatever the size of the table.
Result<HostActivitySet> loadHostActivity(const TraceStore& store, const HostActivityQuery& query);
// Every record in order of host and start, one at a time (none kept): visit(record, what) with the text of its
// what; visit returns false to stop reading.
Status forEachHostActivity(const TraceStore& store, const std::function<bool(const HostActivity&, std::string_view what)>& visit);
// The hosts with at least one record, by label (none for a database without the table); an error when the read
// fails, so that a failed read is not taken for no activity.
Result<std::vector<LabelId>> hostActivityHosts(const TraceStore& store);
// How many records the database holds (0 for a database without the table: none).
std::int64_t hostActivityCount(const TraceStore& store);
// Whether it holds any (at once, whatever the table's size; false before schema 16).
bool hasHostActivity(const TraceStore& store);

} // namespace tracelight
