#pragma once
// Every selected request of an analysis, sharded over worker threads, each handed over with its span
// shapes when it came from spans: those are read in one streaming scan of the store and handled in
// batches, the rest (event logs, or a store not given) in one sharded pass, and a span request whose
// records are missing still comes, without them. Cancel-aware, with progress. The profile and the
// bottleneck pass both walk requests this way.
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tracelight/analysis/TraceData.h"
#include "tracelight/base/Parallel.h"
#include "tracelight/base/Progress.h"
#include "tracelight/base/Status.h"
#include "tracelight/store/SpanReads.h"
#include "tracelight/store/SpanRecords.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

// selected(row) -> bool. makeWorker(shard) -> a callable worker(row, const std::vector<SpanShape>* or null), made once
// per shard and pass, so that it can keep its own scratch (a RequestPass) across its requests.
template <class Selected, class MakeWorker>
Status forEachRequestWithSpans(const TraceData& td, const TraceStore* store, Selected selected, unsigned threads,
                               std::string_view stage, const ProgressSink* progress, const CancelToken* cancel,
                               MakeWorker makeWorker) {
    auto cancelled = [cancel] { return cancel && cancel->isCancelled(); };
    std::vector<std::uint32_t> spanRows, plainRows;
    for (std::uint32_t r = 0; r < td.requestCount(); ++r)
        if (selected(r)) (td.isFromSpans(r) && store ? spanRows : plainRows).push_back(r);
    ShardedProgress reporter(progress, spanRows.size() + plainRows.size(), stage);

    forEachShard(plainRows.size(), threads, [&](unsigned shard, std::size_t begin, std::size_t end) {
        auto worker = makeWorker(shard);
        for (std::size_t i = begin; i < end; ++i) {
            if (((i - begin) & 0xFF) == 0xFF && cancelled()) return;
            worker(plainRows[i], nullptr);
            reporter.step(i - begin);
        }
    });
    if (cancelled()) return Status::error("cancelled");
    if (spanRows.empty()) return Status::ok();

    std::unordered_map<std::uint64_t, std::uint32_t> rowOf;
    rowOf.reserve(spanRows.size());
    for (auto r : spanRows) rowOf.emplace(td.requestIds[r].value, r);
    std::vector<std::pair<std::uint32_t, std::vector<SpanShape>>> batch;
    std::vector<bool> seen(td.requestCount(), false);
    auto flush = [&] {
        forEachShard(batch.size(), threads, [&](unsigned shard, std::size_t begin, std::size_t end) {
            auto worker = makeWorker(shard);
            for (std::size_t i = begin; i < end; ++i) {
                if (cancelled()) return;
                worker(batch[i].first, &batch[i].second);
                reporter.step(i - begin);
            }
        });
        batch.clear();
    };
    // The last batch is flushed before the scan ends: the shapes' texts are the scan's.
    Status scanned = scanSpanShapes(*store,
        [&](RequestId id, const std::vector<SpanShape>& spans) {
            auto it = rowOf.find(id.value);
            if (it == rowOf.end()) return !cancelled();
            seen[it->second] = true;
            batch.emplace_back(it->second, spans);
            if (batch.size() >= 2048) flush();  // bounded memory: a batch of span trees at a time
            return !cancelled();
        },
        flush);
    if (!scanned) return scanned;
    if (cancelled()) return Status::error("cancelled");
    auto worker = makeWorker(0);
    for (auto r : spanRows)
        if (!seen[r]) worker(r, nullptr);
    return Status::ok();
}

} // namespace tracelight
