// what-if: the Mystery Machine's what-if — components made faster or slower, every request re-scheduled
// through its graph — and the latency percentiles before and after, as the Aggregates tab's What-if page.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "Commands.h"
#include "tracelight/base/Json.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

namespace tracelight::cli {

namespace {

struct WhatIfArgs {
    std::string db, period, where;
    std::vector<std::string> scales;  // KEY=FACTOR
    bool json = false;
};

struct Scale {
    std::string key;
    double factor = 1;
    std::size_t types = 0;  // segment types the key names
};

// "KEY=FACTOR": the factor a multiplier (0.5) or a change in per cent (-50%); the key may hold '=' itself.
Result<Scale> parseScale(const std::string& text) {
    const auto eq = text.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        return Status::error("--scale needs KEY=FACTOR (frontend=0.5, or a change in per cent: frontend=-50%), not '" + text + "'");
    Scale s;
    s.key = text.substr(0, eq);
    std::string value = text.substr(eq + 1);
    const bool percent = value.back() == '%';
    if (percent) value.pop_back();
    char* end = nullptr;
    const double number = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(number))
        return Status::error("--scale " + text + ": the factor is not a number");
    s.factor = percent ? 1.0 + number / 100.0 : number;
    if (s.factor < 0 || s.factor > 1000)
        return Status::error("--scale " + text + ": the factor must be between 0 and 1000 (a change between -100% and +99900%)");
    return s;
}

struct Percentiles {
    TimeNs p50 = 0, p95 = 0, p99 = 0;
    double mean = 0;
};
Percentiles percentilesOf(const std::vector<TimeNs>& latencies) {
    Percentiles p;
    p.p50 = quantile(latencies, 0.50);
    p.p95 = quantile(latencies, 0.95);
    p.p99 = quantile(latencies, 0.99);
    double sum = 0;
    for (TimeNs t : latencies) sum += double(t);
    p.mean = latencies.empty() ? 0 : sum / double(latencies.size());
    return p;
}

void writePercentiles(JsonWriter& w, const Percentiles& p) {
    w.beginObject().key("p50_us").value(nsToUs(p.p50)).key("p95_us").value(nsToUs(p.p95)).key("p99_us").value(nsToUs(p.p99))
        .key("mean_us").value(p.mean / 1000.0).endObject();
}

int runWhatIf(const WhatIfArgs& args) {
    const std::string& db = args.db;
    std::vector<Scale> scales;
    for (const std::string& text : args.scales) {
        auto s = parseScale(text);
        if (!s) return usageError("what-if", s.message());
        scales.push_back(std::move(s.value()));
    }
    auto opened = openAggregates(db);
    if (!opened) return fail(opened.message());
    const TraceStore& store = *opened->store;
    const InMemoryAnalysis& analysis = opened->analysis;
    const RequestAggregates& all = opened->aggregates;

    // The requests covered: a period's, those --where matches, or both.
    const bool narrowed = !args.period.empty() || !args.where.empty();
    auto rows = selectedRows(store, db, all.ids, args.period, args.where);
    if (!rows) return fail(rows.message());
    const RequestAggregates scoped = narrowed ? restrictAggregates(all, rows.value()) : RequestAggregates{};
    const RequestAggregates& a = narrowed ? scoped : all;

    // A segment type two keys name takes both factors.
    std::vector<double> typeFactors(analysis.data.segmentTypes.size(), 1.0);
    for (Scale& s : scales) {
        auto types = whatIfKeyTypes(analysis, a, s.key);
        if (!types) return fail(db + ": --scale " + s.key + ": " + types.message());
        s.types = types->size();
        for (const std::uint32_t t : types.value())
            if (t < typeFactors.size()) typeFactors[t] *= s.factor;
    }
    auto after = whatIf(analysis, a, typeFactors);
    if (!after) return fail(db + ": " + after.message());
    const Percentiles before = percentilesOf(a.latencyNs), then = percentilesOf(after.value());

    if (args.json) {
        JsonWriter w;
        w.beginObject().key("requests").value(static_cast<std::int64_t>(a.requests())).key("scale").beginArray();
        for (const Scale& s : scales)
            w.beginObject().key("key").value(s.key).key("factor").value(s.factor)
                .key("segment_types").value(static_cast<std::int64_t>(s.types)).endObject();
        w.endArray().key("before");
        writePercentiles(w, before);
        w.key("after");
        writePercentiles(w, then);
        w.endObject();
        std::cout << w.text() << "\n";
        return 0;
    }
    std::printf("%s: %zu request%s re-scheduled with", db.c_str(), a.requests(), a.requests() == 1 ? "" : "s");
    for (std::size_t i = 0; i < scales.size(); ++i)
        std::printf("%s %s x%g", i ? "," : "", scales[i].key.c_str(), scales[i].factor);
    std::printf("\n%-6s %14s %14s %9s\n", "", "before (ms)", "after (ms)", "change");
    const auto line = [](const char* name, double b, double t) {
        std::printf("%-6s %14.3f %14.3f %+8.1f%%\n", name, b / 1e6, t / 1e6, b > 0 ? (t / b - 1) * 100 : 0.0);
    };
    line("p50", double(before.p50), double(then.p50));
    line("p95", double(before.p95), double(then.p95));
    line("p99", double(before.p99), double(then.p99));
    line("mean", before.mean, then.mean);
    return 0;
}

} // namespace

Command addWhatIfCommand(CLI::App& program) {
    auto args = std::make_shared<WhatIfArgs>();
    auto* cmd = program.add_subcommand("what-if", "latency percentiles if components took longer or shorter (Mystery Machine)");
    addDatabaseArgument(*cmd, args->db);
    cmd->add_option("--scale", args->scales,
                    "KEY=FACTOR: every segment KEY names takes FACTOR times as long (0.5, or -50%); KEY: a category\n"
                    "(a service, a hop 'caller -> callee'), a segment type 'task:START->END' or an operation; repeatable")
        ->type_name("KEY=FACTOR")
        ->required();
    cmd->add_option("--period", args->period, "only requests of that period")->type_name("P");
    cmd->add_option("--where", args->where, "only requests whose attribute matches: ATTR=V, ATTR!=V, ATTR<N, ATTR>N")->type_name("EXPR");
    addJsonFlag(*cmd, args->json);
    cmd->footer("Every request's graph is re-scheduled with the changed durations, the fixed waits held (span data\n"
                "through its span graph), and the end-to-end latency's p50, p95, p99 and mean are printed before and\n"
                "after. A component with slack moves them little; one on the critical path, by as much as it changed.\n"
                "KEY as the app's What-if offers it: 'category C' or C, a segment type, or an operation (a task's name,\n"
                "'service:operation' for spans: its segments but the trips between hosts). Analyses DB first when needed.");
    return {cmd, [args] { return runWhatIf(*args); }};
}

} // namespace tracelight::cli
