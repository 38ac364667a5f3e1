// bursts: coordinated bursty tracing — the wall-clock mask the requests were traced under (inferred, or
// given) and the burst windows with their requests, and the host activity inside each when the database has some.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "Commands.h"
#include "tracelight/base/Json.h"
#include "tracelight/bottleneck/BurstWindows.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

namespace tracelight::cli {

namespace {

struct BurstsArgs {
    std::string db;
    std::string mask;  // empty: infer
    bool json = false;
};

int runBursts(const BurstsArgs& args) {
    std::optional<std::uint64_t> mask;
    if (!args.mask.empty()) {
        try {
            std::size_t used = 0;
            mask = std::stoull(args.mask, &used, 0);  // 0x…, 0…, or decimal
            if (used != args.mask.size() || *mask == 0) throw std::invalid_argument("mask");
        } catch (const std::exception&) {
            return fail(args.db + ": bad --mask '" + args.mask + "' (a non-zero integer: decimal, 0x hexadecimal or 0 octal)");
        }
    }
    auto store = openAnalysed(args.db, AnalysisOptions{}, true);
    if (!store) return fail(store.message());
    // The Bursts tab's findings, found the same way: the starts and the host activity on the analysis's clocks.
    auto analysis = loadAnalysis(*store.value());
    if (!analysis) return fail(analysis.message());
    auto found = findBursts(analysis.value(), *store.value(), mask);
    if (!found) return fail(args.db + ": " + found.message());
    if (!found->activityError.empty()) return fail(args.db + ": " + found->activityError);
    const BurstWindows& w = found->windows;
    const bool withActivity = found->withActivity;
    const std::vector<BurstActivity>& activity = found->activity;
    const auto requests = static_cast<std::size_t>(found->requests);
    if (args.json) {
        JsonWriter j;
        j.beginObject().key("requests").value(static_cast<std::int64_t>(requests)).key("mask").value(static_cast<std::int64_t>(w.mask));
        j.key("inferred").value(w.inferred).key("bursty").value(w.mask != 0).key("outside").value(w.outside).key("windows").beginArray();
        for (std::size_t i = 0; i < w.windows.size(); ++i) {
            const auto& b = w.windows[i];
            j.beginObject().key("start_ms").value(b.startMs).key("end_ms").value(b.endMs)
                .key("requests").value(static_cast<std::int64_t>(b.requests.size()));
            if (withActivity) {
                const BurstActivity& a = activity[i];
                j.key("host_activity").beginObject().key("records").value(a.records).key("hosts").value(a.hosts)
                    .key("overlap_us").value(nsToUs(a.overlapNs)).key("by_what").beginArray();
                for (const auto& k : a.activity)
                    j.beginObject().key("what").value(k.what).key("records").value(k.records).key("overlap_us").value(nsToUs(k.overlapNs)).endObject();
                j.endArray().endObject();
            }
            j.endObject();
        }
        j.endArray().endObject();
        std::cout << j.text() << "\n";
        return 0;
    }
    if (w.mask == 0) {
        std::printf("%s: %zu requests, not traced in coordinated bursts (no millisecond bit set in every start beyond chance)\n", args.db.c_str(),
                    requests);
        return 0;
    }
    std::printf("%s: mask 0x%llx (%s): %zu burst windows of %lld ms", args.db.c_str(), static_cast<unsigned long long>(w.mask),
                w.inferred ? "inferred" : "given", w.windows.size(),
                static_cast<long long>(w.windows.empty() ? 0 : w.windows.front().endMs - w.windows.front().startMs));
    if (w.outside) std::printf(", %lld requests outside them", static_cast<long long>(w.outside));
    if (!withActivity) {
        std::printf("\n%-26s %10s\n", "window start (ms)", "requests");
        for (const auto& b : w.windows) std::printf("%-26lld %10zu\n", static_cast<long long>(b.startMs), b.requests.size());
        return 0;
    }
    std::printf("\n%-26s %10s %14s %12s  %s\n", "window start (ms)", "requests", "host activity", "overlap ms", "most time");
    for (std::size_t i = 0; i < w.windows.size(); ++i)
        std::printf("%-26lld %10zu %14lld %12.3f  %s\n", static_cast<long long>(w.windows[i].startMs), w.windows[i].requests.size(),
                    static_cast<long long>(activity[i].records), nsToMs(activity[i].overlapNs),
                    activity[i].activity.empty() ? "" : activity[i].activity.front().what.c_str());
    return 0;
}

} // namespace

Command addBurstsCommand(CLI::App& program) {
    auto args = std::make_shared<BurstsArgs>();
    auto* cmd = program.add_subcommand("bursts", "coordinated bursty tracing: the burst mask and its windows");
    addDatabaseArgument(*cmd, args->db);
    cmd->add_option("--mask", args->mask, "the mask tracing ran under ((mask & wall_ms) == mask); default: inferred")->type_name("M");
    addJsonFlag(*cmd, args->json, "{\"requests\", \"mask\", \"inferred\", \"bursty\", \"outside\", \"windows\": [{\"start_ms\", \"end_ms\", \"requests\", \"host_activity\"}]}\n"
                                  "(host_activity with host activity in the database)");
    cmd->footer("The mask is inferred as the bits set in every request's start millisecond that vary over the data's span\n"
                "(none: the data was not traced in bursts). A window: the consecutive milliseconds the mask lets through.\n"
                "Starts and host activity are on the analysis's clocks, as in the app's Bursts tab; DB is analysed first\n"
                "when its results are missing or stale.");
    return {cmd, [args] { return runBursts(*args); }};
}

} // namespace tracelight::cli
