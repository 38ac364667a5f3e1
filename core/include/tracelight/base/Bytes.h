#pragma once
// Trivially copyable values packed into / read from a byte string: the result cache's blobs and what
// the processes of a distributed run exchange (all on one machine type: native byte order).
#include <cstdint>
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

// Unsigned LEB128: 7 bits a byte, low first; small values (most slack, segment indices) take one or two bytes.
inline void putVarint(std::string& out, std::uint64_t value) {
    while (value >= 0x80) {
        out.push_back(static_cast<char>((value & 0x7F) | 0x80));
        value >>= 7;
    }
    out.push_back(static_cast<char>(value));
}
// False, leaving value as it was, when the bytes end inside a number or it runs past 64 bits.
inline bool getVarint(std::string_view& in, std::uint64_t& value) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < in.size() && i < 10; ++i) {
        const auto byte = static_cast<std::uint8_t>(in[i]);
        if (i == 9 && byte > 1) return false;  // more than 64 bits
        v |= std::uint64_t(byte & 0x7F) << (7 * i);
        if (!(byte & 0x80)) {
            value = v;
            in.remove_prefix(i + 1);
            return true;
        }
    }
    return false;
}
// Signed values zigzagged first, so small magnitudes of either sign stay short.
inline void putSignedVarint(std::string& out, std::int64_t value) {
    putVarint(out, (static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63));
}
inline bool getSignedVarint(std::string_view& in, std::int64_t& value) {
    std::uint64_t v = 0;
    if (!getVarint(in, v)) return false;
    value = static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1));
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
