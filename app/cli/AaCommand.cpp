// aa: an A/A comparison of one period (or every request): its requests split at random in two halves, their
// latency percentiles with bootstrap 95 % intervals of the difference, and how many categories the period
// comparison flags between the same halves — what chance alone looks like at this sample size.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <numeric>

#include "Commands.h"
#include "tracelight/base/Json.h"
#include "tracelight/compare/AaPercentiles.h"
#include "tracelight/compare/Compare.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

namespace tracelight::cli {

namespace {

struct AaArgs {
    std::string db, period;
    std::uint64_t seed = 1;
    int resamples = 1000;
    bool json = false;
};

int runAa(const AaArgs& args) {
    auto store = openAnalysed(args.db, AnalysisOptions{}, true);
    if (!store) return fail(store.message());
    const TraceStore& st = *store.value();
    if (!args.period.empty())
        if (auto requests = periodSize(st, args.period); !requests) return fail(requests.message());
    auto analysis = loadAnalysis(st);
    if (!analysis) return fail(analysis.message());
    std::vector<std::uint32_t> rows = periodRows(st, analysis->data.requestIds, args.period);
    if (rows.size() < 4)
        return fail(args.db + ": " + (args.period.empty() ? std::string("the database") : "period '" + args.period + "'") + " has " +
                    std::to_string(rows.size()) + " analysed requests; an A/A split needs at least 4");
    // One pass gives each request's latency and category: the percentiles' halves and the comparison's are
    // the same split (both of the indices 0..n-1 with this seed).
    auto categories = categorizeRequests(analysis.value(), rows);
    if (!categories) return fail(args.db + ": " + categories.message());
    AaPercentilesOptions options;
    options.seed = args.seed;
    options.resamples = args.resamples;
    const auto percentiles = aaPercentiles(categories->latencyNs, options);
    std::vector<std::uint32_t> all(categories->rows.size());
    std::iota(all.begin(), all.end(), 0u);
    CompareOptions compare;
    compare.aaSeed = args.seed;
    const AaResult aa = aaSplit(categories.value(), all, compare);

    const std::string period = args.period.empty() ? "(all)" : args.period;
    if (args.json) {
        JsonWriter w;
        w.beginObject().key("period").value(period).key("requests").value(static_cast<std::int64_t>(rows.size()));
        w.key("seed").value(static_cast<std::int64_t>(args.seed)).key("percentiles").beginArray();
        for (const auto& p : percentiles)
            w.beginObject()
                .key("p").value(static_cast<std::int64_t>(p.p))
                .key("a_us").value(p.aNs / 1000.0)
                .key("b_us").value(p.bNs / 1000.0)
                .key("relative_diff").value(p.relativeDiff)
                .key("ci95").beginArray().value(p.ciLow).value(p.ciHigh).endArray()
                .endObject();
        w.endArray().key("compare").beginObject().key("categories_tested").value(aa.categoriesTested).key("mutations").value(aa.mutations);
        w.endObject().endObject();
        std::cout << w.text() << "\n";
        return 0;
    }
    std::printf("A/A of %s: %zu requests split at random in two halves (seed %llu), %d bootstrap resamples\n", period.c_str(),
                rows.size(), static_cast<unsigned long long>(args.seed), args.resamples);
    std::printf("%4s %14s %14s %10s   %s\n", "p", "half A", "half B", "B vs A", "95% interval of the difference");
    for (const auto& p : percentiles)
        std::printf("%4d %12.3fms %12.3fms %+9.1f%%   [%+.1f%%, %+.1f%%]\n", p.p, p.aNs / 1e6, p.bNs / 1e6, 100 * p.relativeDiff,
                    100 * p.ciLow, 100 * p.ciHigh);
    std::printf("period comparison between the halves: %lld of %lld categories flagged by chance\n",
                static_cast<long long>(aa.mutations), static_cast<long long>(aa.categoriesTested));
    return 0;
}

} // namespace

Command addAaCommand(CLI::App& program) {
    auto args = std::make_shared<AaArgs>();
    auto* cmd = program.add_subcommand("aa", "A/A: how far two random halves of one period differ by chance");
    addDatabaseArgument(*cmd, args->db);
    cmd->add_option("--period", args->period, "only the requests of that period (default: all)")->type_name("P");
    cmd->add_option("--seed", args->seed, "seed of the split and of the bootstrap (default 1)")->type_name("N");
    cmd->add_option("--resamples", args->resamples, "bootstrap resamples (default 1000)")->type_name("N")->check(CLI::Range(10, 100000));
    addJsonFlag(*cmd, args->json, "JSON (docs/reference/json.md): period, requests, seed, percentiles with ci95, compare");
    cmd->footer("Each half's p50, p90, p95 and p99 latency, the relative difference B vs A and its bootstrap 95% interval\n"
                "(percentile method; each half resampled with replacement), and how many categories the period comparison\n"
                "flags between the same two halves. Read every comparison against these figures.");
    return {cmd, [args] { return runAa(*args); }};
}

} // namespace tracelight::cli
