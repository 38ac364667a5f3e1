#pragma once
// Who made the problem period slow: the services of span data ranked by how far their calls moved from their
// own normal, each with its evidence (docs/concepts/suspects.md).
//
// One model of a call: a client span (children all on other services) is what its caller waited; its own
// time, not covered by the callee's server span, is the hop between the two services (network, queues); every
// other span's own time is its service's work. For each such key — a service's work, or a hop A → B — three
// tests, each against the base period: its time per request (absent: 0) by van Elteren's stratified rank test,
// request types as strata (a location shift); the share of requests in which one of its spans exceeded its
// operation's base p99 by Fisher's exact test (a tail that a few slow calls make); and the share with a
// span an order of magnitude past its operation's base median against how often that happens to any key of
// the base (a beta-binomial with an empirical-Bayes prior: a few calls far out on a small base). Keys are kept at a
// false discovery rate across keys (tens, not hundreds of frames) and ranked like with like: each key's
// mean own time against what the same operations took in the base (its slowdown). A slower hop A → B is A's
// when, in the requests where it was unusual, A's other spans were unusual more often than in the base and
// more than B's (TraceRCA's service common to the anomalous calls of a trace), else B's. Each service is also
// tested as a whole: the share of requests far in one of its keys (its work, the hops it owns), with the same
// empirical-Bayes prior learnt over the base's services, in the same correction as the keys; a service kept
// that way has its keys with a far span as its evidence, though none may be significant alone.
#include <cstdint>
#include <string>
#include <vector>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/base/Progress.h"
#include "tracelight/base/Status.h"

namespace tracelight {

class TraceStore;

struct SuspectOptions {
    double alpha = 0.05;           // false discovery rate across keys (Benjamini-Hochberg)
    double tailQuantile = 0.99;    // a span above its operation's base quantile is slow
    double farTimes = 20;          // a span this many times its operation's base median (each plus floorUs) is far
    std::int64_t minBaseSpans = 5;  // an operation with fewer spans in the base has no tail threshold
    double floorUs = 100;          // added to both means of a slowdown, so that tiny times do not lead
    double callerRiskRatio = 2;    // a slower hop is its caller's only when the caller's other spans there are at
                                   // least this many times as often unusual as in the base
    unsigned threads = 0;
};

struct SuspectEvidence {
    std::string key;       // "currencyservice" (its work) or "frontend → currencyservice" (the hop)
    bool hop = false;
    double baseUs = 0, targetUs = 0;        // mean time per request (absent: 0)
    double baseSlowShare = 0, targetSlowShare = 0;  // requests with a span above its operation's base tail
    double baseFarShare = 0, targetFarShare = 0;    // requests with a far span (SuspectOptions::farTimes)
    double slowdown = 1;   // mean own time per span against the same operations' base mean
    double qValue = 1;     // the key's own (a key of a service kept by its pooled test may be above alpha)
    std::int64_t baseRequests = 0, targetRequests = 0;  // requests with the key, in each period
    // Up to kSuspectExamples target requests with the key, the largest own time in it first (ties by row), for
    // a UI to open.
    std::vector<RequestId> examples;
};
inline constexpr std::size_t kSuspectExamples = 5;

struct Suspect {
    std::string service;
    double score = 0;    // the largest slowdown of its evidence's keys
    double pValue = 1;   // the smallest q-value of its significant keys, or its own pooled test's
    double deltaUs = 0;  // their change in mean time per request, summed
    std::vector<SuspectEvidence> evidence;  // by slowdown, largest first
};

// Base and target: analysis rows of span requests. Most likely first; empty: no suspect. Requests without
// spans count for nothing. Cancelled: "cancelled".
Result<std::vector<Suspect>> findSuspects(const InMemoryAnalysis& analysis, const TraceStore& store,
                                          const std::vector<std::uint32_t>& base, const std::vector<std::uint32_t>& target,
                                          const SuspectOptions& options = {}, const ProgressSink* progress = nullptr,
                                          const CancelToken* cancel = nullptr);

} // namespace tracelight
