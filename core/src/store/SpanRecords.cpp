#include "tracelight/store/SpanRecords.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace tracelight {

namespace {
bool equalsIgnoringCase(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}
} // namespace

bool recordsError(const SpanRecord& span) {
    for (const auto& [key, value] : span.attributes) {
        if (key == "error") {
            if (!equalsIgnoringCase(value, "false") && value != "0") return true;
        } else if (key == "otel.status_code") {
            if (equalsIgnoringCase(value, "error")) return true;
        } else if (key == "http.status_code" || key == "http.response.status_code") {
            int status = 0;
            const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), status);
            if (ec == std::errc() && status >= 500) return true;
        }
    }
    return false;
}

SpanRequestSummary summarizeSpanRequest(const RequestSpans& spans) {
    SpanRequestSummary out;
    out.spanCount = static_cast<std::uint32_t>(spans.size());
    if (spans.empty()) return out;
    out.entry = 0;  // depth first, roots by start: the first root
    for (std::size_t i = 0; i < spans.size(); ++i) {
        if (recordsError(spans[i])) ++out.errorCount;
        if (out.firstCall < 0 && spans[i].service != spans[0].service) out.firstCall = static_cast<std::int32_t>(i);
    }
    return out;
}

std::vector<SpanShape> spanShapes(const RequestSpans& spans) {
    std::vector<SpanShape> out;
    out.reserve(spans.size());
    for (const SpanRecord& s : spans)
        out.push_back({.service = s.service,
                       .operation = s.operation,
                       .host = s.host,
                       .kind = s.kind,
                       .task = s.task,
                       .startNs = s.startNs,
                       .endNs = s.endNs,
                       .startOrd = s.startOrd,
                       .endOrd = s.endOrd,
                       .parent = s.parent,
                       .taskOccurrence = s.taskOccurrence});
    return out;
}

} // namespace tracelight
