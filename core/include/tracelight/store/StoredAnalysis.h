#pragma once
// What analyze stores besides the cached results by name (ResultCache.h): the clocks it corrected, as each
// host's offset and each host pair's decision, and each request's critical path and slack, encoded.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tracelight/base/Ids.h"
#include "tracelight/base/Status.h"
#include "tracelight/base/Time.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

// What clock-skew correction stored for a host (label id): local = true + offset.
struct ClockOffsetRow {
    std::uint32_t host;
    TimeNs offsetNs = 0;
    std::optional<std::uint32_t> parentHost;  // the host it was placed from; none for references
    TimeNs rttNs = 0;
};
// What clock-skew correction decided for a host pair (label ids), and which rule fired.
struct ClockPairRow {
    std::uint32_t client = 0, server = 0;
    TimeNs offsetNs = 0;  // clock(server) - clock(client) as decided; 0 where the recorded clocks are kept
    TimeNs rttNs = 0;
    std::int64_t roundTrips = 0, outside = 0;
    std::string rule;
    bool applied = false;
};
// The pairs clock-skew correction adjusted or estimated (every rule but "fits"), the most round trips
// first (ties by client, server), at most as many as asked for; how many there are in all, and how many
// pairs kept their clocks with how many round trips between them.
struct ClockPairDigest {
    std::vector<ClockPairRow> mostEvidence;
    std::int64_t adjusted = 0, kept = 0, keptRoundTrips = 0;
};
// One request's cached analysis as stored.
struct RequestResultRow {
    RequestId id;
    TimeNs startNs = 0;  // adjusted time of its first event
    TimeNs latencyNs = 0;
    TimeNs blindNs = 0;
    std::string_view data;  // the encoded critical path and slack
};
struct StoredRequestResult {
    RequestId id;
    bool analysed = false;  // false: no cached result for it
    TimeNs startNs = 0, latencyNs = 0, blindNs = 0;
    std::string data;
};

// Clock offsets by host label id (empty before the first analysis).
std::unordered_map<std::uint32_t, TimeNs> clockOffsets(const TraceStore& store);
// Inside the caller's transaction, an analysis's results replace the last one's: replaceClockResults
// stores the clock offsets and pairs and drops every request's cached result; storeRequestResults
// then stores rows(i) for i in [0, count), in as many calls as the caller likes (request ids rising
// across them). Requests given no row keep no result.
Status replaceClockResults(TraceStore& store, const std::vector<ClockOffsetRow>& offsets, const std::vector<ClockPairRow>& pairs = {});
Status storeRequestResults(TraceStore& store, std::size_t count, const std::function<RequestResultRow(std::size_t)>& rows);
// An incremental analysis: the clock rows replaced with every request's result kept, and then the results
// of the requests it derives again dropped before storeRequestResults stores them anew.
Status replaceClockRows(TraceStore& store, const std::vector<ClockOffsetRow>& offsets, const std::vector<ClockPairRow>& pairs);
Status dropRequestResults(TraceStore& store, const std::vector<RequestId>& requests);
// Requests with ids up to upTo that an import after importId stored (a live capture replaces a request
// that got a late span): what an incremental analysis checks its earlier requests are unchanged by.
std::int64_t requestsImportedAfter(const TraceStore& store, std::int64_t importId, RequestId upTo);
// Per host pair, what the last analysis's clock-skew correction decided (client, server order).
std::vector<ClockPairRow> clockPairs(const TraceStore& store);
// The digest `analyze` prints, without reading every pair (a corpus of page loads has 800,000).
ClockPairDigest clockPairDigest(const TraceStore& store, std::size_t shown);
// Every cached request result in request id order: (request, start_ns, latency, blind, blob); f returns
// false to stop.
Status scanRequestResults(const TraceStore& store,
                          const std::function<bool(RequestId, TimeNs startNs, TimeNs latencyNs, TimeNs blindNs, std::string_view blob)>& f);
// A request's cached result by name; empty when there is no such request.
std::optional<StoredRequestResult> requestResult(const TraceStore& store, std::string_view name);

} // namespace tracelight
