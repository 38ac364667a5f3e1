#include "jobs/TraceFileJobs.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <unordered_map>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/NewDatabaseGuard.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::app {

std::shared_ptr<TraceFileRead> readTraceFile(const std::string& file, const CancelToken& cancel, const ProgressSink& progress) {
    auto read = std::make_shared<TraceFileRead>();
    ImportOptions options;
    options.inputs = {file};
    auto contents = readSpanFiles(options, &progress, &cancel);
    if (!contents) {
        read->status = cancel.isCancelled() ? Status::error("cancelled") : contents.status();
        return read;
    }
    progress(1.0, "listing the requests");
    std::vector<std::vector<std::string>>().swap(contents->spanIds);  // unused: the window names spans from the database
    read->table = std::make_shared<const RequestTable>(requestTableOf(contents.value(), std::filesystem::path(file).stem().string()));
    read->contents = std::make_shared<const TraceFileContents>(std::move(contents.value()));
    return read;
}

RequestTable requestTableOf(const TraceFileContents& contents, const std::string& period) {
    const TraceData& data = contents.data;
    const std::size_t n = data.requestCount();
    RequestTable table;
    table.ids = data.requestIds;
    table.names = contents.requestNames;
    table.names.resize(n);
    table.periodNames = {period};
    table.periodIndex.assign(n, 0);
    table.attrBegin.assign(n + 1, 0);
    table.hasSpans = std::any_of(data.fromSpans.begin(), data.fromSpans.end(), [](std::uint8_t s) { return s != 0; });
    std::unordered_map<std::string, std::uint32_t> spanLabel;
    auto labelSlot = [&](std::string text) {
        auto [it, fresh] = spanLabel.emplace(text, static_cast<std::uint32_t>(table.spanLabels.size()));
        if (fresh) table.spanLabels.push_back(std::move(text));
        return it->second;
    };
    std::vector<std::uint32_t> hostSeen(data.hostLabels.size(), std::numeric_limits<std::uint32_t>::max());
    for (std::size_t r = 0; r < n; ++r) {
        const auto events = data.eventsOf(r);
        const auto spans = data.spansOf(r);
        TimeNs first = std::numeric_limits<TimeNs>::max(), last = std::numeric_limits<TimeNs>::min();
        std::uint32_t hosts = 0;
        for (const EventRecord& e : events) {
            first = std::min(first, e.localNs);
            last = std::max(last, e.localNs);
            if (hostSeen[e.host.value] != r) {
                hostSeen[e.host.value] = static_cast<std::uint32_t>(r);
                ++hosts;
            }
        }
        // A span request lasts what its caller waited: its roots, earliest start to latest end.
        std::uint32_t service = RequestTable::kNoLabel, operation = RequestTable::kNoLabel;
        TimeNs rootFirst = std::numeric_limits<TimeNs>::max(), rootLast = std::numeric_limits<TimeNs>::min();
        for (const SpanRef& s : spans) {
            if (s.parent >= 0 || s.startEvent >= events.size() || s.endEvent >= events.size()) continue;  // kNoEvent among them
            rootFirst = std::min(rootFirst, events[s.startEvent].localNs);
            rootLast = std::max(rootLast, events[s.endEvent].localNs);
            if (service == RequestTable::kNoLabel) {
                // Its task is "service:operation", numbered when the operation repeats.
                const std::string task(operationName(data.label(events[s.startEvent].task)));
                const auto colon = task.find(':');
                service = labelSlot(task.substr(0, colon));
                operation = labelSlot(colon == std::string::npos ? task : task.substr(colon + 1));
            }
        }
        if (rootFirst <= rootLast) {
            first = rootFirst;
            last = rootLast;
        }
        table.startNs.push_back(events.empty() ? 0 : first);
        table.latencyNs.push_back(events.empty() ? 0 : last - first);
        table.hostCount.push_back(hosts);
        table.eventCount.push_back(static_cast<std::uint32_t>(events.size()));
        if (table.hasSpans) {
            table.spanCount.push_back(static_cast<std::uint32_t>(spans.size()));
            table.service.push_back(service);
            table.entryOperation.push_back(operation);
            table.operation.push_back(operation);
            table.callService.push_back(RequestTable::kNoLabel);
            table.callOperation.push_back(RequestTable::kNoLabel);
        }
    }
    return table;
}

Status importAndAnalyse(const std::string& file, const std::string& database, const std::string& shown, const CancelToken& cancel,
                        const ProgressSink& progress) {
    NewDatabaseGuard created(database);  // a failed or cancelled import leaves no file behind
    Status done = [&]() -> Status {
        auto store = TraceStore::open(database, TraceStore::Mode::Create);
        if (!store) return store.status();
        ImportOptions options;
        options.inputs = {file};
        const ProgressSink importing = [&](double f, std::string_view stage) { progress(0.6 * f, shown + std::string(stage)); };
        if (auto imported = importTraces(*store.value(), options, &importing, &cancel); !imported) return imported.status();
        created.keep();  // imported: an analysis cancelled or failed is run again when the database opens
        const ProgressSink analysing = [&](double f, std::string_view stage) { progress(0.6 + 0.4 * f, shown + std::string(stage)); };
        if (auto analysed = analyzeStore(*store.value(), AnalysisOptions{}, &analysing, &cancel); !analysed) return analysed.status();
        return Status::ok();
    }();  // the store is closed here, before the guard may remove its files
    return done;
}

} // namespace tracelight::app
