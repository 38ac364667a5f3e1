#include "tracelight/store/SpanRecords.h"

namespace tracelight {

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
