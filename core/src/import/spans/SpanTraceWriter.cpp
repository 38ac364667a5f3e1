#include "import/spans/SpanTraceWriter.h"

#include <utility>
#include <vector>

namespace tracelight {

Status writeSpanTrace(ImportWriter& writer, SpanBlocks&& spans, const std::function<std::string(const std::string&)>& wherePrefix,
                      bool& warned) {
    AssembledTrace trace = assembleTrace(std::move(spans));
    const auto where = [&] { return wherePrefix(trace.traceId); };
    // Each of the trace's names interned once per role and occurrence in use, not once per event
    // (a trace of 100,000 spans names a task per span and four events per task).
    std::vector<std::uint32_t> byRole[3];  // host, task, event: label id + 1 of the name (0: not yet)
    auto labelOf = [&](TraceName n, LabelRole role) -> Result<std::uint32_t> {
        const int slot = role == LabelRole::Host ? 0 : role == LabelRole::Task ? 1 : 2;
        auto& ids = byRole[slot];
        if (ids.empty()) ids.assign(trace.names.size(), 0);
        if (ids[n.name] == 0) {
            auto id = writer.label(trace.names[n.name], 1, role);
            if (!id) return id;
            ids[n.name] = id.value() + 1;
        }
        return writer.occurrenceLabel(ids[n.name] - 1, n.occurrence, role);
    };
    std::vector<RawAttribute> attrs;
    for (const auto& e : trace.events) {
        attrs.clear();
        if (e.tagsOf >= 0) {
            const SpanRecord& span = trace.spans[static_cast<std::size_t>(e.tagsOf)];
            for (const auto* tags : {&span.processAttributes, &span.attributes})
                for (const auto& [k, v] : *tags) attrs.push_back({k, v});
        }
        auto host = labelOf({e.host, 1}, LabelRole::Host);
        auto task = host ? labelOf(e.task, LabelRole::Task) : host;
        auto event = task ? labelOf(e.event, LabelRole::Event) : task;
        if (!event) return Status::error(where() + event.message());
        const InternedEvent interned{trace.traceId, host.value(), task.value(), event.value(), e.tsNs, e.seq, attrs,
                                     trace.names[e.task.name]};
        if (Status s = writer.addEvent(interned); !s) return Status::error(where() + s.message());
    }
    // Written: a trace of a million spans frees its four million events before its spans go.
    std::vector<AssembledEvent>().swap(trace.events);
    // Its links are not stored: a read derives them from the spans, as it does the events.
    std::vector<AssembledLink>().swap(trace.links);
    // What the store derives the events from again when it reads the request, by label id.
    std::vector<ImportWriter::SpanModelIds> modelIds(trace.modelNames.size());
    for (std::size_t k = 0; k < modelIds.size(); ++k) {
        const auto& names = trace.modelNames[k];
        auto host = labelOf({names.host, 1}, LabelRole::Host);
        if (!host) return Status::error(where() + host.message());
        modelIds[k].host = host.value();
        for (auto [name, id] : {std::pair{&names.enter, &modelIds[k].enter}, std::pair{&names.leave, &modelIds[k].leave}}) {
            if (!*name) continue;
            auto label = labelOf(**name, LabelRole::Event);
            if (!label) return Status::error(where() + label.message());
            *id = label.value();
        }
    }
    std::vector<std::uint32_t> spanEventIds;
    spanEventIds.reserve(trace.spanEventNames.size());
    for (const TraceName& name : trace.spanEventNames) {
        auto label = labelOf(name, LabelRole::Event);
        if (!label) return Status::error(where() + label.message());
        spanEventIds.push_back(label.value());
    }
    if (Status s = writer.addSpans(trace.traceId, trace.spans, modelIds, spanEventIds); !s) return Status::error(where() + s.message());
    writer.addRenamedEvents(static_cast<std::int64_t>(trace.renamedEvents));
    warned = !trace.warnings.empty();
    for (const auto& w : trace.warnings)
        if (Status s = writer.addWarning(trace.traceId, w); !s) return Status::error(where() + s.message());
    return Status::ok();
}

} // namespace tracelight
