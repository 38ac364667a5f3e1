#include "tracelight/analysis/ModelInference.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <map>
#include <numeric>
#include <unordered_map>
#include <thread>

#include "tracelight/analysis/Segments.h"

namespace tracelight {

namespace {

std::vector<std::int64_t> checkpoints(std::int64_t upTo) {
    std::vector<std::int64_t> points;
    for (std::int64_t scale = 1; scale <= upTo; scale *= 10)
        for (std::int64_t m : {1, 2, 5})
            if (m * scale <= upTo && m * scale >= 10) points.push_back(m * scale);
    return points;
}

// Refutations seen by one shard of requests.
struct ShardState {
    std::size_t types = 0, words = 0;
    std::vector<Bitset> hbAlive, meAlive, orderSeen;
    Bitset seen;
    std::map<std::vector<std::uint64_t>, std::int64_t> signatures;  // presence set -> requests
    std::int64_t requests = 0;
    std::vector<ConvergencePoint> convergence;

    // Scratch, reused across requests.
    std::vector<int> byStart, byEnd;
    std::vector<TimeNs> starts, ends;
    std::vector<std::uint64_t> prefixStart, suffixEnd;
    Bitset present;

    explicit ShardState(std::size_t n) : types(n), words((n + 63) / 64), seen(n), present(n) {
        hbAlive.assign(n, Bitset(n, true));
        meAlive.assign(n, Bitset(n, true));
        orderSeen.assign(n, Bitset(n, false));
    }

    void observe(const std::vector<SegmentInstance>& segs) {
        const std::size_t t = segs.size();
        ++requests;
        present.clear();
        for (const auto& s : segs) present.set(s.type.value);
        seen |= present;
        ++signatures[present.words()];
        if (t == 0) return;

        byStart.resize(t);
        byEnd.resize(t);
        for (std::size_t i = 0; i < t; ++i) byStart[i] = byEnd[i] = static_cast<int>(i);
        std::sort(byStart.begin(), byStart.end(), [&](int a, int b) { return segs[a].startNs < segs[b].startNs; });
        std::sort(byEnd.begin(), byEnd.end(), [&](int a, int b) { return segs[a].endNs < segs[b].endNs; });
        starts.resize(t);
        ends.resize(t);
        for (std::size_t i = 0; i < t; ++i) {
            starts[i] = segs[byStart[i]].startNs;
            ends[i] = segs[byEnd[i]].endNs;
        }
        // prefixStart row k: the first k segments by start; suffixEnd row k: segments byEnd[k..t).
        prefixStart.assign((t + 1) * words, 0);
        suffixEnd.assign((t + 1) * words, 0);
        for (std::size_t k = 0; k < t; ++k) {
            std::copy_n(prefixStart.begin() + k * words, words, prefixStart.begin() + (k + 1) * words);
            const auto type = segs[byStart[k]].type.value;
            prefixStart[(k + 1) * words + type / 64] |= std::uint64_t{1} << (type % 64);
        }
        for (std::size_t k = t; k-- > 0;) {
            std::copy_n(suffixEnd.begin() + (k + 1) * words, words, suffixEnd.begin() + k * words);
            const auto type = segs[byEnd[k]].type.value;
            suffixEnd[k * words + type / 64] |= std::uint64_t{1} << (type % 64);
        }
        const auto& presentWords = present.words();
        for (const auto& a : segs) {
            // Segments starting before a ends contradict a -> b; those that also end after a starts overlap a.
            const std::size_t k = std::lower_bound(starts.begin(), starts.end(), a.endNs) - starts.begin();
            const std::size_t m = std::upper_bound(ends.begin(), ends.end(), a.startNs) - ends.begin();
            auto& hb = hbAlive[a.type.value].words();
            auto& me = meAlive[a.type.value].words();
            auto& order = orderSeen[a.type.value].words();
            const std::uint64_t* before = prefixStart.data() + k * words;
            const std::uint64_t* endsAfter = suffixEnd.data() + m * words;
            for (std::size_t w = 0; w < words; ++w) {
                hb[w] &= ~before[w];
                me[w] &= ~(before[w] & endsAfter[w]);
                order[w] |= presentWords[w] & ~before[w];
            }
        }
    }

    ConvergencePoint alive() const {
        ConvergencePoint p;
        p.requests = requests;
        seen.forEach([&](std::size_t a) {
            Bitset hb = hbAlive[a];
            hb &= seen;
            hb.reset(a);
            p.happensBeforeAlive += static_cast<std::int64_t>(hb.count());
            Bitset me = meAlive[a];
            me &= seen;
            me.reset(a);
            p.mutualExclusionAlive += static_cast<std::int64_t>(me.count());
        });
        p.mutualExclusionAlive /= 2;
        return p;
    }

    void merge(const ShardState& o) {
        for (std::size_t a = 0; a < types; ++a) {
            hbAlive[a] &= o.hbAlive[a];
            meAlive[a] &= o.meAlive[a];
            orderSeen[a] |= o.orderSeen[a];
        }
        seen |= o.seen;
        for (const auto& [sig, count] : o.signatures) signatures[sig] += count;
        requests += o.requests;
    }
};

} // namespace

bool CausalModel::happensBefore(SegmentTypeId a, SegmentTypeId b, bool confirmedOnly) const {
    if (a == b || !m_hbAlive[a.value].test(b.value)) return false;
    const auto s = support(a, b);
    return confirmedOnly ? s >= m_supportFloor : s > 0;
}

bool CausalModel::mutuallyExclusive(SegmentTypeId a, SegmentTypeId b, bool confirmedOnly) const {
    if (a == b || !m_meAlive[a.value].test(b.value)) return false;
    if (!m_orderSeen[a.value].test(b.value) || !m_orderSeen[b.value].test(a.value)) return false;
    const auto s = support(a, b);
    return confirmedOnly ? s >= m_supportFloor : s > 0;
}

void CausalModel::computeConfirmed() {
    const std::size_t n = m_types;
    m_hbConfirmed.assign(n, Bitset(n));
    m_meConfirmed.assign(n, Bitset(n));
    for (std::uint32_t a = 0; a < n; ++a)
        for (std::uint32_t b = 0; b < n; ++b) {
            if (happensBefore(SegmentTypeId(a), SegmentTypeId(b))) m_hbConfirmed[a].set(b);
            if (mutuallyExclusive(SegmentTypeId(a), SegmentTypeId(b))) m_meConfirmed[a].set(b);
        }
}

namespace {
constexpr char kModelMagic[4] = {'T', 'L', 'M', '2'};  // 2: pipeline links carry their type groups
template <typename T>
void putValue(std::string& out, T v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <typename T>
bool getValue(std::string_view& in, T& v) {
    if (in.size() < sizeof v) return false;
    std::memcpy(&v, in.data(), sizeof v);
    in.remove_prefix(sizeof v);
    return true;
}
} // namespace

std::string CausalModel::serialize() const {
    std::string out(kModelMagic, 4);
    putValue(out, static_cast<std::uint64_t>(m_types));
    putValue(out, m_requests);
    putValue(out, m_supportFloor);
    for (auto s : m_support) putValue(out, s);
    for (const auto* rows : {&m_hbAlive, &m_meAlive, &m_orderSeen})
        for (const auto& row : *rows)
            for (auto w : row.words()) putValue(out, w);
    putValue(out, static_cast<std::uint64_t>(m_pipelines.size()));
    for (const auto& p : m_pipelines) {
        for (auto id : {p.first.producer, p.first.consumer, p.second.producer, p.second.consumer}) putValue(out, id.value);
        putValue(out, p.support);
        for (const PipelineLink* l : {&p.first, &p.second})
            for (const auto* group : {&l->producerTypes, &l->consumerTypes}) {
                putValue(out, static_cast<std::uint32_t>(group->size()));
                for (auto id : *group) putValue(out, id.value);
            }
    }
    putValue(out, static_cast<std::uint64_t>(m_convergence.size()));
    for (const auto& c : m_convergence) {
        putValue(out, c.requests);
        putValue(out, c.happensBeforeAlive);
        putValue(out, c.mutualExclusionAlive);
    }
    return out;
}

Result<CausalModel> CausalModel::deserialize(std::string_view in) {
    const Status damaged = Status::error("damaged cached model");
    if (in.size() < 4 || std::memcmp(in.data(), kModelMagic, 4) != 0) return damaged;
    in.remove_prefix(4);
    CausalModel m;
    std::uint64_t n = 0;
    if (!getValue(in, n) || !getValue(in, m.m_requests) || !getValue(in, m.m_supportFloor)) return damaged;
    if (n > (1u << 16) || in.size() < n * n * 4) return damaged;
    m.m_types = static_cast<std::size_t>(n);
    m.m_support.resize(n * n);
    for (auto& s : m.m_support) getValue(in, s);
    for (auto* rows : {&m.m_hbAlive, &m.m_meAlive, &m.m_orderSeen}) {
        rows->assign(n, Bitset(n));
        for (auto& row : *rows)
            for (auto& w : row.words())
                if (!getValue(in, w)) return damaged;
    }
    std::uint64_t count = 0;
    if (!getValue(in, count) || count > in.size()) return damaged;
    for (std::uint64_t i = 0; i < count; ++i) {
        PipelinePair p;
        std::uint32_t ids[4];
        for (auto& id : ids)
            if (!getValue(in, id) || id >= n) return damaged;
        p.first.producer = SegmentTypeId(ids[0]);
        p.first.consumer = SegmentTypeId(ids[1]);
        p.second.producer = SegmentTypeId(ids[2]);
        p.second.consumer = SegmentTypeId(ids[3]);
        if (!getValue(in, p.support)) return damaged;
        for (PipelineLink* l : {&p.first, &p.second})
            for (auto* group : {&l->producerTypes, &l->consumerTypes}) {
                std::uint32_t size = 0;
                if (!getValue(in, size) || size == 0 || size > n) return damaged;
                group->resize(size);
                for (auto& id : *group)
                    if (!getValue(in, id.value) || id.value >= n) return damaged;
            }
        m.m_pipelines.push_back(p);
    }
    if (!getValue(in, count) || count > in.size()) return damaged;
    for (std::uint64_t i = 0; i < count; ++i) {
        ConvergencePoint c;
        if (!getValue(in, c.requests) || !getValue(in, c.happensBeforeAlive) || !getValue(in, c.mutualExclusionAlive)) return damaged;
        m.m_convergence.push_back(c);
    }
    if (!in.empty()) return damaged;
    m.computeConfirmed();
    return m;
}

std::vector<std::pair<SegmentTypeId, SegmentTypeId>> CausalModel::reducedHappensBefore() const {
    // a -> c is implied when a -> b and b -> c for some b (the confirmed relation is transitive by construction).
    std::vector<std::pair<SegmentTypeId, SegmentTypeId>> edges;
    for (std::size_t a = 0; a < m_types; ++a) {
        const Bitset& successors = m_hbConfirmed[a];
        Bitset implied(m_types);
        successors.forEach([&](std::size_t b) { implied |= m_hbConfirmed[b]; });
        successors.forEach([&](std::size_t c) {
            if (!implied.test(c)) edges.emplace_back(SegmentTypeId(static_cast<std::uint32_t>(a)), SegmentTypeId(static_cast<std::uint32_t>(c)));
        });
    }
    return edges;
}

class ModelBuilder {
public:
    static Result<CausalModel> build(const TraceData& data, const ClockOffsets& offsets, const InferenceOptions& options,
                                     const ProgressSink* progress, const CancelToken* cancel) {
        const std::size_t n = data.segmentTypes.size();
        const std::size_t requests = options.maxRequests >= 0
                                         ? std::min<std::size_t>(data.requestCount(), static_cast<std::size_t>(options.maxRequests))
                                         : data.requestCount();
        const unsigned threads = resolveThreads(options.threads);
        std::vector<ShardState> shards;
        for (unsigned s = 0; s < std::max(1u, threads); ++s) shards.emplace_back(n);
        std::atomic<std::size_t> done{0};
        std::atomic<bool> cancelled{false};
        ThrottledProgress reporter(progress);
        std::mutex reportMutex;

        // Pass 1: happens-before and mutual exclusion. Shard 0 holds the first requests and records
        // the convergence curve as it goes.
        forEachShard(requests, threads, [&](unsigned shard, std::size_t begin, std::size_t end) {
            ShardState& state = shards[shard];
            std::vector<SegmentInstance> segs;
            const auto points = shard == 0 ? checkpoints(static_cast<std::int64_t>(end - begin)) : std::vector<std::int64_t>{};
            std::size_t nextPoint = 0;
            for (std::size_t r = begin; r < end; ++r) {
                buildSegments(data.eventsOf(r), offsets, segs);
                state.observe(segs);
                if (nextPoint < points.size() && state.requests == points[nextPoint]) {
                    state.convergence.push_back(state.alive());
                    ++nextPoint;
                }
                if (((r - begin) & 0x3FFF) == 0x3FFF) {
                    if (cancel && cancel->isCancelled()) { cancelled = true; return; }
                    const std::size_t total = done.fetch_add(0x4000) + 0x4000;
                    if (shard == 0) {
                        std::lock_guard lock(reportMutex);
                        reporter.report(0.7 * double(total) / double(std::max<std::size_t>(1, requests)), "inferring happens-before and mutual exclusion");
                    }
                }
            }
        });
        if (cancelled) return Status::error("cancelled");
        for (std::size_t s = 1; s < shards.size(); ++s) shards[0].merge(shards[s]);
        ShardState& merged = shards[0];

        CausalModel model;
        model.m_types = n;
        model.m_requests = static_cast<std::int64_t>(requests);
        model.m_supportFloor = options.supportFloor;
        model.m_support.assign(n * n, 0);
        for (const auto& [sig, count] : merged.signatures) {
            std::vector<std::uint32_t> members;
            for (std::size_t w = 0; w < sig.size(); ++w)
                for (std::uint64_t bits = sig[w]; bits; bits &= bits - 1)
                    members.push_back(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits))));
            for (auto a : members)
                for (auto b : members) model.m_support[a * n + b] += static_cast<std::uint32_t>(count);
        }
        // The final point covers every request analysed (the merged state holds them all).
        const ConvergencePoint last = merged.alive();
        model.m_convergence = std::move(merged.convergence);
        model.m_hbAlive = std::move(merged.hbAlive);
        model.m_meAlive = std::move(merged.meAlive);
        model.m_orderSeen = std::move(merged.orderSeen);
        model.computeConfirmed();
        if (model.m_convergence.empty() || model.m_convergence.back().requests != last.requests)
            model.m_convergence.push_back(last);

        // Pass 2: pipelines, between pairs of confirmed producer -> consumer links.
        if (auto s = inferPipelines(data, offsets, requests, threads, model, cancel); !s) return s;
        reporter.report(1.0, "model inferred", true);
        return model;
    }

private:
    // Interns the events that end (producers) or start (consumers) segment types, per task.
    struct EventGroups {
        std::vector<std::uint32_t> ofType;              // segment type -> group
        std::vector<std::vector<SegmentTypeId>> types;  // group -> the segment types it holds
        std::vector<std::uint64_t> event;               // group -> (task << 32 | event)
    };
    static EventGroups groupTypes(const TraceData& data, std::size_t n, bool byEndEvent) {
        EventGroups g;
        g.ofType.resize(n);
        std::unordered_map<std::uint64_t, std::uint32_t> ids;
        for (std::uint32_t t = 0; t < n; ++t) {
            const SegmentType& type = data.segmentTypes[t];
            const std::uint64_t key = (std::uint64_t(type.task.value) << 32) | (byEndEvent ? type.endEvent.value : type.startEvent.value);
            auto [it, fresh] = ids.emplace(key, static_cast<std::uint32_t>(g.types.size()));
            if (fresh) {
                g.types.emplace_back();
                g.event.push_back(key);
            }
            g.ofType[t] = it->second;
            g.types[it->second].push_back(SegmentTypeId(t));
        }
        return g;
    }

    // Whether every pair of types of the two groups that met in a request kept a -> b; the requests in
    // which they met come back in support.
    static bool alwaysBefore(const CausalModel& model, const std::vector<SegmentTypeId>& from,
                             const std::vector<SegmentTypeId>& to, std::int64_t& support) {
        support = 0;
        bool alive = true;
        for (SegmentTypeId a : from)
            for (SegmentTypeId b : to) {
                const std::int64_t s = a == b ? 0 : model.support(a, b);
                if (s == 0) continue;
                support += s;
                alive = alive && model.m_hbAlive[a.value].test(b.value);
            }
        return alive && support > 0;
    }

    // Two producers (or two consumers) can take part in a pipeline only if they meet in requests and
    // neither always comes first.
    static bool canSwap(const CausalModel& model, const std::vector<SegmentTypeId>& x, const std::vector<SegmentTypeId>& y) {
        std::int64_t forward = 0, backward = 0;
        const bool xFirst = alwaysBefore(model, x, y, forward);
        const bool yFirst = alwaysBefore(model, y, x, backward);
        return forward > 0 && !xFirst && !yFirst;
    }

    static SegmentTypeId mostFrequent(const CausalModel& model, const std::vector<SegmentTypeId>& types) {
        return *std::max_element(types.begin(), types.end(),
                                 [&](SegmentTypeId a, SegmentTypeId b) { return model.occurrences(a) < model.occurrences(b); });
    }

    static Status inferPipelines(const TraceData& data, const ClockOffsets& offsets, std::size_t requests,
                                 unsigned threads, CausalModel& model, const CancelToken* cancel) {
        const std::size_t n = model.m_types;
        const EventGroups producers = groupTypes(data, n, true);
        const EventGroups consumers = groupTypes(data, n, false);

        // Links: a producing event always followed by a consuming event, in enough requests to be confirmed.
        // A consumer that starts at the very event the producer ends at is the same task's next segment.
        struct Link {
            std::uint32_t producer, consumer;  // groups
        };
        std::vector<Link> links;
        for (std::uint32_t p = 0; p < producers.types.size(); ++p)
            for (std::uint32_t c = 0; c < consumers.types.size(); ++c) {
                if (producers.event[p] == consumers.event[c]) continue;
                std::int64_t support = 0;
                if (alwaysBefore(model, producers.types[p], consumers.types[c], support) && support >= model.m_supportFloor)
                    links.push_back({p, c});
            }

        // Candidate pairs of links: four distinct events, producers that can come in either order, and so
        // can consumers. Memoised per pair of groups.
        std::unordered_map<std::uint64_t, bool> producerSwap, consumerSwap;
        auto swappable = [&](std::unordered_map<std::uint64_t, bool>& memo, const EventGroups& g, std::uint32_t x, std::uint32_t y) {
            const std::uint64_t key = (std::uint64_t(std::min(x, y)) << 32) | std::max(x, y);
            auto it = memo.find(key);
            if (it == memo.end()) it = memo.emplace(key, canSwap(model, g.types[x], g.types[y])).first;
            return it->second;
        };
        std::vector<std::pair<std::uint32_t, std::uint32_t>> candidates;  // indices into links
        constexpr std::size_t kMaxCandidates = 1 << 20;  // bounds memory on pathological models
        for (std::uint32_t i = 0; i < links.size() && candidates.size() < kMaxCandidates; ++i)
            for (std::uint32_t j = i + 1; j < links.size() && candidates.size() < kMaxCandidates; ++j) {
                const Link& l1 = links[i];
                const Link& l2 = links[j];
                if (l1.producer == l2.producer || l1.consumer == l2.consumer) continue;
                if (producers.event[l1.producer] == consumers.event[l2.consumer] ||
                    producers.event[l2.producer] == consumers.event[l1.consumer])
                    continue;
                if (swappable(producerSwap, producers, l1.producer, l2.producer) &&
                    swappable(consumerSwap, consumers, l1.consumer, l2.consumer))
                    candidates.emplace_back(i, j);
            }
        if (candidates.empty()) return Status::ok();

        // Refute by FIFO order, request by request; every shard's state exists before any runs, so shards
        // that get no requests merge as empty.
        struct PipelineShard {
            std::vector<std::uint32_t> active;
            std::vector<std::uint8_t> dead, orders;
            std::vector<std::int64_t> support;
        };
        std::vector<PipelineShard> shards(std::max(1u, threads));
        for (auto& st : shards) {
            st.active.resize(candidates.size());
            std::iota(st.active.begin(), st.active.end(), 0u);
            st.dead.assign(candidates.size(), 0);
            st.orders.assign(candidates.size(), 0);
            st.support.assign(candidates.size(), 0);
        }
        std::atomic<bool> cancelled{false};
        forEachShard(requests, threads, [&](unsigned shard, std::size_t begin, std::size_t end) {
            PipelineShard& st = shards[shard];
            std::vector<int> producedBy(producers.types.size(), -1), consumedBy(consumers.types.size(), -1);
            std::vector<SegmentInstance> segs;
            for (std::size_t r = begin; r < end; ++r) {
                buildSegments(data.eventsOf(r), offsets, segs);
                for (std::size_t i = 0; i < segs.size(); ++i) {
                    if (segs[i].type.value >= n) continue;
                    producedBy[producers.ofType[segs[i].type.value]] = static_cast<int>(i);
                    consumedBy[consumers.ofType[segs[i].type.value]] = static_cast<int>(i);
                }
                for (std::size_t k = 0; k < st.active.size();) {
                    const std::uint32_t c = st.active[k];
                    const Link& l1 = links[candidates[c].first];
                    const Link& l2 = links[candidates[c].second];
                    const int a1 = producedBy[l1.producer], b1 = consumedBy[l1.consumer];
                    const int a2 = producedBy[l2.producer], b2 = consumedBy[l2.consumer];
                    if (a1 < 0 || b1 < 0 || a2 < 0 || b2 < 0) { ++k; continue; }
                    ++st.support[c];
                    const auto ea1 = segs[a1].endNs, ea2 = segs[a2].endNs;
                    const auto sb1 = segs[b1].startNs, sb2 = segs[b2].startNs;
                    if (ea1 != ea2 && sb1 != sb2) {
                        st.orders[c] |= ea1 < ea2 ? 1 : 2;
                        if ((ea1 < ea2) != (sb1 < sb2)) {  // refuted: drop it from this shard's work list
                            st.dead[c] = 1;
                            st.active[k] = st.active.back();
                            st.active.pop_back();
                            continue;
                        }
                    }
                    ++k;
                }
                for (const auto& s : segs) {
                    if (s.type.value >= n) continue;
                    producedBy[producers.ofType[s.type.value]] = -1;
                    consumedBy[consumers.ofType[s.type.value]] = -1;
                }
                if (((r - begin) & 0x3FFF) == 0x3FFF && cancel && cancel->isCancelled()) {
                    cancelled = true;
                    return;
                }
            }
        });
        if (cancelled) return Status::error("cancelled");
        auto linkOf = [&](const Link& l) {
            return PipelineLink{mostFrequent(model, producers.types[l.producer]), mostFrequent(model, consumers.types[l.consumer]),
                                producers.types[l.producer], consumers.types[l.consumer]};
        };
        for (std::size_t c = 0; c < candidates.size(); ++c) {
            bool dead = false;
            std::uint8_t orders = 0;
            std::int64_t support = 0;
            for (const auto& st : shards) {
                dead |= st.dead[c] != 0;
                orders |= st.orders[c];
                support += st.support[c];
            }
            if (!dead && orders == 3 && support >= model.m_supportFloor)
                model.m_pipelines.push_back({linkOf(links[candidates[c].first]), linkOf(links[candidates[c].second]), support});
        }
        return Status::ok();
    }
};

Result<CausalModel> inferModel(const TraceData& data, const ClockOffsets& offsets, const InferenceOptions& options,
                               const ProgressSink* progress, const CancelToken* cancel) {
    return ModelBuilder::build(data, offsets, options, progress, cancel);
}

} // namespace tracelight
