#pragma once
// Trivially copyable values packed into / read from a byte string: the result cache's blobs and what
// the processes of a distributed run exchange (all on one machine type: native byte order).
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace tracelight {

template <typename T>
void putValue(std::string& out, T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out.append(bytes, sizeof(T));
}

// False, leaving value as it was, when fewer than sizeof(T) bytes remain.
template <typename T>
bool getValue(std::string_view& in, T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (in.size() < sizeof(T)) return false;
    std::memcpy(&value, in.data(), sizeof(T));
    in.remove_prefix(sizeof(T));
    return true;
}

inline void putBytes(std::string& out, std::string_view bytes) {
    putValue(out, static_cast<std::uint64_t>(bytes.size()));
    out.append(bytes);
}
inline bool getBytes(std::string_view& in, std::string_view& bytes) {
    std::uint64_t size = 0;
    if (!getValue(in, size) || size > in.size()) return false;
    bytes = in.substr(0, static_cast<std::size_t>(size));
    in.remove_prefix(static_cast<std::size_t>(size));
    return true;
}

} // namespace tracelight
