#pragma once
// Typed integer ids, so a host id can never be passed where a label id is expected.
#include <compare>
#include <cstdint>
#include <functional>

namespace tracelight {

template <typename Tag>
struct TypedId {
    std::uint32_t value = invalidValue;
    static constexpr std::uint32_t invalidValue = 0xFFFFFFFFu;

    constexpr TypedId() = default;
    constexpr explicit TypedId(std::uint32_t v) : value(v) {}
    constexpr bool isValid() const { return value != invalidValue; }
    constexpr auto operator<=>(const TypedId&) const = default;
};

using LabelId = TypedId<struct LabelTag>;     // any interned string (host, task, event, attribute)
using RequestId = TypedId<struct RequestTag>; // dense row id of a request in the store
using PeriodId = TypedId<struct PeriodTag>;

} // namespace tracelight

template <typename Tag>
struct std::hash<tracelight::TypedId<Tag>> {
    std::size_t operator()(tracelight::TypedId<Tag> id) const noexcept { return std::hash<std::uint32_t>{}(id.value); }
};
