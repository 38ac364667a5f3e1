#pragma once
// The engine needs each <task, event> of a request to be unique, so the k-th span of one operation in
// a trace (and an event a task logs again) is a separate occurrence of its name: "name#k" for k >= 2.
// The store keeps an occurrence as its name's id and k, not as a string of its own.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <optional>
#include <string_view>
#include <utility>

namespace tracelight {

constexpr std::uint32_t kMaxOccurrence = 1u << 30;

// An occurrence label as the store keeps it: its id, the label id of its name, and k.
struct LabelOccurrence {
    std::uint32_t id, name, occurrence;
};

// The occurrence with that id in a table sorted by id, or null. The ids are distinct (label ids), so an id's
// entry lies no further from the first (or last) entry than its value does from theirs: the search covers only
// that window, which for a trace's occurrences, numbered nearly densely, is a few entries of millions.
inline const LabelOccurrence* findOccurrence(std::span<const LabelOccurrence> sorted, std::uint32_t id) {
    if (sorted.empty() || id < sorted.front().id || id > sorted.back().id) return nullptr;
    const std::size_t last = sorted.size() - 1;
    const std::size_t low = std::uint64_t(sorted.back().id - id) >= last ? 0 : last - (sorted.back().id - id);
    const std::size_t high = std::min<std::uint64_t>(last, id - sorted.front().id) + 1;
    const auto window = low < high ? sorted.subspan(low, high - low) : sorted;  // not distinct after all: all of it
    auto it = std::lower_bound(window.begin(), window.end(), id, [](const LabelOccurrence& o, std::uint32_t v) { return o.id < v; });
    return it != window.end() && it->id == id ? &*it : nullptr;
}

// Into a buffer the caller reuses, for the store's millions of occurrences.
inline void assignOccurrenceName(std::string& text, std::string_view name, std::uint32_t occurrence) {
    text.assign(name);
    if (occurrence > 1) text.append("#").append(std::to_string(occurrence));
}

inline std::string occurrenceName(std::string_view name, std::uint32_t occurrence) {
    std::string text;
    assignOccurrenceName(text, name, occurrence);
    return text;
}

// "name#k" (k >= 2, digits only, no leading zero) -> (name, k): how a text names an occurrence.
inline std::optional<std::pair<std::string_view, std::uint32_t>> splitOccurrenceName(std::string_view text) {
    const auto hash = text.rfind('#');
    if (hash == std::string_view::npos || hash == 0 || hash + 1 == text.size() || text[hash + 1] == '0' || text.size() - hash > 11)
        return std::nullopt;
    std::uint64_t k = 0;
    for (std::size_t i = hash + 1; i < text.size(); ++i) {
        if (text[i] < '0' || text[i] > '9') return std::nullopt;
        k = k * 10 + std::uint64_t(text[i] - '0');
    }
    if (k < 2 || k > kMaxOccurrence) return std::nullopt;
    return std::pair{text.substr(0, hash), static_cast<std::uint32_t>(k)};
}

} // namespace tracelight
