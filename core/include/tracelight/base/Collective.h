#pragma once
// Collective operations across the processes of one distributed analysis (MPI ranks). Core calls them
// at its merge points, so one code path serves a single process (a group of one, where every operation
// leaves its input as it is) and a distributed run (app/batch implements them with MPI; tests with
// threads). Every process of a group must make the same calls in the same order.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tracelight {

class Collective {
public:
    virtual ~Collective() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;

    // All-reduce in place: afterwards every process holds the element-wise sum / AND / OR over all.
    virtual void sum(std::span<std::int64_t> values) = 0;
    virtual void bitAnd(std::span<std::uint64_t> words) = 0;
    virtual void bitOr(std::span<std::uint64_t> words) = 0;
    // Exclusive prefix AND: afterwards process r holds the AND over processes 0..r-1 (all ones on 0).
    virtual void exclusiveAnd(std::span<std::uint64_t> words) = 0;
    // Every process's bytes, in rank order, on every process.
    virtual std::vector<std::string> allGather(const std::string& bytes) = 0;
    // Every process's bytes, in rank order, on process 0 only (empty elsewhere).
    virtual std::vector<std::string> gatherToFirst(const std::string& bytes) = 0;

    bool isFirst() const { return rank() == 0; }
    // True on every process when any process passes true.
    bool any(bool flag) {
        std::int64_t v = flag ? 1 : 0;
        sum({&v, 1});
        return v != 0;
    }
};

// The group of one process.
class SingleProcess final : public Collective {
public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    void sum(std::span<std::int64_t>) override {}
    void bitAnd(std::span<std::uint64_t>) override {}
    void bitOr(std::span<std::uint64_t>) override {}
    void exclusiveAnd(std::span<std::uint64_t> words) override {
        for (auto& w : words) w = ~std::uint64_t{0};
    }
    std::vector<std::string> allGather(const std::string& bytes) override { return {bytes}; }
    std::vector<std::string> gatherToFirst(const std::string& bytes) override { return {bytes}; }
};

} // namespace tracelight
