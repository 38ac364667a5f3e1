// context: a request in its temporal context — per host it touched, how many other requests ran there during
// its lifetime and how many of their segments overlapped it.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "Commands.h"
#include "tracelight/base/Json.h"
#include "tracelight/bottleneck/TemporalContext.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

namespace tracelight::cli {

namespace {

struct ContextArgs {
    std::string db, request;
    bool json = false;
};

int runContext(const ContextArgs& args) {
    auto store = openAnalysed(args.db, AnalysisOptions{}, true);
    if (!store) return fail(store.message());
    const TraceStore& st = *store.value();
    const auto id = requestByName(st, args.request);
    if (!id) return fail(args.db + ": no request '" + args.request + "'");
    auto analysis = loadAnalysis(st);
    if (!analysis) return fail(analysis.message());
    const auto rows = rowsOfRequests(analysis->data.requestIds, {*id});
    if (rows.empty()) return fail(args.db + ": request '" + args.request + "' is not analysed (run tracelight-cli analyze)");
    // One query: an index of the request's hosts only (a view asking for request after request keeps one of
    // every host).
    const auto row = rows.front();
    const HostTimeIndex index = HostTimeIndex::forRequest(analysis->data, analysis->offsets, row);
    const TemporalContext c = temporalContext(analysis.value(), index, row);
    if (args.json) {
        JsonWriter w;
        w.beginObject().key("request").value(args.request).key("hosts").beginArray();
        for (const auto& h : c.hosts)
            w.beginObject().key("host").value(h.host).key("concurrent_requests").value(h.concurrentRequests).key("segments").value(h.segments).endObject();
        w.endArray().endObject();
        std::cout << w.text() << "\n";
        return 0;
    }
    std::printf("request %s, %.3f ms: %zu other requests ran on its hosts meanwhile\n", args.request.c_str(),
                double(c.endNs - c.startNs) / 1e6, c.concurrent.size());
    std::printf("%-40s %12s %10s\n", "host", "requests", "segments");
    for (const auto& h : c.hosts)
        std::printf("%-40s %12lld %10lld\n", h.host.c_str(), static_cast<long long>(h.concurrentRequests), static_cast<long long>(h.segments));
    return 0;
}

} // namespace

Command addContextCommand(CLI::App& program) {
    auto args = std::make_shared<ContextArgs>();
    auto* cmd = program.add_subcommand("context", "what else ran on a request's hosts while it did (temporal context)");
    addDatabaseArgument(*cmd, args->db);
    cmd->add_option("--request", args->request, "the request (its name, as imported)")->required()->type_name("ID");
    addJsonFlag(*cmd, args->json, "{\"request\", \"hosts\": [{\"host\", \"concurrent_requests\", \"segments\"}]}");
    cmd->footer("Per host the request touched: other requests with an event there during its lifetime (first to last\n"
                "event, skew-corrected) or a segment there overlapping it, and the number of such segments.");
    return {cmd, [args] { return runContext(*args); }};
}

} // namespace tracelight::cli
