#pragma once
// What the two OTLP readers (JSON and protobuf) share: how a resource names its service and host, and how a
// span's kind, status and links become what a RawSpan holds, as Jaeger reads them.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tracelight/import/spans/Spans.h"

namespace tracelight::otlp {

inline std::string lowercase(std::string id) {
    for (char& c : id)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return id;
}

inline void serviceAndHost(const std::vector<std::pair<std::string, std::string>>& resource, std::string& service, std::string& host) {
    for (const auto& [k, v] : resource) {
        if (k == "service.name") service = v;
        if (k == "host.name") host = v;
    }
}

// code: the status code as the input spells it ("2", "STATUS_CODE_ERROR"; unset says nothing).
inline void addStatus(RawSpan& span, std::string_view code, std::string message) {
    if (code == "2" || code == "STATUS_CODE_ERROR") span.attributes.emplace_back("otel.status_code", "ERROR");
    else if (code == "1" || code == "STATUS_CODE_OK") span.attributes.emplace_back("otel.status_code", "OK");
    if (!message.empty()) span.attributes.emplace_back("otel.status_description", std::move(message));
}

// A link (FOLLOWS_FROM, as Jaeger reads them): a span with no parent hangs from the first span of its own
// trace it links to, as work that span started and did not wait for; other links are kept.
inline void addLink(RawSpan& span, std::string_view traceId, std::string spanId) {
    if (spanId.empty()) return;
    const bool sameTrace = traceId.empty() || traceId == span.traceId;
    if (span.parentId.empty() && sameTrace && spanId != span.spanId) {
        span.parentId = std::move(spanId);
        span.parentFollowsFrom = true;
    } else {
        span.followsFrom.push_back(std::move(spanId));
    }
}

} // namespace tracelight::otlp
