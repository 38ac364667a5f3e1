#pragma once
// The current time as Tracelight writes it (the store's rows, a capture's period name): ISO 8601, UTC.
#include <ctime>
#include <string>

namespace tracelight {

inline std::string utcNow() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

} // namespace tracelight
