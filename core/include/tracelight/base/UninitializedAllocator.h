#pragma once
// An allocator for vectors of plain records that a later pass fills: sizing such a vector leaves its
// elements as the memory was instead of writing every one. A vector of 60 million events is then sized
// without one thread writing 1.4 GB before the readers that fill it write it again.
// Only for records every reader writes before anyone reads them.
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace tracelight {

template <typename T>
struct UninitializedAllocator : std::allocator<T> {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                  "only plain records may be left unwritten (their lifetime begins with the allocation)");
    using value_type = T;
    // Spelled out: a library that keeps std::allocator's own rebind (removed in C++20) would otherwise
    // rebind to std::allocator and quietly write every element again.
    template <typename U>
    struct rebind {
        using other = UninitializedAllocator<U>;
    };
    UninitializedAllocator() noexcept = default;
    template <typename U>
    UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}

    // Value-initialisation (vector(n), resize(n)) writes nothing; every other construction is as usual.
    template <typename U>
    void construct(U*) noexcept {}
    template <typename U, typename First, typename... Rest>
    void construct(U* p, First&& first, Rest&&... rest) {
        ::new (static_cast<void*>(p)) U(std::forward<First>(first), std::forward<Rest>(rest)...);
    }
};

template <typename T, typename U>
bool operator==(const UninitializedAllocator<T>&, const UninitializedAllocator<U>&) noexcept { return true; }

} // namespace tracelight
