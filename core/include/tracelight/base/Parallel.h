#pragma once
// Data-parallel work sharded by request: contiguous ranges on worker threads, merged by the caller.
#include <cstddef>
#include <functional>

namespace tracelight {

// Runs body(shard, begin, end) over contiguous request ranges on worker threads: at most one thread per
// request, so shards numbered up to min(threads, requests) - 1 run; callers size their per-shard state
// by the threads they asked for and must not assume every shard ran.
void forEachShard(std::size_t requests, unsigned threads,
                  const std::function<void(unsigned shard, std::size_t begin, std::size_t end)>& body);
// Runs body(shard, begin, end) over chunks of `chunk` requests, which the threads take in request order,
// each the next one left: at any moment the requests done form a prefix (but for the chunks in flight),
// so a consumer that follows them in order (the results' writer) is never left with half the requests at
// the end. The chunks of one shard come in increasing order; the same shard numbering as forEachShard.
void forEachChunk(std::size_t requests, unsigned threads, std::size_t chunk,
                  const std::function<void(unsigned shard, std::size_t begin, std::size_t end)>& body);
// 0: one per hardware thread.
unsigned resolveThreads(unsigned requested);

} // namespace tracelight
