#pragma once
// A hash map keyed by std::string that is looked up with a std::string_view, so finding a key that is
// there makes no string: interning and numbering texts look up millions of keys and add few.
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tracelight {

struct StringHash {
    using is_transparent = void;
    // Not noexcept on purpose: libstdc++ then keeps each key's hash in its node, so a lookup does not
    // rehash every string it passes in the bucket (a cache miss each, with hundreds of thousands of labels).
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

template <typename V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

} // namespace tracelight
