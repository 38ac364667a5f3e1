#pragma once
// One span trace into the store: assembled (assembleTrace), then written as one request through the import's
// writer: its events, its span tree with the label ids its event model is derived from, and its warnings.
// What a file import and the live capture share.
#include <functional>
#include <string>

#include "store/ImportWriter.h"
#include "tracelight/base/Status.h"
#include "tracelight/import/spans/Spans.h"

namespace tracelight {

// wherePrefix(traceId): what an error message starts with ("a.json: trace t1: "). warned: the trace had
// warnings (each stored with it).
Status writeSpanTrace(ImportWriter& writer, SpanBlocks&& spans, const std::function<std::string(const std::string&)>& wherePrefix,
                      bool& warned);

} // namespace tracelight
