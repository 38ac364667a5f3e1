#include "tracelight/base/Parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

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

void forEachChunk(std::size_t requests, unsigned threads, std::size_t chunk,
                  const std::function<void(unsigned shard, std::size_t begin, std::size_t end)>& body) {
    chunk = std::max<std::size_t>(1, chunk);
    std::atomic<std::size_t> next{0};
    forEachShard(requests, threads, [&](unsigned shard, std::size_t, std::size_t) {
        for (std::size_t begin = next.fetch_add(chunk); begin < requests; begin = next.fetch_add(chunk))
            body(shard, begin, std::min(requests, begin + chunk));
    });
}

} // namespace tracelight
