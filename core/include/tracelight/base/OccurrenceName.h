#pragma once
// The engine needs each <task, event> of a request to be unique, so the k-th span of one operation in
// a trace (and an event a task logs again) is a separate occurrence of its name: "name#k" for k >= 2.
// The store keeps an occurrence as its name's id and k, not as a string of its own.
#include <cstdint>
#include <string>
#include <string_view>

namespace tracelight {

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

} // namespace tracelight
