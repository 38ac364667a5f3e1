#pragma once
// A distributed run's collectives between threads of one test process: rank r is a thread holding its
// own ThreadRank. Every operation goes through allGather, the way an MPI run would all-gather.
#include <barrier>
#include <cstring>
#include <string>
#include <vector>

#include "tracelight/base/Collective.h"

namespace tracelight::test {

class ThreadGroup {
public:
    explicit ThreadGroup(int size) : m_slots(static_cast<std::size_t>(size)), m_barrier(size) {}
    int size() const { return static_cast<int>(m_slots.size()); }

    std::vector<std::string> allGather(int rank, const std::string& bytes) {
        m_slots[static_cast<std::size_t>(rank)] = bytes;
        m_barrier.arrive_and_wait();
        std::vector<std::string> all = m_slots;
        m_barrier.arrive_and_wait();  // nobody overwrites a slot before every rank has copied them
        return all;
    }

private:
    std::vector<std::string> m_slots;
    std::barrier<> m_barrier;
};

class ThreadRank final : public Collective {
public:
    ThreadRank(ThreadGroup& group, int rank) : m_group(group), m_rank(rank) {}
    int rank() const override { return m_rank; }
    int size() const override { return m_group.size(); }

    void sum(std::span<std::int64_t> values) override {
        combine(values, [](std::int64_t& a, std::int64_t b) { a += b; }, false);
    }
    void bitAnd(std::span<std::uint64_t> words) override {
        combine(words, [](std::uint64_t& a, std::uint64_t b) { a &= b; }, false);
    }
    void bitOr(std::span<std::uint64_t> words) override {
        combine(words, [](std::uint64_t& a, std::uint64_t b) { a |= b; }, false);
    }
    void exclusiveAnd(std::span<std::uint64_t> words) override {
        combine(words, [](std::uint64_t& a, std::uint64_t b) { a &= b; }, true);
    }
    std::vector<std::string> allGather(const std::string& bytes) override { return m_group.allGather(m_rank, bytes); }
    std::vector<std::string> gatherToFirst(const std::string& bytes) override {
        auto all = allGather(bytes);
        if (m_rank != 0) all.clear();
        return all;
    }

private:
    template <typename T, typename Op>
    void combine(std::span<T> values, Op op, bool exclusive) {
        std::string mine(reinterpret_cast<const char*>(values.data()), values.size_bytes());
        const auto all = allGather(mine);
        const int last = exclusive ? m_rank : size();
        if (exclusive)
            for (auto& v : values) v = static_cast<T>(~T{0});
        else
            std::memcpy(values.data(), all[0].data(), values.size_bytes());
        for (int r = exclusive ? 0 : 1; r < last; ++r)
            for (std::size_t i = 0; i < values.size(); ++i) {
                T v;
                std::memcpy(&v, all[static_cast<std::size_t>(r)].data() + i * sizeof(T), sizeof(T));
                op(values[i], v);
            }
    }
    ThreadGroup& m_group;
    int m_rank;
};

} // namespace tracelight::test
