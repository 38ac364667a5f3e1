// context: a request in its temporal context — per host it touched, how many other requests ran there during
// its lifetime and how many of their segments overlapped it; with host activity in the database, the work beside
// it that no trace shows, and its own marked low-level work.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "Commands.h"
#include "tracelight/base/Json.h"
#include "tracelight/bottleneck/TemporalContext.h"
#include "tracelight/store/HostActivityStore.h"
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
    // Host activity, when the database holds some, on the same (analysis) clocks: what the request's context needs.
    const bool withActivity = hasHostActivity(st);
    HostActivitySet activitySet;
    if (withActivity) {
        auto loaded = loadHostActivity(st, hostActivityQuery(analysis.value(), row, false, args.request));
        if (!loaded) return fail(args.db + ": " + loaded.message());
        activitySet = std::move(loaded.value());
    }
    const HostActivityIndex activity(activitySet, hostOffsetsByLabel(analysis->data, analysis->offsets));
    const TemporalContext c = temporalContext(analysis.value(), index, row, false, withActivity ? &activity : nullptr);
    if (args.json) {
        JsonWriter w;
        w.beginObject().key("request").value(args.request).key("hosts").beginArray();
        for (const auto& h : c.hosts) {
            w.beginObject().key("host").value(h.host).key("concurrent_requests").value(h.concurrentRequests).key("segments").value(h.segments);
            if (withActivity) {
                w.key("host_activity").beginObject().key("records").value(h.activityRecords).key("overlap_us").value(nsToUs(h.activityNs));
                w.key("by_what").beginArray();
                for (const auto& k : h.activity)
                    w.beginObject().key("what").value(k.what).key("records").value(k.records).key("overlap_us").value(nsToUs(k.overlapNs)).endObject();
                w.endArray().endObject();
            }
            w.endObject();
        }
        w.endArray();
        if (withActivity) {
            w.key("own_activity").beginArray();
            for (const auto& a : c.own)
                w.beginObject().key("host").value(a.host).key("what").value(a.what).key("span").value(a.span)
                    .key("start_us").value(nsToUs(a.startNs - c.startNs)).key("duration_us").value(nsToUs(a.endNs - a.startNs)).endObject();
            w.endArray();
        }
        w.endObject();
        std::cout << w.text() << "\n";
        return 0;
    }
    std::printf("request %s, %.3f ms: %zu other requests ran on its hosts meanwhile\n", args.request.c_str(),
                double(c.endNs - c.startNs) / 1e6, c.concurrent.size());
    if (!withActivity) {
        std::printf("%-40s %12s %10s\n", "host", "requests", "segments");
        for (const auto& h : c.hosts)
            std::printf("%-40s %12lld %10lld\n", h.host.c_str(), static_cast<long long>(h.concurrentRequests), static_cast<long long>(h.segments));
        return 0;
    }
    std::printf("%-40s %12s %10s %14s %14s  %s\n", "host", "requests", "segments", "host activity", "overlap ms", "most time");
    for (const auto& h : c.hosts)
        std::printf("%-40s %12lld %10lld %14lld %14.3f  %s\n", h.host.c_str(), static_cast<long long>(h.concurrentRequests),
                    static_cast<long long>(h.segments), static_cast<long long>(h.activityRecords), nsToMs(h.activityNs),
                    h.activity.empty() ? "" : h.activity.front().what.c_str());
    if (c.own.empty()) {
        std::printf("no host activity is marked with this request\n");
    } else {
        std::printf("its own low-level work (host activity marked with it), from its start:\n");
        std::printf("%-30s %-30s %-18s %12s %12s\n", "host", "what", "span", "start ms", "ms");
        for (const auto& a : c.own)
            std::printf("%-30s %-30s %-18s %12.3f %12.3f\n", a.host.c_str(), a.what.c_str(), a.span.c_str(), nsToMs(a.startNs - c.startNs),
                        nsToMs(a.endNs - a.startNs));
    }
    return 0;
}

} // namespace

Command addContextCommand(CLI::App& program) {
    auto args = std::make_shared<ContextArgs>();
    auto* cmd = program.add_subcommand("context", "what else ran on a request's hosts while it did (temporal context)");
    addDatabaseArgument(*cmd, args->db);
    cmd->add_option("--request", args->request, "the request (its name, as imported)")->required()->type_name("ID");
    addJsonFlag(*cmd, args->json, "{\"request\", \"hosts\": [{\"host\", \"concurrent_requests\", \"segments\", \"host_activity\"}],\n"
                                  "\"own_activity\"} (the host_activity keys with host activity in the database)");
    cmd->footer("Per host the request touched: other requests with an event there during its lifetime (first to last\n"
                "event, skew-corrected) or a segment there overlapping it, and the number of such segments. With host\n"
                "activity in the database (host-activity): the records overlapping it on each host, and those marked\n"
                "with the request (its own low-level work).");
    return {cmd, [args] { return runContext(*args); }};
}

} // namespace tracelight::cli
