#pragma once
// Every request's summary in contiguous columns: what the request list shows and sorts.
#include <cstdint>
#include <string>
#include <vector>

#include "tracelight/base/Ids.h"
#include "tracelight/base/Progress.h"
#include "tracelight/base/Status.h"
#include "tracelight/base/Time.h"

namespace tracelight {

class TraceStore;

struct RequestTable {
    std::vector<RequestId> ids;
    std::vector<std::string> names;
    std::vector<std::uint32_t> periodIndex;  // into periodNames: the import batch
    // Every period a request belongs to (its batch and the defined ones), row i's at
    // [memberBegin[i], memberBegin[i + 1]) of memberPeriod (slots into periodNames, in period id order).
    std::vector<std::uint32_t> memberBegin;
    std::vector<std::uint32_t> memberPeriod;
    std::vector<TimeNs> startNs;             // adjusted when analysed, else the origin host's local clock
    std::vector<TimeNs> latencyNs;
    std::vector<std::uint32_t> hostCount;
    std::vector<std::uint32_t> eventCount;
    std::vector<std::string> periodNames;
    bool skewCorrected = false;              // true once every request has adjusted times
    // Request attributes, row i's pairs at [attrBegin[i], attrBegin[i + 1]): key and value are slots in
    // attrLabels (each text once), so a filter compares a key once, not per row.
    std::vector<std::uint32_t> attrBegin;
    std::vector<std::uint32_t> attrKey;
    std::vector<std::uint32_t> attrValue;
    std::vector<std::string> attrLabels;
    // Span requests: what the list shows of each (summarizeSpanRequest), labels as slots into spanLabels
    // (kNoLabel: none; every column is kNoLabel or 0 for a request from an event log).
    static constexpr std::uint32_t kNoLabel = ~0u;
    bool hasSpans = false;
    std::vector<std::uint32_t> spanCount;
    std::vector<std::int32_t> errorCount;  // -1: not counted (a database imported before errors were)
    std::vector<std::uint32_t> service, entryOperation, callService, callOperation;
    // The operation a request is known by: its entry's, or, when one entry operation fronts nearly every
    // request (a generic root such as Online Boutique's Frontend/Recv.), the first call it made.
    std::vector<std::uint32_t> operation;
    std::vector<std::string> spanLabels;

    std::size_t size() const { return ids.size(); }
    bool inPeriod(std::size_t row, std::uint32_t period) const;
    std::string periodList(std::size_t row) const;  // "batch, defined, ..." (", "-separated)
};

// One scan of the requests table, in id order.
Result<RequestTable> loadRequestTable(const TraceStore& store, const CancelToken* cancel = nullptr);

// Row order for a column: the permutation that sorts the table (stable, ties by id).
enum class RequestColumn { Name, Period, Start, Latency, Service, Operation, Spans, Errors, Hosts, Events };
std::vector<std::uint32_t> sortedOrder(const RequestTable& table, RequestColumn column, bool descending);

} // namespace tracelight
