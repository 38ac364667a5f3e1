#pragma once
// Core's collectives (tracelight/base/Collective.h) over an MPI communicator: reductions with
// MPI_Allreduce / MPI_Exscan, byte gathers point to point in chunks (no 2 GiB limit of MPI's int counts).
#include <mpi.h>

#include "tracelight/base/Collective.h"

namespace tracelight::batch {

class MpiCollective final : public Collective {
public:
    explicit MpiCollective(MPI_Comm comm);
    int rank() const override { return m_rank; }
    int size() const override { return m_size; }
    void sum(std::span<std::int64_t> values) override;
    void bitAnd(std::span<std::uint64_t> words) override;
    void bitOr(std::span<std::uint64_t> words) override;
    void exclusiveAnd(std::span<std::uint64_t> words) override;
    std::vector<std::string> allGather(const std::string& bytes) override;
    std::vector<std::string> gatherToFirst(const std::string& bytes) override;

private:
    MPI_Comm m_comm;
    int m_rank = 0, m_size = 1;
};

} // namespace tracelight::batch
