#pragma once
// Causal model inference by refuting hypotheses (Mystery Machine, section 3): every relation between
// segment types is assumed until one request contradicts it. A request may hold several instances of a
// type (span data: every call of one operation is one type):
//   happens-before  A -> B : every instance of B starts at or after every instance of A ends, in every
//                             request with both (never A -> A);
//   mutual exclusion A | B : no instance of A overlaps an instance of B, and both orders occur (an A
//                             ends before a B starts, and a B before an A);
//   pipeline (A1->B1, A2->B2): a data dependency between pairs of segments of two tasks that keeps FIFO
//                               order: A1 finishes before A2 exactly when B1 starts before B2, in every
//                               request with all four, and both orders occur. A producer is identified
//                               by the event that ends it (<task, end event>) and a consumer by the event
//                               that starts it, so a task that makes items in varying order (whose
//                               segment types then differ per order) still forms one pipeline. Only types
//                               that never occur more than once in a request take part in pipelines (the
//                               paper's definition pairs single segments).
// Size grows with the relations, not with the square of the types:
//   * Hypotheses are rows of bitsets over the *tracked* types only. With at most kDenseTypeBudget (256)
//     types every type is tracked, unconfirmed relations included. Beyond it, a type seen in fewer
//     requests than the support floor is not tracked (its relations could only ever be unconfirmed), and
//     of the rest the kTrackedTypeCap (4,096) most frequent are; an untracked type has no inferred
//     relations (support with any other type reads 0), only its occurrence count. So one trace of 1,000
//     spans in 2,000 types, or 10,000 distinct operations, keeps no unconfirmed pairs at all. Confirmed
//     relations, which the per-request graphs use, never depend on the rule below the cap.
//   * Support is kept, and serialized, only for pairs that were seen together; a row is written dense
//     only while that is smaller than the list of its pairs.
// Requests are sharded across threads and the shards merged by AND (refutations) and sums (support).
// Refinement (refineModel): a model inferred from a run of requests takes the next run by testing only
// its surviving hypotheses against the new requests, and ends as the model of both runs inferred at once.
#include <array>
#include <cstdint>
#include <optional>
#include <functional>
#include <string>
#include <vector>

#include "tracelight/base/Bitset.h"
#include "tracelight/base/Parallel.h"
#include "tracelight/analysis/ClockSkew.h"
#include "tracelight/base/Progress.h"
#include "tracelight/analysis/RequestShare.h"
#include "tracelight/analysis/TraceData.h"

namespace tracelight {

struct InferenceOptions {
    std::int64_t supportFloor = 10;  // relations seen in fewer requests are reported as unconfirmed
    unsigned threads = 0;            // 0: one per hardware thread
    std::int64_t maxRequests = -1;   // analyse only the first N requests (convergence studies); -1: all
};

struct PipelineLink {
    SegmentTypeId producer;  // the most frequent segment type ending at the producing event (for reports)
    SegmentTypeId consumer;  // the most frequent segment type starting at the consuming event
    // Every segment type that ends at the producing event / starts at the consuming event: at most one of
    // each occurs in a request (events are unique within a task), and that one is the link's end there.
    std::vector<SegmentTypeId> producerTypes, consumerTypes;
};

struct PipelinePair {
    PipelineLink first, second;
    std::int64_t support = 0;  // requests with all four segments
};

// A pipeline hypothesis as refinement carries it: its two links by the smallest segment type of each
// producer and consumer group, and what the requests tested so far showed.
struct PipelineCandidate {
    std::array<std::uint32_t, 4> key{};  // first producer, first consumer, second producer, second consumer
    std::uint8_t dead = 0, orders = 0;   // refuted; orders seen (1: first ends first, 2: second ends first)
    std::int64_t support = 0;            // requests with all four segments
    bool operator==(const PipelineCandidate&) const = default;
};

struct ConvergencePoint {
    std::int64_t requests = 0;
    std::int64_t happensBeforeAlive = 0;
    std::int64_t mutualExclusionAlive = 0;
};

// Types beyond which rare types (below the support floor) are not tracked, and the most tracked; see above.
constexpr std::size_t kDenseTypeBudget = 256;
constexpr std::size_t kTrackedTypeCap = 4096;

class CausalModel {
public:
    std::size_t typeCount() const { return m_types; }
    std::size_t trackedTypeCount() const { return m_tracked.size(); }
    std::int64_t requestsAnalysed() const { return m_requests; }
    std::int64_t supportFloor() const { return m_supportFloor; }

    // Requests in which both types occurred (0 when either type is not tracked and a != b).
    std::int64_t support(SegmentTypeId a, SegmentTypeId b) const;
    std::int64_t occurrences(SegmentTypeId a) const { return a.value < m_occurrences.size() ? m_occurrences[a.value] : 0; }
    // Whether some request held more than one instance of the type.
    bool repeated(SegmentTypeId a) const { return a.value < m_repeated.size() && m_repeated[a.value]; }
    bool tracked(SegmentTypeId a) const { return a.value < m_dense.size() && m_dense[a.value] >= 0; }

    // Never contradicted and seen together at least once (confirmed: at least the support floor).
    bool happensBefore(SegmentTypeId a, SegmentTypeId b, bool confirmedOnly = true) const;
    bool mutuallyExclusive(SegmentTypeId a, SegmentTypeId b, bool confirmedOnly = true) const;
    bool confirmed(SegmentTypeId a, SegmentTypeId b) const { return support(a, b) >= m_supportFloor; }

    // Calls f(a, b, support) for every ordered pair a != b of types seen together in some request, rows in
    // increasing a, each row in increasing b. Linear in those pairs.
    template <typename F>
    void forEachPairSeenTogether(F&& f) const {
        for (std::size_t da = 0; da < m_pairs.size(); ++da)
            for (const auto& p : m_pairs[da]) f(SegmentTypeId(m_tracked[da]), SegmentTypeId(m_tracked[p.other]), std::int64_t{p.support});
    }
    std::size_t pairsSeenTogether() const;

    // For the per-request DAG: confirmed happens-before successors / mutual-exclusion partners, by type id.
    const std::vector<SegmentTypeId>& happensBeforeRow(SegmentTypeId a) const;
    const std::vector<SegmentTypeId>& mutualExclusionRow(SegmentTypeId a) const;
    const std::vector<PipelinePair>& pipelines() const { return m_pipelines; }
    const std::vector<ConvergencePoint>& convergence() const { return m_convergence; }

    // Happens-before after transitive reduction (confirmed relations only): the edges a graph view draws.
    std::vector<std::pair<SegmentTypeId, SegmentTypeId>> reducedHappensBefore() const;

    // A compact binary form for the result cache; deserialize refuses damaged or foreign bytes.
    std::string serialize() const;
    static Result<CausalModel> deserialize(std::string_view bytes);
    // The model with what refinement needs besides (every pipeline hypothesis, refuted ones included).
    std::string serializeState() const;
    static Result<CausalModel> deserializeState(std::string_view bytes);
    const std::vector<PipelineCandidate>& pipelineCandidates() const { return m_candidates; }

private:
    friend class ModelBuilder;
    struct PairSupport {
        std::uint32_t other;    // dense index
        std::uint32_t support;  // requests with both
    };
    void computeConfirmed();
    static Status parse(std::string_view& in, CausalModel& m);
    int dense(SegmentTypeId a) const { return a.value < m_dense.size() ? m_dense[a.value] : -1; }
    bool hbAlive(SegmentTypeId a, SegmentTypeId b) const;
    std::size_t m_types = 0;
    std::int64_t m_requests = 0;
    std::int64_t m_supportFloor = 0;
    std::vector<std::uint32_t> m_occurrences;  // per type: requests holding it
    std::vector<std::uint8_t> m_repeated;      // per type: more than one instance in some request
    std::vector<int> m_dense;                  // type -> dense index, -1 when not tracked
    std::vector<std::uint32_t> m_tracked;      // dense index -> type, increasing
    // Over dense indices. orderSeen[a][b]: an instance of a once ended before an instance of b started.
    std::vector<Bitset> m_hbAlive, m_meAlive, m_orderSeen;
    std::vector<std::vector<PairSupport>> m_pairs;  // per dense row, pairs seen together, by other
    std::vector<std::vector<SegmentTypeId>> m_hbConfirmed, m_meConfirmed;  // per type
    std::vector<PipelinePair> m_pipelines;
    std::vector<ConvergencePoint> m_convergence;
    std::vector<PipelineCandidate> m_candidates;  // every pipeline hypothesis, in the order they are made
};

// With a share, this process infers from its part of the requests and the group merges the parts
// (collective: every process of the group calls it); every process gets the whole model.
Result<CausalModel> inferModel(const TraceData& data, const ClockOffsets& offsets, const InferenceOptions& options,
                               const ProgressSink* progress = nullptr, const CancelToken* cancel = nullptr,
                               const RequestShare* share = nullptr);

// The model of rows [0, firstNew) of data (`prior`, inferred from them alone with the same options and
// offsets) refined with rows [firstNew, end): only the hypotheses that survived the prior rows are tested,
// against the new rows only, and the result equals inferModel over every row. Hypotheses that did not
// exist yet (types first seen now, pipeline hypotheses whose links were confirmed only now) are new and
// tested against every row. No model (fullBecause set) when refinement cannot give that equality: the
// tracked types changed (more than kDenseTypeBudget types), a type first repeated within a request, or
// the pipeline hypotheses hit their bound.
struct Refinement {
    std::optional<CausalModel> model;
    std::string fullBecause;
};
Result<Refinement> refineModel(const CausalModel& prior, const TraceData& data, const ClockOffsets& offsets, std::size_t firstNew,
                               const InferenceOptions& options, const ProgressSink* progress = nullptr,
                               const CancelToken* cancel = nullptr);


} // namespace tracelight
