#pragma once
// A map from triples of 32-bit ids to 32-bit values, for interning segment types (task, start event, end
// event). Open addressing with linear probing in one array: a lookup is usually one cache line, where a
// node-based map chases a pointer per probe. A million-span trace looks up three million segments among
// a quarter of a million types; std::unordered_map spent most of that time missing the cache.
#include <cstdint>
#include <utility>
#include <vector>

namespace tracelight {

class TripleIndex {
public:
    static constexpr std::uint32_t kAbsent = ~0u;

    std::size_t size() const { return m_size; }

    // The value stored for (a, b, c), or kAbsent.
    std::uint32_t find(std::uint32_t a, std::uint32_t b, std::uint32_t c) const {
        if (m_slots.empty()) return kAbsent;
        for (std::size_t i = slotOf(a, b, c);; i = (i + 1) & mask()) {
            const Slot& s = m_slots[i];
            if (s.value == kAbsent) return kAbsent;
            if (s.a == a && s.b == b && s.c == c) return s.value;
        }
    }

    // The value stored for (a, b, c) and false, or `value` (not kAbsent), newly stored, and true.
    std::pair<std::uint32_t, bool> emplace(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t value) {
        if (2 * (m_size + 1) > m_slots.size()) grow();  // at most half full: probes stay short
        for (std::size_t i = slotOf(a, b, c);; i = (i + 1) & mask()) {
            Slot& s = m_slots[i];
            if (s.value == kAbsent) {
                s = {a, b, c, value};
                ++m_size;
                return {value, true};
            }
            if (s.a == a && s.b == b && s.c == c) return {s.value, false};
        }
    }

    void reserve(std::size_t count) {
        while (2 * count > m_slots.size()) grow();
    }

private:
    struct Slot {
        std::uint32_t a = 0, b = 0, c = 0, value = kAbsent;
    };

    std::size_t mask() const { return m_slots.size() - 1; }

    std::size_t slotOf(std::uint32_t a, std::uint32_t b, std::uint32_t c) const {
        // Each id through its own odd multiplier, folded: consecutive ids land far apart.
        std::uint64_t h = a * 0x9E3779B97F4A7C15ull ^ b * 0xC2B2AE3D27D4EB4Full ^ c * 0x165667B19E3779F9ull;
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 32;
        return static_cast<std::size_t>(h) & mask();
    }

    void grow() {
        std::vector<Slot> old = std::move(m_slots);
        m_slots.assign(old.empty() ? 16 : 2 * old.size(), Slot{});
        m_size = 0;
        for (const Slot& s : old)
            if (s.value != kAbsent) emplace(s.a, s.b, s.c, s.value);
    }

    std::vector<Slot> m_slots;  // a power of two in size
    std::size_t m_size = 0;
};

} // namespace tracelight
