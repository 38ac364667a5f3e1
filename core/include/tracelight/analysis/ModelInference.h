#pragma once
// Causal model inference by refuting hypotheses (Mystery Machine, section 3): every relation between
// segment types is assumed until one request contradicts it.
//   happens-before  A -> B : B starts at or after A ends, in every request with both;
//   mutual exclusion A | B : their intervals never overlap, and both orders occur;
//   pipeline (A1->B1, A2->B2): a data dependency between pairs of segments of two tasks that keeps FIFO
//                               order: A1 finishes before A2 exactly when B1 starts before B2, in every
//                               request with all four, and both orders occur. A producer is identified
//                               by the event that ends it (<task, end event>) and a consumer by the event
//                               that starts it, so a task that makes items in varying order (whose
//                               segment types then differ per order) still forms one pipeline.
// Hypotheses are rows of bitsets over segment-type ids; requests are sharded across threads and the
// shards merged by AND (refutations) and sums (support).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tracelight/base/Bitset.h"
#include "tracelight/base/Parallel.h"
#include "tracelight/analysis/ClockSkew.h"
#include "tracelight/base/Progress.h"
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

struct ConvergencePoint {
    std::int64_t requests = 0;
    std::int64_t happensBeforeAlive = 0;
    std::int64_t mutualExclusionAlive = 0;
};

class CausalModel {
public:
    std::size_t typeCount() const { return m_types; }
    std::int64_t requestsAnalysed() const { return m_requests; }
    std::int64_t supportFloor() const { return m_supportFloor; }

    // Requests in which both types occurred.
    std::int64_t support(SegmentTypeId a, SegmentTypeId b) const { return m_support[a.value * m_types + b.value]; }
    std::int64_t occurrences(SegmentTypeId a) const { return support(a, a); }

    // Never contradicted and seen together at least once (confirmed: at least the support floor).
    bool happensBefore(SegmentTypeId a, SegmentTypeId b, bool confirmedOnly = true) const;
    bool mutuallyExclusive(SegmentTypeId a, SegmentTypeId b, bool confirmedOnly = true) const;
    bool confirmed(SegmentTypeId a, SegmentTypeId b) const { return support(a, b) >= m_supportFloor; }

    // Rows for the per-request DAG: confirmed happens-before successors / mutual-exclusion partners.
    const Bitset& happensBeforeRow(SegmentTypeId a) const { return m_hbConfirmed[a.value]; }
    const Bitset& mutualExclusionRow(SegmentTypeId a) const { return m_meConfirmed[a.value]; }
    const std::vector<PipelinePair>& pipelines() const { return m_pipelines; }
    const std::vector<ConvergencePoint>& convergence() const { return m_convergence; }

    // Happens-before after transitive reduction (confirmed relations only): the edges a graph view draws.
    std::vector<std::pair<SegmentTypeId, SegmentTypeId>> reducedHappensBefore() const;

    // A compact binary form for the result cache; deserialize refuses damaged or foreign bytes.
    std::string serialize() const;
    static Result<CausalModel> deserialize(std::string_view bytes);

private:
    friend class ModelBuilder;
    void computeConfirmed();
    std::size_t m_types = 0;
    std::int64_t m_requests = 0;
    std::int64_t m_supportFloor = 0;
    std::vector<Bitset> m_hbAlive, m_meAlive, m_orderSeen;  // orderSeen[a][b]: a once ended before b started
    std::vector<Bitset> m_hbConfirmed, m_meConfirmed;
    std::vector<std::uint32_t> m_support;  // types x types
    std::vector<PipelinePair> m_pipelines;
    std::vector<ConvergencePoint> m_convergence;
};

Result<CausalModel> inferModel(const TraceData& data, const ClockOffsets& offsets, const InferenceOptions& options,
                               const ProgressSink* progress = nullptr, const CancelToken* cancel = nullptr);


} // namespace tracelight
