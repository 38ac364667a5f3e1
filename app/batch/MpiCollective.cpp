#include "MpiCollective.h"

#include <algorithm>
#include <climits>

namespace tracelight::batch {

namespace {

// MPI counts are ints: large buffers go in pieces.
constexpr std::size_t kChunk = std::size_t{1} << 30;

template <typename T>
void allReduce(std::span<T> values, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    for (std::size_t at = 0; at < values.size(); at += kChunk / sizeof(T)) {
        const std::size_t n = std::min(values.size() - at, kChunk / sizeof(T));
        MPI_Allreduce(MPI_IN_PLACE, values.data() + at, static_cast<int>(n), type, op, comm);
    }
}

void sendBytes(const std::string& bytes, int to, MPI_Comm comm) {
    const std::uint64_t size = bytes.size();
    MPI_Send(&size, 1, MPI_UINT64_T, to, 0, comm);
    for (std::size_t at = 0; at < bytes.size(); at += kChunk)
        MPI_Send(bytes.data() + at, static_cast<int>(std::min(kChunk, bytes.size() - at)), MPI_BYTE, to, 1, comm);
}

std::string receiveBytes(int from, MPI_Comm comm) {
    std::uint64_t size = 0;
    MPI_Recv(&size, 1, MPI_UINT64_T, from, 0, comm, MPI_STATUS_IGNORE);
    std::string bytes(static_cast<std::size_t>(size), '\0');
    for (std::size_t at = 0; at < bytes.size(); at += kChunk)
        MPI_Recv(bytes.data() + at, static_cast<int>(std::min(kChunk, bytes.size() - at)), MPI_BYTE, from, 1, comm, MPI_STATUS_IGNORE);
    return bytes;
}

void broadcastBytes(std::string& bytes, MPI_Comm comm) {
    std::uint64_t size = bytes.size();
    MPI_Bcast(&size, 1, MPI_UINT64_T, 0, comm);
    bytes.resize(static_cast<std::size_t>(size));
    for (std::size_t at = 0; at < bytes.size(); at += kChunk)
        MPI_Bcast(bytes.data() + at, static_cast<int>(std::min(kChunk, bytes.size() - at)), MPI_BYTE, 0, comm);
}

} // namespace

MpiCollective::MpiCollective(MPI_Comm comm) : m_comm(comm) {
    MPI_Comm_rank(comm, &m_rank);
    MPI_Comm_size(comm, &m_size);
}

void MpiCollective::sum(std::span<std::int64_t> values) { allReduce(values, MPI_INT64_T, MPI_SUM, m_comm); }
void MpiCollective::bitAnd(std::span<std::uint64_t> words) { allReduce(words, MPI_UINT64_T, MPI_BAND, m_comm); }
void MpiCollective::bitOr(std::span<std::uint64_t> words) { allReduce(words, MPI_UINT64_T, MPI_BOR, m_comm); }

void MpiCollective::exclusiveAnd(std::span<std::uint64_t> words) {
    for (std::size_t at = 0; at < words.size(); at += kChunk / 8) {
        const std::size_t n = std::min(words.size() - at, kChunk / 8);
        MPI_Exscan(MPI_IN_PLACE, words.data() + at, static_cast<int>(n), MPI_UINT64_T, MPI_BAND, m_comm);
    }
    // MPI leaves rank 0's buffer undefined: the AND over no process is all ones.
    if (m_rank == 0) std::fill(words.begin(), words.end(), ~std::uint64_t{0});
}

std::vector<std::string> MpiCollective::gatherToFirst(const std::string& bytes) {
    if (m_rank != 0) {
        sendBytes(bytes, 0, m_comm);
        return {};
    }
    std::vector<std::string> all{bytes};
    for (int r = 1; r < m_size; ++r) all.push_back(receiveBytes(r, m_comm));
    return all;
}

std::vector<std::string> MpiCollective::allGather(const std::string& bytes) {
    std::vector<std::string> all = gatherToFirst(bytes);
    all.resize(static_cast<std::size_t>(m_size));
    for (auto& part : all) broadcastBytes(part, m_comm);
    return all;
}

} // namespace tracelight::batch
