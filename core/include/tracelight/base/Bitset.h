#pragma once
// A fixed-width bitset sized at run time: hypotheses over segment types are rows of these.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace tracelight {

class Bitset {
public:
    Bitset() = default;
    explicit Bitset(std::size_t bits, bool value = false)
        : m_bits(bits), m_words((bits + 63) / 64, value ? ~std::uint64_t{0} : 0) {
        trim();
    }

    std::size_t size() const { return m_bits; }
    bool test(std::size_t i) const { return (m_words[i >> 6] >> (i & 63)) & 1u; }
    void set(std::size_t i) { m_words[i >> 6] |= std::uint64_t{1} << (i & 63); }
    void reset(std::size_t i) { m_words[i >> 6] &= ~(std::uint64_t{1} << (i & 63)); }
    void clear() { std::fill(m_words.begin(), m_words.end(), 0); }

    Bitset& operator&=(const Bitset& o) {
        for (std::size_t w = 0; w < m_words.size(); ++w) m_words[w] &= o.m_words[w];
        return *this;
    }
    Bitset& operator|=(const Bitset& o) {
        for (std::size_t w = 0; w < m_words.size(); ++w) m_words[w] |= o.m_words[w];
        return *this;
    }
    // this &= ~o
    void subtract(const Bitset& o) {
        for (std::size_t w = 0; w < m_words.size(); ++w) m_words[w] &= ~o.m_words[w];
    }
    std::size_t count() const {
        std::size_t n = 0;
        for (auto w : m_words) n += static_cast<std::size_t>(std::popcount(w));
        return n;
    }
    bool operator==(const Bitset&) const = default;

    std::vector<std::uint64_t>& words() { return m_words; }
    const std::vector<std::uint64_t>& words() const { return m_words; }

    // Calls f(i) for every set bit, in increasing order.
    template <typename F>
    void forEach(F&& f) const {
        for (std::size_t w = 0; w < m_words.size(); ++w) {
            std::uint64_t bits = m_words[w];
            while (bits) {
                const int b = std::countr_zero(bits);
                f(w * 64 + static_cast<std::size_t>(b));
                bits &= bits - 1;
            }
        }
    }

private:
    void trim() {
        if (m_bits % 64 && !m_words.empty()) m_words.back() &= (std::uint64_t{1} << (m_bits % 64)) - 1;
    }
    std::size_t m_bits = 0;
    std::vector<std::uint64_t> m_words;
};

} // namespace tracelight
