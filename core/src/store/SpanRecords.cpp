#include "tracelight/store/SpanRecords.h"

namespace tracelight {

std::vector<SpanShape> spanShapes(const RequestSpans& spans) {
    std::vector<SpanShape> out;
    out.reserve(spans.size());
    for (const SpanRecord& s : spans)
        out.push_back({s.parent, s.service, s.operation, s.host, s.kind, s.startNs, s.endNs, s.task, s.taskOccurrence, s.startOrd, s.endOrd});
    return out;
}

} // namespace tracelight
