#pragma once
// The A/A study of categorized requests (Google's cloud-application study, NSDI'18), as the `aa` command and
// the Aggregates tab show it: two groups — random halves by request, random halves by user (any attribute),
// or a test period against its control — their latency percentiles with the 95 % interval of the difference,
// what the period comparison flags between them, and the same compared over time: per time bucket both
// groups' percentiles, the load (requests per second) and the request mix (requests per type).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tracelight/compare/AaPercentiles.h"
#include "tracelight/compare/Compare.h"
#include "tracelight/compare/PeriodComparison.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

struct AaStudyOptions {
    std::uint64_t seed = 1;  // the interval's re-splits' (and a random split's, made by the caller)
    int resamples = 1000;
    int buckets = 0;         // time buckets (0: none)
    bool compareGroups = true;  // run the period comparison between the groups (its count of mutations)
};

struct AaStudy {
    std::int64_t requestsA = 0, requestsB = 0;
    std::vector<AaPercentile> percentiles;
    AaResult compare;                     // the period comparison between the two groups
    std::vector<std::string> types;       // request types (Compare.h's requestTypes), most requests first
    std::vector<TimeBucket> buckets;      // their mix in `types` order
};

// c: the requests; inB[i] (0: A, 1: B, 2: neither) and unit[i] (empty: each request alone) per entry of c.rows,
// as groupPercentiles takes them; types[i] its request type for the mix (empty: no mix). compareOptions: the
// period comparison's (A as its baseline).
// startNs: each entry's start for the buckets (empty: c.startNs, on the analysis clock).
AaStudy aaStudy(const RequestCategories& c, std::span<const std::uint8_t> inB, std::span<const std::uint32_t> unit,
                std::span<const std::string> types, const AaStudyOptions& options, const CompareOptions& compareOptions = {},
                std::span<const TimeNs> startNs = {});

// Two compared periods over time, on the analysis clock, in the same buckets (spanning both periods' requests):
// the A/A of the baseline (its random halves, by request) and the problem period against the baseline — the
// test and its control at the same points in time. Periods whose time ranges do not overlap (a normal hour and
// a faulty one) are aligned instead: each request placed at its time since its own period's first request, as
// Spectroscope's timeline overlays them, so a bucket compares the same offset into both periods.
struct PeriodsOverTime {
    AaStudy aa;       // A, B: the baseline's halves
    AaStudy versus;   // A: the baseline, B: the problem period
    bool aligned = false;  // the periods do not overlap in time: times are offsets from each period's first request
};
// users (per entry of c.rows; empty: none): the baseline's A/A splits users (splitByUser), not requests, and its
// interval re-deals users; a baseline request without one is in neither half.
PeriodsOverTime periodsOverTime(const PeriodComparison& pc, std::span<const std::string> types, int buckets, std::uint64_t seed,
                                int resamples, std::span<const std::string> users = {});

// Each request's type (per entry of c.rows, ids: each entry's request id): for span data the operation the
// request list knows it by (RequestTable::operation: below a generic entry such as Online Boutique's
// Frontend/Recv., its first call), else its category's (requestTypes); "(unknown)" for neither.
std::vector<std::string> requestTypeOfEach(const TraceStore& store, const RequestCategories& c, std::span<const RequestId> ids);

} // namespace tracelight
