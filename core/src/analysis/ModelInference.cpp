#include "tracelight/analysis/ModelInference.h"

#include <algorithm>
#include <bit>
#include <atomic>
#include <cstring>
#include <mutex>
#include <map>
#include <numeric>
#include <unordered_map>
#include <thread>

#include "tracelight/analysis/Segments.h"
#include "tracelight/base/Bytes.h"
#include "tracelight/base/Collective.h"

namespace tracelight {

namespace {

std::vector<std::int64_t> checkpoints(std::int64_t upTo) {
    std::vector<std::int64_t> points;
    for (std::int64_t scale = 1; scale <= upTo; scale *= 10)
        for (std::int64_t m : {1, 2, 5})
            if (m * scale <= upTo && m * scale >= 10) points.push_back(m * scale);
    return points;
}

// A matrix of bitset rows as one run of words (for the collectives), and back.
void appendWords(const std::vector<Bitset>& matrix, std::vector<std::uint64_t>& flat) {
    for (const auto& row : matrix) flat.insert(flat.end(), row.words().begin(), row.words().end());
}
void copyWords(const std::uint64_t* flat, std::vector<Bitset>& matrix) {
    for (auto& row : matrix) {
        std::copy_n(flat, row.words().size(), row.words().begin());
        flat += row.words().size();
    }
}

// Refutations seen by one shard of requests, over dense (tracked) type indices.
struct ShardState {
    std::size_t types = 0, words = 0;
    std::vector<Bitset> hbAlive, meAlive, orderSeen;
    Bitset seen;
    std::map<std::vector<std::uint64_t>, std::int64_t> signatures;  // presence set -> requests
    std::int64_t requests = 0;

    // Scratch, reused across requests.
    std::vector<TimeNs> minStart, maxStart, maxEnd, minEnd;  // per type present
    std::vector<std::uint32_t> presentList, byMinStart, byMaxStart, activeCount;
    std::vector<TimeNs> sortedMinStart, sortedMaxStart;
    std::vector<std::uint64_t> prefix, prefixMax;
    Bitset present, active;
    struct Point {
        TimeNs t;
        int kind;  // 0: an instance ends, 1: a zero-length instance, 2: an instance starts
        std::uint32_t type;
    };
    std::vector<Point> points;
    std::vector<std::uint64_t> packed;  // the points of a request that spans less than 2^(62 - type bits) ns
    std::vector<std::uint64_t> mergeBuffer;
    std::vector<std::size_t> runs, mergedRuns;

    explicit ShardState(std::size_t n)
        : types(n), words((n + 63) / 64), seen(n), minStart(n), maxStart(n), maxEnd(n), minEnd(n), activeCount(n, 0), present(n),
          active(n) {
        hbAlive.assign(n, Bitset(n, true));
        meAlive.assign(n, Bitset(n, true));
        orderSeen.assign(n, Bitset(n, false));
    }

    // segs: the request's segments of tracked types, their type fields holding dense indices.
    void observe(const std::vector<SegmentInstance>& segs) {
        ++requests;
        present.clear();
        presentList.clear();
        for (const auto& s : segs) {
            const auto d = s.type.value;
            if (!present.test(d)) {
                present.set(d);
                presentList.push_back(d);
                minStart[d] = maxStart[d] = s.startNs;
                maxEnd[d] = minEnd[d] = s.endNs;
            } else {
                minStart[d] = std::min(minStart[d], s.startNs);
                maxStart[d] = std::max(maxStart[d], s.startNs);
                maxEnd[d] = std::max(maxEnd[d], s.endNs);
                minEnd[d] = std::min(minEnd[d], s.endNs);
            }
        }
        seen |= present;
        ++signatures[present.words()];
        if (presentList.empty()) return;

        // Happens-before A -> B is refuted when some B starts before some A ends: B's first start is
        // before A's last end. An order A then B is seen when some A ends before some B starts: A's first
        // end is at or before B's last start. Row k of a prefix: the first k types by that start.
        const std::size_t p = presentList.size();
        auto prefixBy = [&](std::vector<std::uint32_t>& by, std::vector<TimeNs>& sorted, std::vector<std::uint64_t>& rows,
                            const std::vector<TimeNs>& key) {
            by = presentList;
            std::sort(by.begin(), by.end(), [&](auto a, auto b) { return key[a] < key[b]; });
            sorted.resize(p);
            for (std::size_t i = 0; i < p; ++i) sorted[i] = key[by[i]];
            rows.assign((p + 1) * words, 0);
            for (std::size_t k = 0; k < p; ++k) {
                std::copy_n(rows.begin() + k * words, words, rows.begin() + (k + 1) * words);
                rows[(k + 1) * words + by[k] / 64] |= std::uint64_t{1} << (by[k] % 64);
            }
        };
        prefixBy(byMinStart, sortedMinStart, prefix, minStart);
        prefixBy(byMaxStart, sortedMaxStart, prefixMax, maxStart);
        const auto& presentWords = present.words();
        for (auto a : presentList) {
            const std::size_t k = std::lower_bound(sortedMinStart.begin(), sortedMinStart.end(), maxEnd[a]) - sortedMinStart.begin();
            const std::size_t o = std::lower_bound(sortedMaxStart.begin(), sortedMaxStart.end(), minEnd[a]) - sortedMaxStart.begin();
            auto& hb = hbAlive[a].words();
            auto& order = orderSeen[a].words();
            const std::uint64_t* before = prefix.data() + k * words;
            const std::uint64_t* allStartBefore = prefixMax.data() + o * words;
            for (std::size_t w = 0; w < words; ++w) {
                hb[w] &= ~before[w];
                order[w] |= presentWords[w] & ~allStartBefore[w];
            }
        }

        // Mutual exclusion is refuted by two overlapping instances (a.start < b.end and b.start < a.end):
        // a sweep over the instances' ends and starts, ends first at one instant; a zero-length instance
        // overlaps only what runs across its instant.
        // The order among points of one instant and kind does not matter (refutation is symmetric).
        auto visit = [&](int kind, std::uint32_t type) {
            if (kind == 0) {
                if (--activeCount[type] == 0) active.reset(type);
                return;
            }
            meAlive[type].subtract(active);
            active.forEach([&](std::size_t y) { meAlive[y].reset(type); });
            if (kind == 2 && activeCount[type]++ == 0) active.set(type);
        };
        TimeNs first = segs.front().startNs, last = segs.front().endNs;
        for (const auto& s : segs) {
            first = std::min(first, s.startNs);
            last = std::max(last, s.endNs);
        }
        const auto typeBits = static_cast<unsigned>(std::bit_width(types));
        const std::uint64_t spanNs = static_cast<std::uint64_t>(last) - static_cast<std::uint64_t>(first);  // no overflow
        if (typeBits <= 30 && last >= first && spanNs < (std::uint64_t{1} << (62 - typeBits))) {
            // Each point as one integer (time since the first, kind, type), so the sort compares integers.
            packed.resize(2 * segs.size());
            std::size_t k = 0;
            auto pack = [&](TimeNs t, std::uint64_t kind, std::uint32_t type) {
                packed[k++] = (static_cast<std::uint64_t>(t - first) << (2 + typeBits)) | (kind << typeBits) | type;
            };
            for (const auto& s : segs) {
                if (s.endNs > s.startNs) {
                    pack(s.startNs, 2, s.type.value);
                    pack(s.endNs, 0, s.type.value);
                } else {
                    pack(s.startNs, 1, s.type.value);
                }
            }
            packed.resize(k);
            sortPoints(typeBits);
            const std::uint64_t typeMask = (std::uint64_t{1} << typeBits) - 1;
            for (std::uint64_t point : packed) visit(static_cast<int>((point >> typeBits) & 3), static_cast<std::uint32_t>(point & typeMask));
            return;
        }
        points.clear();
        for (const auto& s : segs) {
            if (s.endNs > s.startNs) {
                points.push_back({s.startNs, 2, s.type.value});
                points.push_back({s.endNs, 0, s.type.value});
            } else {
                points.push_back({s.startNs, 1, s.type.value});
            }
        }
        std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.t != b.t ? a.t < b.t : a.kind < b.kind; });
        for (const Point& pt : points) visit(pt.kind, pt.type);
    }

    // The packed points in order of (time, kind). A task's segments follow one another, so its points come
    // in that order already and a request's points are a few ascending runs, one per task: they are
    // merged pairwise instead of sorted (BM_ModelInference 184 -> 167-176 ms). The type bits are left
    // out of the comparison, since points of one instant and kind may come in any order.
    void sortPoints(unsigned typeBits) {
        const auto before = [typeBits](std::uint64_t a, std::uint64_t b) { return (a >> typeBits) < (b >> typeBits); };
        runs.assign(1, 0);
        for (std::size_t i = 1; i < packed.size(); ++i)
            if (before(packed[i], packed[i - 1])) runs.push_back(i);
        runs.push_back(packed.size());
        constexpr std::size_t kMergedRuns = 64;  // more runs than this: one sort does as well
        if (runs.size() > kMergedRuns + 1) {
            std::sort(packed.begin(), packed.end(), before);
            return;
        }
        mergeBuffer.resize(packed.size());
        while (runs.size() > 2) {
            mergedRuns.assign(1, 0);
            for (std::size_t r = 0; r + 1 < runs.size(); r += 2) {
                const auto first = packed.begin() + static_cast<std::ptrdiff_t>(runs[r]);
                const auto middle = packed.begin() + static_cast<std::ptrdiff_t>(runs[r + 1]);
                const auto out = mergeBuffer.begin() + static_cast<std::ptrdiff_t>(runs[r]);
                if (r + 2 < runs.size()) {
                    std::merge(first, middle, middle, packed.begin() + static_cast<std::ptrdiff_t>(runs[r + 2]), out, before);
                    mergedRuns.push_back(runs[r + 2]);
                } else {
                    std::copy(first, middle, out);  // an odd run out waits for the next round
                    mergedRuns.push_back(runs[r + 1]);
                }
            }
            packed.swap(mergeBuffer);
            runs.swap(mergedRuns);
        }
    }

    ConvergencePoint alive() const { return aliveIn(hbAlive, meAlive, seen, requests); }

    // The hypotheses alive among the types seen, at a point of the request sequence.
    static ConvergencePoint aliveIn(const std::vector<Bitset>& hb, const std::vector<Bitset>& me, const Bitset& seen,
                                    std::int64_t requests) {
        ConvergencePoint p;
        p.requests = requests;
        seen.forEach([&](std::size_t a) {
            Bitset h = hb[a];
            h &= seen;
            h.reset(a);
            p.happensBeforeAlive += static_cast<std::int64_t>(h.count());
            Bitset x = me[a];
            x &= seen;
            x.reset(a);
            p.mutualExclusionAlive += static_cast<std::int64_t>(x.count());
        });
        p.mutualExclusionAlive /= 2;
        return p;
    }

    // This shard's state where the whole request sequence reaches a convergence checkpoint; made
    // cumulative (earlier shards and processes ANDed in) once every shard is done.
    struct Snapshot {
        std::int64_t requests;  // of the whole sequence
        std::vector<Bitset> hb, me;
        Bitset seen;
    };
    std::vector<Snapshot> snapshots;
    void snapshot(std::int64_t sequenceRequests) { snapshots.push_back({sequenceRequests, hbAlive, meAlive, seen}); }
    // Applies the state of every request before this shard's (hb, me, seenBefore) to its snapshots.
    void applyEarlier(const std::vector<Bitset>& hb, const std::vector<Bitset>& me, const Bitset& seenBefore) {
        for (Snapshot& s : snapshots) {
            for (std::size_t a = 0; a < types; ++a) {
                s.hb[a] &= hb[a];
                s.me[a] &= me[a];
            }
            s.seen |= seenBefore;
        }
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

    // Across the processes of a distributed run: hypotheses by AND, observations by OR, counts by sum.
    void mergeAcross(Collective& group) {
        if (group.size() == 1) return;
        auto rows = [&](std::vector<Bitset>& matrix, bool andRows) {
            std::vector<std::uint64_t> flat;
            flat.reserve(types * words);
            appendWords(matrix, flat);
            andRows ? group.bitAnd(flat) : group.bitOr(flat);
            copyWords(flat.data(), matrix);
        };
        rows(hbAlive, true);
        rows(meAlive, true);
        rows(orderSeen, false);
        group.bitOr(seen.words());
        std::int64_t count = requests;
        group.sum({&count, 1});
        requests = count;
        std::string mine;
        putValue(mine, static_cast<std::uint64_t>(signatures.size()));
        for (const auto& [sig, n] : signatures) {
            for (auto w : sig) putValue(mine, w);
            putValue(mine, n);
        }
        signatures.clear();
        for (const auto& bytes : group.allGather(mine)) {
            std::string_view in(bytes);
            std::uint64_t entries = 0;
            getValue(in, entries);
            std::vector<std::uint64_t> sig(words);
            for (std::uint64_t i = 0; i < entries; ++i) {
                for (auto& w : sig) getValue(in, w);
                std::int64_t n = 0;
                getValue(in, n);
                signatures[sig] += n;
            }
        }
    }
};

} // namespace

std::int64_t CausalModel::support(SegmentTypeId a, SegmentTypeId b) const {
    if (a == b) return occurrences(a);
    const int da = dense(a), db = dense(b);
    if (da < 0 || db < 0) return 0;
    const auto& row = m_pairs[static_cast<std::size_t>(da)];
    auto it = std::lower_bound(row.begin(), row.end(), static_cast<std::uint32_t>(db),
                               [](const PairSupport& p, std::uint32_t v) { return p.other < v; });
    return it != row.end() && it->other == static_cast<std::uint32_t>(db) ? it->support : 0;
}

std::size_t CausalModel::pairsSeenTogether() const {
    std::size_t n = 0;
    for (const auto& row : m_pairs) n += row.size();
    return n;
}

bool CausalModel::hbAlive(SegmentTypeId a, SegmentTypeId b) const {
    const int da = dense(a), db = dense(b);
    return da >= 0 && db >= 0 && m_hbAlive[static_cast<std::size_t>(da)].test(static_cast<std::size_t>(db));
}

const std::vector<SegmentTypeId>& CausalModel::happensBeforeRow(SegmentTypeId a) const {
    static const std::vector<SegmentTypeId> none;
    return a.value < m_hbConfirmed.size() ? m_hbConfirmed[a.value] : none;
}

const std::vector<SegmentTypeId>& CausalModel::mutualExclusionRow(SegmentTypeId a) const {
    static const std::vector<SegmentTypeId> none;
    return a.value < m_meConfirmed.size() ? m_meConfirmed[a.value] : none;
}

bool CausalModel::happensBefore(SegmentTypeId a, SegmentTypeId b, bool confirmedOnly) const {
    if (a == b || !hbAlive(a, b)) return false;
    const auto s = support(a, b);
    return confirmedOnly ? s >= m_supportFloor : s > 0;
}

bool CausalModel::mutuallyExclusive(SegmentTypeId a, SegmentTypeId b, bool confirmedOnly) const {
    const int da = dense(a), db = dense(b);
    if (a == b || da < 0 || db < 0) return false;
    const auto x = static_cast<std::size_t>(da), y = static_cast<std::size_t>(db);
    if (!m_meAlive[x].test(y) || !m_orderSeen[x].test(y) || !m_orderSeen[y].test(x)) return false;
    const auto s = support(a, b);
    return confirmedOnly ? s >= m_supportFloor : s > 0;
}

void CausalModel::computeConfirmed() {
    m_hbConfirmed.assign(m_types, {});
    m_meConfirmed.assign(m_types, {});
    forEachPairSeenTogether([&](SegmentTypeId a, SegmentTypeId b, std::int64_t s) {
        if (s < m_supportFloor) return;
        if (happensBefore(a, b)) m_hbConfirmed[a.value].push_back(b);
        if (mutuallyExclusive(a, b)) m_meConfirmed[a.value].push_back(b);
    });
}

namespace {
constexpr char kModelMagic[4] = {'T', 'L', 'M', '3'};  // 3: sparse pairs over tracked types
} // namespace

std::string CausalModel::serialize() const {
    std::string out(kModelMagic, 4);
    putValue(out, static_cast<std::uint64_t>(m_types));
    putValue(out, m_requests);
    putValue(out, m_supportFloor);
    for (auto o : m_occurrences) putValue(out, o);
    for (auto r : m_repeated) putValue(out, r);
    const std::size_t m = m_tracked.size();
    putValue(out, static_cast<std::uint64_t>(m));
    for (auto t : m_tracked) putValue(out, t);
    // Per row the pairs seen together, with the hypotheses' bits; a row is written dense when that is smaller.
    for (std::size_t a = 0; a < m; ++a) {
        auto flags = [&](std::size_t b) {
            return static_cast<std::uint8_t>((m_hbAlive[a].test(b) ? 1 : 0) | (m_meAlive[a].test(b) ? 2 : 0) | (m_orderSeen[a].test(b) ? 4 : 0));
        };
        const auto& row = m_pairs[a];
        if (9 * row.size() + 4 <= 5 * m) {
            putValue(out, std::uint8_t{0});
            putValue(out, static_cast<std::uint32_t>(row.size()));
            for (const auto& p : row) {
                putValue(out, p.other);
                putValue(out, p.support);
                putValue(out, flags(p.other));
            }
        } else {
            putValue(out, std::uint8_t{1});
            std::vector<std::uint32_t> support(m, 0);
            for (const auto& p : row) support[p.other] = p.support;
            for (std::size_t b = 0; b < m; ++b) {
                putValue(out, support[b]);
                putValue(out, support[b] ? flags(b) : std::uint8_t{0});
            }
        }
    }
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
    CausalModel m;
    if (Status s = parse(in, m); !s) return s;
    if (!in.empty()) return Status::error("damaged cached model");
    m.computeConfirmed();
    return m;
}

std::string CausalModel::serializeState() const {
    std::string out = serialize();
    putValue(out, static_cast<std::uint64_t>(m_candidates.size()));
    for (const auto& c : m_candidates) {
        for (auto k : c.key) putValue(out, k);
        putValue(out, c.dead);
        putValue(out, c.orders);
        putValue(out, c.support);
    }
    return out;
}

Result<CausalModel> CausalModel::deserializeState(std::string_view in) {
    const Status damaged = Status::error("damaged model state");
    CausalModel m;
    if (Status s = parse(in, m); !s) return s;
    std::uint64_t count = 0;
    if (!getValue(in, count) || count > in.size()) return damaged;
    m.m_candidates.resize(static_cast<std::size_t>(count));
    for (auto& c : m.m_candidates) {
        for (auto& k : c.key)
            if (!getValue(in, k) || k >= m.m_types) return damaged;
        if (!getValue(in, c.dead) || !getValue(in, c.orders) || !getValue(in, c.support)) return damaged;
    }
    if (!in.empty()) return damaged;
    m.computeConfirmed();
    return m;
}

Status CausalModel::parse(std::string_view& in, CausalModel& m) {
    const Status damaged = Status::error("damaged cached model");
    if (in.size() < 4 || std::memcmp(in.data(), kModelMagic, 4) != 0) return damaged;
    in.remove_prefix(4);
    std::uint64_t n = 0;
    if (!getValue(in, n) || !getValue(in, m.m_requests) || !getValue(in, m.m_supportFloor)) return damaged;
    if (n > in.size() / 5) return damaged;  // every type has 5 bytes of its own
    m.m_types = static_cast<std::size_t>(n);
    m.m_occurrences.resize(n);
    for (auto& o : m.m_occurrences) getValue(in, o);
    m.m_repeated.resize(n);
    for (auto& r : m.m_repeated) getValue(in, r);
    std::uint64_t tracked = 0;
    if (!getValue(in, tracked) || tracked > n || tracked * 4 > in.size()) return damaged;
    const auto mt = static_cast<std::size_t>(tracked);
    m.m_tracked.resize(mt);
    m.m_dense.assign(n, -1);
    for (std::size_t d = 0; d < mt; ++d) {
        auto& t = m.m_tracked[d];
        if (!getValue(in, t) || t >= n || (d > 0 && t <= m.m_tracked[d - 1])) return damaged;
        m.m_dense[t] = static_cast<int>(d);
    }
    m.m_hbAlive.assign(mt, Bitset(mt));
    m.m_meAlive.assign(mt, Bitset(mt));
    m.m_orderSeen.assign(mt, Bitset(mt));
    m.m_pairs.assign(mt, {});
    for (std::size_t a = 0; a < mt; ++a) {
        auto add = [&](std::uint32_t b, std::uint32_t support, std::uint8_t flags) {
            if (support == 0) return;
            m.m_pairs[a].push_back({b, support});
            if (flags & 1) m.m_hbAlive[a].set(b);
            if (flags & 2) m.m_meAlive[a].set(b);
            if (flags & 4) m.m_orderSeen[a].set(b);
        };
        std::uint8_t mode = 0;
        if (!getValue(in, mode)) return damaged;
        if (mode == 0) {
            std::uint32_t count = 0;
            if (!getValue(in, count) || count > mt) return damaged;
            for (std::uint32_t k = 0; k < count; ++k) {
                std::uint32_t b = 0, support = 0;
                std::uint8_t flags = 0;
                if (!getValue(in, b) || !getValue(in, support) || !getValue(in, flags) || b >= mt || b == a) return damaged;
                if (!m.m_pairs[a].empty() && b <= m.m_pairs[a].back().other) return damaged;
                add(b, support, flags);
            }
        } else if (mode == 1) {
            for (std::uint32_t b = 0; b < mt; ++b) {
                std::uint32_t support = 0;
                std::uint8_t flags = 0;
                if (!getValue(in, support) || !getValue(in, flags)) return damaged;
                if (b != a) add(b, support, flags);
            }
        } else {
            return damaged;
        }
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
    return Status::ok();
}

std::vector<std::pair<SegmentTypeId, SegmentTypeId>> CausalModel::reducedHappensBefore() const {
    // a -> c is implied when a -> b and b -> c for some b (the confirmed relation is transitive by construction).
    const std::size_t m = m_tracked.size();
    std::vector<Bitset> rows(m, Bitset(m));
    for (std::size_t a = 0; a < m; ++a)
        for (SegmentTypeId b : m_hbConfirmed[m_tracked[a]]) rows[a].set(static_cast<std::size_t>(dense(b)));
    std::vector<std::pair<SegmentTypeId, SegmentTypeId>> edges;
    for (std::size_t a = 0; a < m; ++a) {
        const Bitset& successors = rows[a];
        if (successors.count() == 0) continue;
        Bitset implied(m);
        successors.forEach([&](std::size_t b) { implied |= rows[b]; });
        successors.forEach([&](std::size_t c) {
            if (!implied.test(c)) edges.emplace_back(SegmentTypeId(m_tracked[a]), SegmentTypeId(m_tracked[c]));
        });
    }
    return edges;
}

class ModelBuilder {
public:
    // With a prior (a single process only), the model of rows [0, firstNew) refined with the rest; an empty
    // fullBecause comes back unless refinement cannot equal an inference from scratch (see refineModel).
    static Result<CausalModel> build(const TraceData& data, const ClockOffsets& offsets, const InferenceOptions& options,
                                     const ProgressSink* progress, const CancelToken* cancel, const RequestShare& share,
                                     const CausalModel* prior = nullptr, std::size_t firstNew = 0, std::string* fullBecause = nullptr) {
        SingleProcess single;
        Collective& group = share.group ? *share.group : single;
        const std::size_t n = data.segmentTypes.size();
        // The requests analysed: the first maxRequests of the whole sequence; this process holds those of
        // them from its first request on.
        const std::size_t analysed = options.maxRequests >= 0
                                         ? std::min<std::size_t>(share.totalRequests, static_cast<std::size_t>(options.maxRequests))
                                         : share.totalRequests;
        const std::size_t requests = analysed > share.firstRequest ? std::min(data.requestCount(), analysed - share.firstRequest) : 0;
        const unsigned threads = resolveThreads(options.threads);
        ThrottledProgress reporter(progress);
        // The rows tested here: all of this process's, or with a prior only the new ones.
        const std::size_t first = prior ? std::min(firstNew, requests) : 0;
        const auto forEachNewShard = [&](const std::function<void(unsigned, std::size_t, std::size_t)>& body) {
            forEachShard(requests - first, threads, [&](unsigned shard, std::size_t begin, std::size_t end) { body(shard, first + begin, first + end); });
        };

        CausalModel model;
        model.m_types = n;
        model.m_requests = static_cast<std::int64_t>(analysed);
        model.m_supportFloor = options.supportFloor;

        // Pass 0: how many requests hold each type, and which types repeat within a request; then the
        // types that are tracked (see the header).
        model.m_occurrences.assign(n, 0);
        model.m_repeated.assign(n, 0);
        {
            // Sharded by request (a count is of the requests holding a type), merged by sums and ORs.
            struct Presence {
                std::vector<std::uint32_t> occurrences;
                std::vector<std::uint8_t> repeated;
            };
            std::vector<Presence> parts(std::max(1u, threads));
            forEachNewShard([&](unsigned shard, std::size_t begin, std::size_t end) {
                Presence& part = parts[shard];
                part.occurrences.assign(n, 0);
                part.repeated.assign(n, 0);
                std::vector<std::uint32_t> lastRequest(n, UINT32_MAX);
                for (std::size_t r = begin; r < end; ++r)
                    for (const EventRecord& e : data.eventsOf(r)) {
                        if (!e.segmentType.isValid()) continue;
                        const auto t = e.segmentType.value;
                        if (lastRequest[t] == r) {
                            part.repeated[t] = 1;
                            continue;
                        }
                        lastRequest[t] = static_cast<std::uint32_t>(r);
                        ++part.occurrences[t];
                    }
            });
            for (const Presence& part : parts)
                for (std::size_t t = 0; t < part.occurrences.size(); ++t) {
                    model.m_occurrences[t] += part.occurrences[t];
                    model.m_repeated[t] |= part.repeated[t];
                }
            if (prior) {
                for (std::size_t t = 0; t < std::min(n, prior->m_types); ++t) {
                    if (part0Repeats(model, *prior, t)) return refuse(fullBecause, "a segment type repeated within a request for the first time");
                    model.m_occurrences[t] += prior->m_occurrences[t];
                    model.m_repeated[t] |= prior->m_repeated[t];
                }
            }
            if (group.size() > 1) {
                std::vector<std::int64_t> counts(2 * n);
                for (std::size_t t = 0; t < n; ++t) {
                    counts[t] = model.m_occurrences[t];
                    counts[n + t] = model.m_repeated[t];
                }
                group.sum(counts);
                for (std::size_t t = 0; t < n; ++t) {
                    model.m_occurrences[t] = static_cast<std::uint32_t>(counts[t]);
                    model.m_repeated[t] = counts[n + t] > 0 ? 1 : 0;
                }
            }
        }
        if (n <= kDenseTypeBudget) {
            for (std::uint32_t t = 0; t < n; ++t) model.m_tracked.push_back(t);
        } else {
            for (std::uint32_t t = 0; t < n; ++t)
                if (static_cast<std::int64_t>(model.m_occurrences[t]) >= std::max<std::int64_t>(1, options.supportFloor))
                    model.m_tracked.push_back(t);
            if (model.m_tracked.size() > kTrackedTypeCap) {
                std::stable_sort(model.m_tracked.begin(), model.m_tracked.end(),
                                 [&](auto a, auto b) { return model.m_occurrences[a] > model.m_occurrences[b]; });
                model.m_tracked.resize(kTrackedTypeCap);
                std::sort(model.m_tracked.begin(), model.m_tracked.end());
            }
        }
        const std::size_t m = model.m_tracked.size();
        model.m_dense.assign(n, -1);
        for (std::size_t d = 0; d < m; ++d) model.m_dense[model.m_tracked[d]] = static_cast<int>(d);
        // Refinement keeps every prior type's dense index: the types tracked among the prior ones must be the
        // same (new types have higher ids, so their indices come after).
        if (prior) {
            if (prior->m_types > n) return refuse(fullBecause, "the data holds fewer segment types than the model");
            for (std::size_t t = 0; t < prior->m_types; ++t)
                if (model.m_dense[t] != prior->dense(SegmentTypeId(static_cast<std::uint32_t>(t))))
                    return refuse(fullBecause, "the tracked segment types changed");
        }

        std::vector<ShardState> shards;
        for (unsigned s = 0; s < std::max(1u, threads); ++s) shards.emplace_back(m);
        std::atomic<std::size_t> done{0};
        std::atomic<bool> cancelled{false};
        std::mutex reportMutex;

        // Pass 1: happens-before and mutual exclusion. Each shard snapshots its state where the whole
        // request sequence reaches a convergence checkpoint, so the curve does not depend on the sharding.
        const std::vector<std::int64_t> points = checkpoints(static_cast<std::int64_t>(analysed));
        forEachNewShard([&](unsigned shard, std::size_t begin, std::size_t end) {
            ShardState& state = shards[shard];
            std::vector<SegmentInstance> segs, tracked;
            const auto sequenceAt = [&](std::size_t r) { return static_cast<std::int64_t>(share.firstRequest + r); };
            std::size_t nextPoint = static_cast<std::size_t>(std::upper_bound(points.begin(), points.end(), sequenceAt(begin)) - points.begin());
            for (std::size_t r = begin; r < end; ++r) {
                buildSegments(data.eventsOf(r), offsets, segs);
                tracked.clear();
                for (const auto& s : segs)
                    if (const int d = model.m_dense[s.type.value]; d >= 0) {
                        tracked.push_back(s);
                        tracked.back().type = SegmentTypeId(static_cast<std::uint32_t>(d));
                    }
                state.observe(tracked);
                if (nextPoint < points.size() && sequenceAt(r + 1) == points[nextPoint]) {
                    state.snapshot(points[nextPoint]);
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
        if (group.any(cancelled)) return Status::error("cancelled");
        // Merged in request order: before shard s merges, shard 0 holds every earlier request of this process.
        for (std::size_t s = 1; s < shards.size(); ++s) {
            shards[s].applyEarlier(shards[0].hbAlive, shards[0].meAlive, shards[0].seen);
            shards[0].merge(shards[s]);
        }
        ShardState& merged = shards[0];
        if (prior) {
            // The prior rows come before every new one: their surviving hypotheses are the earlier state of every
            // snapshot and of the merged state (new types' rows and columns start alive and unordered).
            // Only a pair seen together can have been refuted or ordered; a stored model keeps the bits of those
            // pairs only (the others read refuted there, but were never tested).
            std::vector<Bitset> hb(m, Bitset(m, true)), me(m, Bitset(m, true)), order(m, Bitset(m));
            Bitset seen(m);
            for (std::size_t a = 0; a < prior->m_tracked.size(); ++a) {
                for (const auto& p : prior->m_pairs[a]) {
                    if (!prior->m_hbAlive[a].test(p.other)) hb[a].reset(p.other);
                    if (!prior->m_meAlive[a].test(p.other)) me[a].reset(p.other);
                    if (prior->m_orderSeen[a].test(p.other)) order[a].set(p.other);
                }
                if (prior->m_occurrences[prior->m_tracked[a]] > 0) seen.set(a);
            }
            for (auto& shard : shards) shard.applyEarlier(hb, me, seen);
            for (std::size_t a = 0; a < m; ++a) {
                merged.hbAlive[a] &= hb[a];
                merged.meAlive[a] &= me[a];
                merged.orderSeen[a] |= order[a];
            }
            merged.seen |= seen;
            merged.requests += static_cast<std::int64_t>(first);
            // The prior curve without its closing point, unless that is a checkpoint of the whole sequence too.
            model.m_convergence = prior->m_convergence;
            const auto priorPoints = checkpoints(static_cast<std::int64_t>(first));
            if (!model.m_convergence.empty() &&
                !std::binary_search(priorPoints.begin(), priorPoints.end(), model.m_convergence.back().requests))
                model.m_convergence.pop_back();
        }
        // The earlier processes' requests: an exclusive prefix AND (seen, an OR, as the AND of its complement).
        {
            const std::size_t words = merged.words;
            std::vector<std::uint64_t> flat;
            flat.reserve((2 * m + 1) * words);
            appendWords(merged.hbAlive, flat);
            appendWords(merged.meAlive, flat);
            for (auto w : merged.seen.words()) flat.push_back(~w);
            group.exclusiveAnd(flat);
            std::vector<Bitset> hb(m, Bitset(m)), me(m, Bitset(m));
            Bitset seen(m);
            copyWords(flat.data(), hb);
            copyWords(flat.data() + m * words, me);
            for (std::size_t w = 0; w < words; ++w) seen.words()[w] = ~flat[2 * m * words + w];
            if (words) seen.words().back() &= Bitset(m, true).words().back();
            std::string mine;
            for (auto& shard : shards) {
                shard.applyEarlier(hb, me, seen);
                for (const auto& snap : shard.snapshots) {
                    const ConvergencePoint p = ShardState::aliveIn(snap.hb, snap.me, snap.seen, snap.requests);
                    putValue(mine, p);
                }
                shard.snapshots.clear();
            }
            for (const auto& bytes : group.allGather(mine)) {
                std::string_view in(bytes);
                for (ConvergencePoint p; getValue(in, p);) model.m_convergence.push_back(p);
            }
        }
        merged.mergeAcross(group);

        // Support of the pairs seen together, from the distinct presence sets.
        model.m_pairs.assign(m, {});
        {
            const bool denseCounts = m * m <= (std::size_t{1} << 22);
            std::vector<std::uint32_t> counts(denseCounts ? m * m : 0, 0);
            std::unordered_map<std::uint64_t, std::uint32_t> sparseCounts;
            std::vector<std::uint32_t> members;
            if (prior)  // the prior rows' support (their dense indices are the same)
                for (std::size_t a = 0; a < prior->m_pairs.size(); ++a)
                    for (const auto& p : prior->m_pairs[a]) {
                        if (denseCounts) counts[a * m + p.other] += p.support;
                        else sparseCounts[(std::uint64_t(a) << 32) | p.other] += p.support;
                    }
            for (const auto& [sig, count] : merged.signatures) {
                members.clear();
                for (std::size_t w = 0; w < sig.size(); ++w)
                    for (std::uint64_t bits = sig[w]; bits; bits &= bits - 1)
                        members.push_back(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits))));
                for (auto a : members)
                    for (auto b : members) {
                        if (a == b) continue;
                        if (denseCounts) counts[a * m + b] += static_cast<std::uint32_t>(count);
                        else sparseCounts[(std::uint64_t(a) << 32) | b] += static_cast<std::uint32_t>(count);
                    }
            }
            if (denseCounts) {
                for (std::size_t a = 0; a < m; ++a)
                    for (std::size_t b = 0; b < m; ++b)
                        if (counts[a * m + b]) model.m_pairs[a].push_back({static_cast<std::uint32_t>(b), counts[a * m + b]});
            } else {
                for (const auto& [key, c] : sparseCounts) model.m_pairs[key >> 32].push_back({static_cast<std::uint32_t>(key), c});
                for (auto& row : model.m_pairs)
                    std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.other < y.other; });
            }
        }
        // The final point covers every request analysed (the merged state holds them all).
        const ConvergencePoint last = merged.alive();
        model.m_hbAlive = std::move(merged.hbAlive);
        model.m_meAlive = std::move(merged.meAlive);
        model.m_orderSeen = std::move(merged.orderSeen);
        model.computeConfirmed();
        if (model.m_convergence.empty() || model.m_convergence.back().requests != last.requests)
            model.m_convergence.push_back(last);

        // Pass 2: pipelines, between pairs of confirmed producer -> consumer links.
        if (auto s = inferPipelines(data, offsets, requests, threads, model, cancel, group, prior, first, fullBecause); !s) return s;
        if (fullBecause && !fullBecause->empty()) return model;
        reporter.report(1.0, "model inferred", true);
        return model;
    }

private:
    static CausalModel refuse(std::string* fullBecause, const char* why) {
        if (fullBecause) *fullBecause = why;
        return CausalModel{};
    }
    // Whether type t repeats within a request now, having never done so in the prior rows, while it could
    // take part in a pipeline there (tracked): the pipeline groups would change.
    static bool part0Repeats(const CausalModel& model, const CausalModel& prior, std::size_t t) {
        return model.m_repeated[t] && !prior.m_repeated[t] && prior.tracked(SegmentTypeId(static_cast<std::uint32_t>(t)));
    }
    // Interns the events that end (producers) or start (consumers) segment types, per task.
    static constexpr std::uint32_t kNoGroup = UINT32_MAX;
    struct EventGroups {
        std::vector<std::uint32_t> ofType;              // segment type -> group
        std::vector<std::vector<SegmentTypeId>> types;  // group -> the segment types it holds
        std::vector<std::uint64_t> event;               // group -> (task << 32 | event)
    };
    // Only tracked types that never repeat in a request take part (see the header).
    static EventGroups groupTypes(const TraceData& data, const CausalModel& model, bool byEndEvent) {
        const std::size_t n = model.m_types;
        EventGroups g;
        g.ofType.assign(n, kNoGroup);
        std::unordered_map<std::uint64_t, std::uint32_t> ids;
        for (std::uint32_t t = 0; t < n; ++t) {
            const SegmentTypeId id(t);
            if (!model.tracked(id) || model.repeated(id)) continue;
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
                alive = alive && model.hbAlive(a, b);
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
                                 unsigned threads, CausalModel& model, const CancelToken* cancel, Collective& group,
                                 const CausalModel* prior, std::size_t firstNew, std::string* fullBecause) {
        const std::size_t n = model.m_types;
        const EventGroups producers = groupTypes(data, model, true);
        const EventGroups consumers = groupTypes(data, model, false);

        // Links: a producing event always followed by a consuming event, in enough requests to be confirmed.
        // A consumer that starts at the very event the producer ends at is the same task's next segment.
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
        if (prior && candidates.size() >= kMaxCandidates) {
            if (fullBecause) *fullBecause = "the pipeline hypotheses reached their bound";
            return Status::ok();
        }
        // Each hypothesis by its groups' first types: what refinement finds it again by.
        auto keyOf = [&](std::uint32_t c) {
            const Link& l1 = links[candidates[c].first];
            const Link& l2 = links[candidates[c].second];
            return std::array<std::uint32_t, 4>{producers.types[l1.producer][0].value, consumers.types[l1.consumer][0].value,
                                                producers.types[l2.producer][0].value, consumers.types[l2.consumer][0].value};
        };
        std::vector<std::uint64_t> dead(candidates.size(), 0), orders(candidates.size(), 0);
        std::vector<std::int64_t> support(candidates.size(), 0);
        // With a prior, a hypothesis it held keeps what the prior rows showed and meets only the new rows (one it
        // refuted stays refuted); one made only now is tested against every row.
        std::vector<std::uint32_t> carried, fresh;
        if (prior) {
            std::map<std::array<std::uint32_t, 4>, const PipelineCandidate*> before;
            for (const auto& c : prior->m_candidates) before.emplace(c.key, &c);
            for (std::uint32_t c = 0; c < candidates.size(); ++c) {
                const auto it = before.find(keyOf(c));
                if (it == before.end()) {
                    fresh.push_back(c);
                    continue;
                }
                dead[c] = it->second->dead;
                orders[c] = it->second->orders;
                support[c] = it->second->support;
                if (!dead[c]) carried.push_back(c);
            }
        } else {
            fresh.resize(candidates.size());
            std::iota(fresh.begin(), fresh.end(), 0u);
        }
        if (Status s = testPipelines(data, offsets, links, candidates, producers, consumers, fresh, 0, requests, threads, n, cancel,
                                     group, dead, orders, support);
            !s)
            return s;
        if (Status s = testPipelines(data, offsets, links, candidates, producers, consumers, carried, firstNew, requests, threads, n,
                                     cancel, group, dead, orders, support);
            !s)
            return s;
        auto linkOf = [&](const Link& l) {
            return PipelineLink{mostFrequent(model, producers.types[l.producer]), mostFrequent(model, consumers.types[l.consumer]),
                                producers.types[l.producer], consumers.types[l.consumer]};
        };
        model.m_candidates.resize(candidates.size());
        for (std::size_t c = 0; c < candidates.size(); ++c) {
            // A refuted hypothesis keeps only that: what a shard saw before refuting it depends on the sharding.
            model.m_candidates[c] = {keyOf(static_cast<std::uint32_t>(c)), static_cast<std::uint8_t>(dead[c]),
                                     static_cast<std::uint8_t>(dead[c] ? 0 : orders[c]), dead[c] ? 0 : support[c]};
            if (!dead[c] && orders[c] == 3 && support[c] >= model.m_supportFloor)
                model.m_pipelines.push_back({linkOf(links[candidates[c].first]), linkOf(links[candidates[c].second]), support[c]});
        }
        return Status::ok();
    }

    struct Link {
        std::uint32_t producer, consumer;  // groups
    };
    // The FIFO test of the hypotheses `subset` (indices into candidates) over rows [rowBegin, rowEnd), added to
    // dead, orders and support (collective: every process of the group calls it).
    static Status testPipelines(const TraceData& data, const ClockOffsets& offsets, const std::vector<Link>& links,
                                const std::vector<std::pair<std::uint32_t, std::uint32_t>>& candidates, const EventGroups& producers,
                                const EventGroups& consumers, const std::vector<std::uint32_t>& subset, std::size_t rowBegin,
                                std::size_t rowEnd, unsigned threads, std::size_t n, const CancelToken* cancel, Collective& group,
                                std::vector<std::uint64_t>& deadOut, std::vector<std::uint64_t>& ordersOut, std::vector<std::int64_t>& supportOut) {
        if (group.size() == 1 && (subset.empty() || rowBegin >= rowEnd)) return Status::ok();
        const std::size_t requests = rowEnd > rowBegin ? rowEnd - rowBegin : 0;
        // Refute by FIFO order, request by request; every shard's state exists before any runs, so shards
        // that get no requests merge as empty.
        struct PipelineShard {
            std::vector<std::uint32_t> active;
            std::vector<std::uint8_t> dead, orders;
            std::vector<std::int64_t> support;
        };
        std::vector<PipelineShard> shards(std::max(1u, threads));
        for (auto& st : shards) {
            st.active = subset;
            st.dead.assign(candidates.size(), 0);
            st.orders.assign(candidates.size(), 0);
            st.support.assign(candidates.size(), 0);
        }
        std::atomic<bool> cancelled{false};
        forEachShard(requests, threads, [&](unsigned shard, std::size_t begin, std::size_t end) {
            begin += rowBegin;
            end += rowBegin;
            PipelineShard& st = shards[shard];
            std::vector<int> producedBy(producers.types.size(), -1), consumedBy(consumers.types.size(), -1);
            std::vector<SegmentInstance> segs;
            for (std::size_t r = begin; r < end; ++r) {
                buildSegments(data.eventsOf(r), offsets, segs);
                for (std::size_t i = 0; i < segs.size(); ++i) {
                    if (segs[i].type.value >= n) continue;
                    if (const auto g = producers.ofType[segs[i].type.value]; g != kNoGroup) producedBy[g] = static_cast<int>(i);
                    if (const auto g = consumers.ofType[segs[i].type.value]; g != kNoGroup) consumedBy[g] = static_cast<int>(i);
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
                    if (const auto g = producers.ofType[s.type.value]; g != kNoGroup) producedBy[g] = -1;
                    if (const auto g = consumers.ofType[s.type.value]; g != kNoGroup) consumedBy[g] = -1;
                }
                if (((r - begin) & 0x3FFF) == 0x3FFF && cancel && cancel->isCancelled()) {
                    cancelled = true;
                    return;
                }
            }
        });
        if (group.any(cancelled)) return Status::error("cancelled");
        // Shards, then processes: refutations and orders by OR, support by sum.
        std::vector<std::uint64_t> dead(candidates.size(), 0), orders(candidates.size(), 0);
        std::vector<std::int64_t> support(candidates.size(), 0);
        for (const auto& st : shards)
            for (std::size_t c = 0; c < candidates.size(); ++c) {
                dead[c] |= st.dead[c];
                orders[c] |= st.orders[c];
                support[c] += st.support[c];
            }
        group.bitOr(dead);
        group.bitOr(orders);
        group.sum(support);
        for (std::size_t c = 0; c < candidates.size(); ++c) {
            deadOut[c] |= dead[c];
            ordersOut[c] |= orders[c];
            supportOut[c] += support[c];
        }
        return Status::ok();
    }
};

Result<CausalModel> inferModel(const TraceData& data, const ClockOffsets& offsets, const InferenceOptions& options,
                               const ProgressSink* progress, const CancelToken* cancel, const RequestShare* share) {
    return ModelBuilder::build(data, offsets, options, progress, cancel, share ? *share : RequestShare::whole(data));
}

Result<Refinement> refineModel(const CausalModel& prior, const TraceData& data, const ClockOffsets& offsets, std::size_t firstNew,
                               const InferenceOptions& options, const ProgressSink* progress, const CancelToken* cancel) {
    Refinement out;
    if (options.maxRequests >= 0) out.fullBecause = "the model covers only the first requests (max_requests)";
    else if (prior.supportFloor() != options.supportFloor) out.fullBecause = "another support floor";
    else if (prior.requestsAnalysed() != static_cast<std::int64_t>(firstNew) || firstNew > data.requestCount())
        out.fullBecause = "the model is not of the rows before the new ones";
    if (!out.fullBecause.empty()) return out;
    auto model = ModelBuilder::build(data, offsets, options, progress, cancel, RequestShare::whole(data), &prior, firstNew, &out.fullBecause);
    if (!model) return model.status();
    if (out.fullBecause.empty()) out.model = std::move(model.value());
    return out;
}

} // namespace tracelight
