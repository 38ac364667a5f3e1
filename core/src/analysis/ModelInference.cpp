#include "tracelight/analysis/ModelInference.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <map>
#include <thread>

#include "tracelight/analysis/Segments.h"

namespace tracelight {

unsigned resolveThreads(unsigned requested) {
    if (requested > 0) return requested;
    const unsigned hw = std::thread::hardware_concurrency();
    return hw > 0 ? hw : 2;
}

void forEachShard(std::size_t requests, unsigned threads,
                  const std::function<void(unsigned shard, std::size_t begin, std::size_t end)>& body) {
    threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::max<std::size_t>(1, requests))));
    if (threads == 1) {
        body(0, 0, requests);
        return;
    }
    std::vector<std::thread> workers;
    for (unsigned s = 0; s < threads; ++s) {
        const std::size_t begin = requests * s / threads, end = requests * (s + 1) / threads;
        workers.emplace_back([&body, s, begin, end] { body(s, begin, end); });
    }
    for (auto& w : workers) w.join();
}

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

struct PipelineCandidate {
    PipelineLink first, second;
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
constexpr char kModelMagic[4] = {'T', 'L', 'M', '1'};
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
        p.first = {SegmentTypeId(ids[0]), SegmentTypeId(ids[1])};
        p.second = {SegmentTypeId(ids[2]), SegmentTypeId(ids[3])};
        if (!getValue(in, p.support)) return damaged;
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

        // Pass 2: pipelines, between pairs of confirmed happens-before links inside two different tasks.
        if (auto s = inferPipelines(data, offsets, requests, threads, model, cancel); !s) return s;
        reporter.report(1.0, "model inferred", true);
        return model;
    }

private:
    static Status inferPipelines(const TraceData& data, const ClockOffsets& offsets, std::size_t requests,
                                 unsigned threads, CausalModel& model, const CancelToken* cancel) {
        const std::size_t n = model.m_types;
        // Segment types that open their task (a consumer task started by data from another one).
        std::vector<bool> opensTask(n, false);
        for (std::size_t r = 0; r < requests; ++r) {
            const auto events = data.eventsOf(r);
            for (std::size_t e = 1; e < events.size(); ++e)
                if (events[e].segmentType.isValid() && !events[e - 1].segmentType.isValid() && events[e].segmentType.value < n)
                    opensTask[events[e].segmentType.value] = true;
        }
        // Links a pipeline may pair: data passed inside one task (not simply consecutive segments, which
        // share an event and are trivially FIFO), or handed to another task that it starts.
        std::vector<PipelineLink> links;
        for (std::uint32_t a = 0; a < n; ++a)
            model.m_hbConfirmed[a].forEach([&](std::size_t b) {
                const SegmentType& ta = data.segmentTypes[a];
                const SegmentType& tb = data.segmentTypes[b];
                const bool withinTask = ta.task == tb.task && tb.startEvent != ta.endEvent;
                const bool startsTask = ta.task != tb.task && opensTask[b];
                if (withinTask || startsTask) links.push_back({SegmentTypeId(a), SegmentTypeId(static_cast<std::uint32_t>(b))});
            });
        auto unordered = [&](SegmentTypeId x, SegmentTypeId y) {
            return x != y && !model.m_hbConfirmed[x.value].test(y.value) && !model.m_hbConfirmed[y.value].test(x.value);
        };
        std::vector<PipelineCandidate> candidates;
        constexpr std::size_t kMaxCandidates = 1 << 20;  // bounds memory on pathological models
        for (std::size_t i = 0; i < links.size() && candidates.size() < kMaxCandidates; ++i)
            for (std::size_t j = i + 1; j < links.size() && candidates.size() < kMaxCandidates; ++j) {
                const auto& l1 = links[i];
                const auto& l2 = links[j];
                if (data.segmentTypes[l1.producer.value].task == data.segmentTypes[l2.producer.value].task) continue;
                if (unordered(l1.producer, l2.producer) && unordered(l1.consumer, l2.consumer))
                    candidates.push_back({l1, l2});
            }
        if (candidates.empty()) return Status::ok();

        struct PipelineShard {
            std::vector<std::uint32_t> active;
            std::vector<std::uint8_t> dead, orders;
            std::vector<std::int64_t> support;
        };
        std::vector<PipelineShard> shards(std::max(1u, threads));
        std::atomic<bool> cancelled{false};
        forEachShard(requests, threads, [&](unsigned shard, std::size_t begin, std::size_t end) {
            PipelineShard& st = shards[shard];
            st.active.resize(candidates.size());
            for (std::uint32_t c = 0; c < candidates.size(); ++c) st.active[c] = c;
            st.dead.assign(candidates.size(), 0);
            st.orders.assign(candidates.size(), 0);
            st.support.assign(candidates.size(), 0);
            std::vector<int> local(n, -1);
            std::vector<SegmentInstance> segs;
            for (std::size_t r = begin; r < end; ++r) {
                buildSegments(data.eventsOf(r), offsets, segs);
                for (std::size_t i = 0; i < segs.size(); ++i) local[segs[i].type.value] = static_cast<int>(i);
                for (std::size_t k = 0; k < st.active.size();) {
                    const std::uint32_t c = st.active[k];
                    const auto& cand = candidates[c];
                    const int a1 = local[cand.first.producer.value], b1 = local[cand.first.consumer.value];
                    const int a2 = local[cand.second.producer.value], b2 = local[cand.second.consumer.value];
                    if (a1 < 0 || b1 < 0 || a2 < 0 || b2 < 0) { ++k; continue; }
                    ++st.support[c];
                    const TimeNs ea1 = segs[a1].endNs, ea2 = segs[a2].endNs;
                    const TimeNs sb1 = segs[b1].startNs, sb2 = segs[b2].startNs;
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
                for (const auto& s : segs) local[s.type.value] = -1;
                if (((r - begin) & 0x3FFF) == 0x3FFF && cancel && cancel->isCancelled()) {
                    cancelled = true;
                    return;
                }
            }
        });
        if (cancelled) return Status::error("cancelled");
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
                model.m_pipelines.push_back({candidates[c].first, candidates[c].second, support});
        }
        return Status::ok();
    }
};

Result<CausalModel> inferModel(const TraceData& data, const ClockOffsets& offsets, const InferenceOptions& options,
                               const ProgressSink* progress, const CancelToken* cancel) {
    return ModelBuilder::build(data, offsets, options, progress, cancel);
}

} // namespace tracelight
