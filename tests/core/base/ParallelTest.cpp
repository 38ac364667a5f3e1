// The job runner's two ways of sharding requests over threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "tracelight/base/Parallel.h"

using namespace tracelight;

TEST(Parallel, ChunksCoverEveryRequestOnceInOrderPerShard) {
    for (std::size_t requests : {0u, 1u, 7u, 4096u, 10001u}) {
        for (unsigned threads : {1u, 2u, 5u}) {
            std::vector<int> times(requests, 0);
            std::vector<std::vector<std::size_t>> begins(threads);
            std::mutex m;
            forEachChunk(requests, threads, 1000, [&](unsigned shard, std::size_t begin, std::size_t end) {
                std::lock_guard lock(m);
                ASSERT_LT(shard, threads);
                ASSERT_LT(begin, end);
                ASSERT_LE(end - begin, 1000u);
                begins[shard].push_back(begin);
                for (std::size_t r = begin; r < end; ++r) ++times[r];
            });
            for (std::size_t r = 0; r < requests; ++r) EXPECT_EQ(times[r], 1) << requests << " requests, request " << r;
            for (const auto& b : begins) EXPECT_TRUE(std::is_sorted(b.begin(), b.end()));
        }
    }
}

TEST(Parallel, ShardsAreContiguousRangesThatCoverEveryRequest) {
    for (std::size_t requests : {1u, 9u, 1000u}) {
        std::vector<std::pair<std::size_t, std::size_t>> ranges(3, {0, 0});
        forEachShard(requests, 3, [&](unsigned shard, std::size_t begin, std::size_t end) { ranges[shard] = {begin, end}; });
        std::size_t at = 0;
        for (const auto& [begin, end] : ranges) {
            if (begin == end) continue;
            EXPECT_EQ(begin, at);
            at = end;
        }
        EXPECT_EQ(at, requests);
    }
}
