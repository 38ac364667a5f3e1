#include "tracelight/compare/Suspects.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include "tracelight/analysis/RequestWalk.h"
#include "tracelight/compare/Statistics.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/SpanCalls.h"

namespace tracelight {

namespace {

constexpr const char* kArrow = " → ";

struct SpanTime {
    std::uint32_t key, operation;  // operation: an id of (key, operation name)
    double us;                     // the span's own time
};
struct RequestTimes {
    std::uint32_t row = 0;  // analysis row
    bool target = false;
    std::uint32_t stratum = 0;  // its request type
    std::vector<std::pair<std::uint32_t, double>> byKey;  // own time per key, summed
    std::vector<SpanTime> spans;
};

// Names interned to dense ids.
struct Interner {
    std::unordered_map<std::string, std::uint32_t> ids;
    std::vector<std::string> names;
    std::uint32_t operator()(const std::string& name) {
        auto [it, fresh] = ids.emplace(name, static_cast<std::uint32_t>(names.size()));
        if (fresh) names.push_back(name);
        return it->second;
    }
};

class Collector {
public:
    void add(std::uint32_t row, bool target, const std::vector<SpanShape>& spans) {
        const std::size_t n = spans.size();
        if (n == 0) return;
        spanCalls(spans, m_calls);
        const auto& service = m_calls.service;
        // Children by parent, each in start order, for the own time (duration minus the union of children).
        m_children.assign(n, {});
        std::int32_t root = -1;
        for (std::size_t i = 0; i < n; ++i) {
            const std::int32_t p = spans[i].parent;
            if (p >= 0 && static_cast<std::size_t>(p) < n && static_cast<std::size_t>(p) != i) m_children[static_cast<std::size_t>(p)].push_back(static_cast<std::uint32_t>(i));
            else if (root < 0) root = static_cast<std::int32_t>(i);
        }
        RequestTimes r;
        r.row = row;
        r.target = target;
        std::vector<std::string> type;
        if (root >= 0)
            for (auto c : m_children[static_cast<std::size_t>(root)]) type.push_back(service[c] + ":" + std::string(spans[c].operation));
        std::sort(type.begin(), type.end());
        type.erase(std::unique(type.begin(), type.end()), type.end());
        std::string stratum;
        for (const auto& t : type) stratum += t + "\n";
        r.stratum = strata(stratum);
        std::map<std::uint32_t, double> byKey;
        for (std::size_t i = 0; i < n; ++i) {
            const SpanShape& s = spans[i];
            auto& kids = m_children[i];
            const std::int32_t callee = m_calls.callee[i];
            if (callee >= 0) assignHopName(m_keyName, {service[i], service[static_cast<std::size_t>(callee)]});
            else m_keyName = service[i];
            const std::string& keyName = m_keyName;
            // Own time: the span's interval less its children's, each clipped to it.
            std::sort(kids.begin(), kids.end(), [&](auto a, auto b) { return spans[a].startNs < spans[b].startNs; });
            const TimeNs start = s.startNs, end = std::max(s.startNs, s.endNs);
            TimeNs covered = 0, cursor = start;
            for (auto c : kids) {
                const TimeNs from = std::max({spans[c].startNs, cursor, start}), to = std::min(spans[c].endNs, end);
                if (to > from) covered += to - from;
                cursor = std::max(cursor, to);
            }
            const double us = double(end - start - covered) / 1000.0;
            const std::uint32_t key = keys(keyName);
            const std::uint32_t op = operations(keyName + "\n" + std::string(s.operation));
            byKey[key] += us;
            r.spans.push_back({key, op, us});
        }
        r.byKey.assign(byKey.begin(), byKey.end());
        requests.push_back(std::move(r));
    }

    Interner keys, operations, strata;  // operations: (key, operation name); strata: request types
    std::vector<RequestTimes> requests;

private:
    SpanCalls m_calls;
    std::vector<std::vector<std::uint32_t>> m_children;
    std::string m_keyName;
};

// The nearest-rank q-quantile of n sorted values.
double quantileOfSorted(const std::vector<double>& sorted, std::size_t n, double q) {
    const auto rank = static_cast<std::size_t>(std::ceil(q * double(n)));
    return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

} // namespace

Result<std::vector<Suspect>> findSuspects(const InMemoryAnalysis& analysis, const TraceStore& store,
                                          const std::vector<std::uint32_t>& base, const std::vector<std::uint32_t>& target,
                                          const SuspectOptions& options, const ProgressSink* progress, const CancelToken* cancel) {
    const TraceData& td = analysis.data;
    std::vector<std::uint8_t> side(td.requestCount(), 0);  // 1 base, 2 target
    for (auto r : base)
        if (r < side.size()) side[r] = 1;
    for (auto r : target)
        if (r < side.size()) side[r] = 2;
    Collector collector;
    const Status walked = forEachRequestWithSpans(
        td, &store, [&](std::uint32_t r) { return side[r] != 0; }, 1, "reading the calls", progress, cancel, [&](unsigned) {
            return [&](std::uint32_t row, const std::vector<SpanShape>* spans) {
                if (spans) collector.add(row, side[row] == 2, *spans);
            };
        });
    if (!walked) return walked;

    const std::size_t keyCount = collector.keys.names.size(), opCount = collector.operations.names.size();
    const auto& requests = collector.requests;
    // Each operation's base spans: its tail threshold and its mean.
    std::vector<std::vector<double>> baseOp(opCount);
    for (const auto& r : requests)
        if (!r.target)
            for (const auto& s : r.spans) baseOp[s.operation].push_back(s.us);
    // A target span is slow above the base's quantile; a base span above the quantile of the other base spans
    // (leave one out), so that the base is not judged by a threshold fitted to itself, which no base span of a
    // small sample could pass.
    std::vector<double> threshold(opCount, std::numeric_limits<double>::infinity()), baseThreshold = threshold, baseOpMean(opCount, -1);
    std::vector<double> farThreshold = threshold;  // farTimes the base median, which a small base still estimates
    for (std::size_t o = 0; o < opCount; ++o) {
        auto& v = baseOp[o];
        if (v.empty()) continue;
        double sum = 0;
        for (double x : v) sum += x;
        baseOpMean[o] = sum / double(v.size());
        if (static_cast<std::int64_t>(v.size()) < options.minBaseSpans) continue;
        std::sort(v.begin(), v.end());
        farThreshold[o] = options.farTimes * (v[v.size() / 2] + options.floorUs);
        threshold[o] = quantileOfSorted(v, v.size(), options.tailQuantile);
        baseThreshold[o] = quantileOfSorted(v, v.size() - 1, options.tailQuantile);
    }

    struct KeyStats {
        double p = 1, q = 1, slowdown = 1, deltaUs = 0, baseUs = 0, targetUs = 0, baseSlow = 0, targetSlow = 0;
        double pLocation = 1, pTail = 1;
        std::int64_t baseRequests = 0, targetRequests = 0;
        std::int64_t baseJudged = 0, targetJudged = 0, baseFar = 0, targetFar = 0;  // requests with a far threshold, a far span
        std::vector<RequestId> examples;
        bool hop = false, significant = false;
        std::string from, to;
    };
    std::vector<std::pair<double, std::uint32_t>> ranked;  // (own time in the key, row) of target requests with it
    std::vector<KeyStats> stats(keyCount);
    const std::size_t strataCount = collector.strata.names.size();
    std::vector<double> values(requests.size());
    std::vector<std::uint8_t> slow(requests.size()), present(requests.size());
    for (std::size_t k = 0; k < keyCount; ++k) {
        KeyStats& ks = stats[k];
        const std::string& name = collector.keys.names[k];
        if (const auto at = name.find(kArrow); at != std::string::npos) {
            ks.hop = true;
            ks.from = name.substr(0, at);
            ks.to = name.substr(at + std::string(kArrow).size());
        } else {
            ks.from = name;
        }
        // Per request: its time in the key (0 where absent), whether it had the key, and a slow span of it.
        double targetSum = 0, expectedSum = 0;
        std::int64_t targetSpans = 0;
        for (std::size_t i = 0; i < requests.size(); ++i) {
            const auto& r = requests[i];
            auto it = std::lower_bound(r.byKey.begin(), r.byKey.end(), std::pair<std::uint32_t, double>(static_cast<std::uint32_t>(k), -1e300));
            const bool has = it != r.byKey.end() && it->first == k;
            values[i] = has ? it->second : 0;
            present[i] = has;
            slow[i] = 0;
            if (!has) continue;
            bool judged = false, far = false;
            for (const auto& s : r.spans) {
                if (s.key != k) continue;
                if (s.us > (r.target ? threshold : baseThreshold)[s.operation]) slow[i] = 1;
                if (std::isfinite(farThreshold[s.operation])) {
                    judged = true;
                    far = far || s.us > farThreshold[s.operation];
                }
                if (r.target) {
                    targetSum += s.us;
                    ++targetSpans;
                    expectedSum += baseOpMean[s.operation] >= 0 ? baseOpMean[s.operation] : s.us;
                }
            }
            if (judged) {
                ++(r.target ? ks.targetJudged : ks.baseJudged);
                (r.target ? ks.targetFar : ks.baseFar) += far;
            }
        }
        // Location: per request type, the key's time per request in each period.
        std::vector<RankStratum> strata(strataCount);
        for (std::size_t i = 0; i < requests.size(); ++i)
            (requests[i].target ? strata[requests[i].stratum].target : strata[requests[i].stratum].base).push_back(values[i]);
        ks.pLocation = vanElterenGreater(strata);
        double weightSum = 0;
        for (const auto& s : strata)
            if (!s.base.empty() && !s.target.empty()) weightSum += double(s.target.size());
        for (const auto& s : strata) {
            if (s.base.empty() || s.target.empty()) continue;
            double b = 0, t = 0;
            for (double v : s.base) b += v;
            for (double v : s.target) t += v;
            ks.deltaUs += double(s.target.size()) / weightSum * (t / double(s.target.size()) - b / double(s.base.size()));
        }
        // Tail: among the requests with the key, the share with a span past its operation's base tail.
        std::int64_t nBase = 0, nTarget = 0, slowBase = 0, slowTarget = 0, allBase = 0, allTarget = 0;
        double sumBase = 0, sumTarget = 0;
        for (std::size_t i = 0; i < requests.size(); ++i) {
            if (requests[i].target) ++allTarget, sumTarget += values[i];
            else ++allBase, sumBase += values[i];
            if (!present[i]) continue;
            if (requests[i].target) ++nTarget, slowTarget += slow[i];
            else ++nBase, slowBase += slow[i];
        }
        ks.pTail = nBase > 0 ? fisherGreater(slowTarget, nTarget, slowBase, nBase) : 1.0;
        ks.baseUs = allBase ? sumBase / double(allBase) : 0;
        ks.targetUs = allTarget ? sumTarget / double(allTarget) : 0;
        ks.baseRequests = nBase;
        ks.targetRequests = nTarget;
        // Examples: the target requests with the most own time in the key.
        ranked.clear();
        for (std::size_t i = 0; i < requests.size(); ++i)
            if (present[i] && requests[i].target) ranked.emplace_back(values[i], requests[i].row);
        const auto shown = std::min(ranked.size(), kSuspectExamples);
        std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(shown), ranked.end(),
                          [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
        for (std::size_t e = 0; e < shown; ++e) ks.examples.push_back(td.requestIds[ranked[e].second]);
        ks.baseSlow = nBase ? double(slowBase) / double(nBase) : 0;
        ks.targetSlow = nTarget ? double(slowTarget) / double(nTarget) : 0;
        if (targetSpans > 0)
            ks.slowdown = (targetSum / double(targetSpans) + options.floorUs) / (expectedSum / double(targetSpans) + options.floorUs);
        if (cancel && cancel->isCancelled()) return Status::error("cancelled");
    }
    // Far: how often a request's key is far out, learnt from all the base's keys at once (a key's own base of a
    // few calls cannot say), each key's own base count moving its rate from the shared one.
    std::vector<std::int64_t> farCounts, judgedCounts;
    std::int64_t farAll = 0, judgedAll = 0;
    for (const auto& ks : stats) {
        farCounts.push_back(ks.baseFar);
        judgedCounts.push_back(ks.baseJudged);
        farAll += ks.baseFar;
        judgedAll += ks.baseJudged;
    }
    const double farMean = (double(farAll) + 1) / (double(judgedAll) + 2);
    const double concentration = betaConcentration(farCounts, judgedCounts, farMean);
    std::vector<double> p(keyCount);
    for (std::size_t k = 0; k < keyCount; ++k) {
        KeyStats& ks = stats[k];
        const double pFar = betaBinomialGreater(ks.targetFar, ks.targetJudged, farMean * concentration + double(ks.baseFar),
                                                (1 - farMean) * concentration + double(ks.baseJudged - ks.baseFar));
        ks.p = p[k] = std::min(1.0, 3 * std::min({ks.pLocation, ks.pTail, pFar}));  // Bonferroni over the three tests
    }
    // A slower hop A → B is A's or B's: a CPU-starved A slows its side of every call it makes at the same time,
    // a network delay into B every call into B. So look at the target requests in which the hop's calls were out
    // of the ordinary, and at the other calls and work there that touch only one of the two: the side whose
    // share of unusual spans rises more over its base share owns the hop (TraceRCA: the service common to the
    // anomalous calls of the same requests); a tie goes to the callee.
    auto unusual = [&](const SpanTime& s, bool target) {
        return s.us > (target ? threshold : baseThreshold)[s.operation] || s.us > farThreshold[s.operation];
    };
    auto judged = [&](const SpanTime& s) { return std::isfinite(threshold[s.operation]) || std::isfinite(farThreshold[s.operation]); };
    // What callerOwns counts, gathered in one pass rather than one per hop: each key's unusual and judged base
    // spans, each service's (over the keys touching it), and the target requests in which each hop was unusual.
    struct Count { std::int64_t unusual = 0, judged = 0; };
    Interner endpoints;  // services by name, for the keys' two ends
    std::vector<std::array<std::uint32_t, 2>> ends(keyCount);
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> hopOf;
    for (std::size_t k = 0; k < keyCount; ++k) {
        ends[k] = {endpoints(stats[k].from), endpoints(stats[k].hop ? stats[k].to : stats[k].from)};
        if (stats[k].hop) hopOf[{ends[k][0], ends[k][1]}] = static_cast<std::uint32_t>(k);
    }
    std::vector<Count> keyBase(keyCount), serviceBase(endpoints.names.size());
    std::vector<std::vector<std::uint32_t>> unusualIn(keyCount);  // target requests, by index, where the hop was unusual
    for (std::size_t i = 0; i < requests.size(); ++i)
        for (const auto& s : requests[i].spans) {
            if (requests[i].target) {
                if (stats[s.key].hop && unusual(s, true) && (unusualIn[s.key].empty() || unusualIn[s.key].back() != i))
                    unusualIn[s.key].push_back(static_cast<std::uint32_t>(i));
            } else if (judged(s)) {
                keyBase[s.key].judged += 1;
                keyBase[s.key].unusual += unusual(s, false);
            }
        }
    for (std::size_t k = 0; k < keyCount; ++k)
        for (int e = 0; e < (ends[k][0] == ends[k][1] ? 1 : 2); ++e) {
            serviceBase[ends[k][e]].judged += keyBase[k].judged;
            serviceBase[ends[k][e]].unusual += keyBase[k].unusual;
        }
    auto callerOwns = [&](std::uint32_t hop) {
        const std::uint32_t from = ends[hop][0], to = ends[hop][1];
        if (from == to) return false;  // no side to tell apart
        struct Side { double unusual = 0, judged = 0, baseUnusual = 0, baseJudged = 0; } sides[2];
        // In the base, the spans touching one end but not both: the service's less the hops between the two.
        Count between = keyBase[hop];
        if (const auto back = hopOf.find({to, from}); back != hopOf.end()) {
            between.judged += keyBase[back->second].judged;
            between.unusual += keyBase[back->second].unusual;
        }
        for (int e = 0; e < 2; ++e) {
            sides[e].baseJudged = double(serviceBase[ends[hop][e]].judged - between.judged);
            sides[e].baseUnusual = double(serviceBase[ends[hop][e]].unusual - between.unusual);
        }
        for (const std::uint32_t i : unusualIn[hop])
            for (const auto& s : requests[i].spans) {
                if (s.key == hop || !judged(s)) continue;
                const bool caller = ends[s.key][0] == from || ends[s.key][1] == from, callee = ends[s.key][0] == to || ends[s.key][1] == to;
                if (caller == callee) continue;
                Side& side = sides[caller ? 0 : 1];
                side.unusual += unusual(s, true);
                ++side.judged;
            }
        auto rise = [](const Side& s) {
            return (s.unusual + 0.5) / (s.judged + 1) - (s.baseUnusual + 0.5) / (s.baseJudged + 1);
        };
        const Side& caller = sides[0];
        // The caller's other spans must be unusual at least twice as often as in the base: over hundreds of
        // requests a drift of a few percent is significant, while a starved caller shows far more.
        const double baseShare = (caller.baseUnusual + 0.5) / (caller.baseJudged + 1);
        return rise(caller) > rise(sides[1]) && (caller.unusual + 0.5) / (caller.judged + 1) >= options.callerRiskRatio * baseShare &&
               fisherGreater(static_cast<std::int64_t>(caller.unusual), static_cast<std::int64_t>(caller.judged),
                             static_cast<std::int64_t>(caller.baseUnusual), static_cast<std::int64_t>(caller.baseJudged)) < options.alpha;
    };
    // Pooled per service: a service's work and the hops it owns, each unusual in a different few requests, are
    // stronger evidence together than any one key (TraceRCA and MicroRank judge services, not calls). A request
    // is far in a service when a span of one of its keys is; how often that happens is learnt from all the
    // base's services at once, as for a key, and the services' p-values join the keys' in one correction.
    std::vector<std::uint32_t> owner(keyCount);
    Interner services;
    for (std::size_t k = 0; k < keyCount; ++k) {
        const KeyStats& ks = stats[k];
        const bool callers = ks.hop && !unusualIn[k].empty() && callerOwns(static_cast<std::uint32_t>(k));
        owner[k] = services(callers || !ks.hop ? ks.from : ks.to);
    }
    const std::size_t serviceCount = services.names.size();
    // Per service, [0] in the base, [1] in the target: requests with a judged span of it, with a far one.
    std::array<std::vector<std::int64_t>, 2> serviceFar{std::vector<std::int64_t>(serviceCount), std::vector<std::int64_t>(serviceCount)};
    std::array<std::vector<std::int64_t>, 2> serviceJudged = serviceFar;
    std::vector<std::uint8_t> judgedIn(serviceCount), farIn(serviceCount);
    for (const auto& r : requests) {
        std::fill(judgedIn.begin(), judgedIn.end(), 0);
        std::fill(farIn.begin(), farIn.end(), 0);
        for (const auto& s : r.spans) {
            if (!std::isfinite(farThreshold[s.operation])) continue;
            judgedIn[owner[s.key]] = 1;
            farIn[owner[s.key]] = farIn[owner[s.key]] || s.us > farThreshold[s.operation];
        }
        for (std::size_t v = 0; v < serviceCount; ++v) {
            serviceJudged[r.target][v] += judgedIn[v];
            serviceFar[r.target][v] += farIn[v];
        }
    }
    std::int64_t serviceFarAll = 0, serviceJudgedAll = 0;
    for (std::size_t v = 0; v < serviceCount; ++v) serviceFarAll += serviceFar[0][v], serviceJudgedAll += serviceJudged[0][v];
    const double serviceFarMean = (double(serviceFarAll) + 1) / (double(serviceJudgedAll) + 2);
    const double serviceConcentration = betaConcentration(serviceFar[0], serviceJudged[0], serviceFarMean);
    for (std::size_t v = 0; v < serviceCount; ++v)
        p.push_back(betaBinomialGreater(serviceFar[1][v], serviceJudged[1][v], serviceFarMean * serviceConcentration + double(serviceFar[0][v]),
                                        (1 - serviceFarMean) * serviceConcentration + double(serviceJudged[0][v] - serviceFar[0][v])));
    const std::vector<double> q = benjaminiHochberg(p);  // over keys and services
    for (std::size_t k = 0; k < keyCount; ++k) {
        stats[k].q = q[k];
        stats[k].significant = q[k] < options.alpha && stats[k].slowdown > 1;
    }
    // A service found by the pooled test: its keys with a far span in the problem period are its evidence.
    std::vector<std::uint8_t> farInTarget(keyCount, 0);
    for (const auto& r : requests)
        if (r.target)
            for (const auto& s : r.spans) farInTarget[s.key] = farInTarget[s.key] || s.us > farThreshold[s.operation];
    std::map<std::string, Suspect> byService;
    for (std::size_t k = 0; k < keyCount; ++k) {
        const KeyStats& ks = stats[k];
        const double serviceQ = q[keyCount + owner[k]];
        const bool pooled = serviceQ < options.alpha && farInTarget[k] && ks.slowdown > 1;
        if (!ks.significant && !pooled) continue;
        const std::string& ownerName = services.names[owner[k]];
        Suspect& s = byService[ownerName];
        s.service = ownerName;
        s.score = std::max(s.score, ks.slowdown);
        const double keyQ = ks.significant ? ks.q : serviceQ;
        s.pValue = s.evidence.empty() ? keyQ : std::min(s.pValue, keyQ);
        s.deltaUs += ks.deltaUs;
        auto share = [](std::int64_t part, std::int64_t whole) { return whole > 0 ? double(part) / double(whole) : 0.0; };
        s.evidence.push_back({collector.keys.names[k], ks.hop, ks.baseUs, ks.targetUs, ks.baseSlow, ks.targetSlow,
                              share(ks.baseFar, ks.baseJudged), share(ks.targetFar, ks.targetJudged), ks.slowdown, ks.q,
                              ks.baseRequests, ks.targetRequests, ks.examples});
    }
    std::vector<Suspect> out;
    for (auto& [name, s] : byService) {
        std::sort(s.evidence.begin(), s.evidence.end(), [](const auto& a, const auto& b) { return a.slowdown > b.slowdown; });
        out.push_back(std::move(s));
    }
    std::sort(out.begin(), out.end(), [](const Suspect& a, const Suspect& b) {
        return a.score != b.score ? a.score > b.score : a.pValue < b.pValue;
    });
    return out;
}

} // namespace tracelight
