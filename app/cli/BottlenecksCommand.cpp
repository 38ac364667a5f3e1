// bottlenecks: BOSS contribution analysis — each request's timeline shared among what was active in it,
// summed per bottleneck type, per-request means and shares, stratified by an attribute.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>

#include "Commands.h"
#include "tracelight/bottleneck/BottleneckComparison.h"
#include "tracelight/bottleneck/BottleneckTrend.h"
#include "tracelight/bottleneck/Bottlenecks.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"
#include "tracelight/studies/LatencySlice.h"

namespace tracelight::cli {

namespace {

struct BottlenecksArgs {
    std::string db, period, by, rules, latencyPercentile, baseline, problem;
    bool json = false, saveRules = false, trend = false;
    double alpha = 0.05;
    std::uint64_t seed = 1;
};

std::string formatMs(TimeNs ns) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3f ms", double(ns) / 1e6);
    return buf;
}

// A bucket's start as UTC ISO-8601, to the millisecond.
std::string formatUtc(TimeNs ns) {
    const TimeNs ms = ns / 1000000 - (ns % 1000000 < 0 ? 1 : 0);
    const std::time_t seconds = static_cast<std::time_t>(ms / 1000 - (ms % 1000 < 0 ? 1 : 0));
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char buf[48];
    const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    std::snprintf(buf + n, sizeof buf - n, ".%03lldZ", static_cast<long long>(((ms % 1000) + 1000) % 1000));
    return buf;
}

// Names padded by the characters they show (a hop's arrow is three bytes), as wide as the widest.
std::size_t shown(const std::string& text) {
    std::size_t n = 0;
    for (unsigned char c : text) n += (c & 0xC0) != 0x80;
    return n;
}
template <typename Types>
std::size_t nameWidth(const Types& types) {
    std::size_t width = 40;
    for (const auto& t : types) width = std::max(width, shown(t.name));
    return width;
}
std::string padded(const std::string& text, std::size_t width) { return text + std::string(width - std::min(width, shown(text)), ' '); }

void printTable(const BottleneckSummary& s, const std::string& title) {
    std::printf("%s: %lld requests, mean latency %.3f ms\n", title.c_str(), static_cast<long long>(s.requests), s.meanLatencyNs / 1e6);
    const std::size_t width = nameWidth(s.types);
    auto padded = [&](const std::string& text) { return cli::padded(text, width); };
    std::printf("  %s %14s %8s\n", padded("bottleneck type").c_str(), "per request", "share");
    for (const auto& t : s.types) std::printf("  %s %11.3f ms %7.2f %%\n", padded(t.name).c_str(), t.meanNs / 1e6, 100.0 * t.share);
}

// Before and after: the two periods (each cut to its own latency slice when asked), the change of every type with
// its significance, and the A/A of the baseline's random halves.
int runComparison(const BottlenecksArgs& args, const TraceStore& st, const InMemoryAnalysis& analysis, const BottleneckOptions& options) {
    const auto& ids = analysis.data.requestIds;
    std::optional<LatencySliceResult> slices[2];
    std::vector<std::uint32_t> sides[2];
    const std::string* names[2] = {&args.baseline, &args.problem};
    for (int i = 0; i < 2; ++i) {
        sides[i] = periodRows(st, ids, *names[i]);
        if (sides[i].empty()) return fail(args.db + ": no analysed requests in period '" + *names[i] + "'");
        if (args.latencyPercentile.empty()) continue;
        const auto range = parsePercentileRange(args.latencyPercentile);
        if (!range) return fail("--latency-percentile " + range.message());
        slices[i] = sliceByLatency(analysis, sides[i], range.value());
        if (slices[i]->rows.size() < 2)
            return fail(args.db + ": --latency-percentile " + range->text() + " keeps " + std::to_string(slices[i]->rows.size()) + " of the " +
                        std::to_string(sides[i].size()) + " requests of period '" + *names[i] + "': too few to compare");
        sides[i] = slices[i]->rows;
    }
    auto comparison = compareBottlenecks(analysis, &st, sides[0], sides[1], options, args.alpha, args.seed);
    if (!comparison) return fail(args.db + ": " + comparison.message());
    std::optional<BottleneckTrend> trend;
    if (args.trend) {  // over both periods: how the contributions moved from one to the other
        std::vector<std::uint32_t> both;
        std::set_union(sides[0].begin(), sides[0].end(), sides[1].begin(), sides[1].end(), std::back_inserter(both));
        auto computed = computeBottleneckTrend(analysis, &st, both, options);
        if (!computed) return fail(args.db + ": " + computed.message());
        trend = std::move(computed.value());
    }
    if (args.json) {
        std::cout << bottleneckComparisonJson(comparison.value(), {args.baseline, slices[0] ? &*slices[0] : nullptr},
                                              {args.problem, slices[1] ? &*slices[1] : nullptr}, args.alpha, trend ? &*trend : nullptr)
                  << "\n";
        return 0;
    }
    const BottleneckChanges& c = comparison->changes;
    std::printf("%s (%lld requests, mean %.3f ms) -> %s (%lld requests, mean %.3f ms)%s\n", args.baseline.c_str(),
                static_cast<long long>(c.baseRequests), c.baseMeanLatencyNs / 1e6, args.problem.c_str(), static_cast<long long>(c.problemRequests),
                c.problemMeanLatencyNs / 1e6, args.latencyPercentile.empty() ? "" : (", latency percentiles " + args.latencyPercentile).c_str());
    std::printf("Welch test per type, Benjamini-Hochberg at alpha %g: %lld of %zu types changed significantly\n", args.alpha,
                static_cast<long long>(c.significantTypes), c.types.size());
    const std::size_t width = nameWidth(c.types);
    std::printf("  %s %12s %12s %12s %9s\n", padded("bottleneck type", width).c_str(), "before ms", "after ms", "change ms", "p");
    for (const auto& t : c.types)
        std::printf("  %s %12.3f %12.3f %+12.3f %9.2g%s\n", padded(t.name, width).c_str(), t.baseMeanNs / 1e6, t.problemMeanNs / 1e6,
                    t.deltaNs() / 1e6, t.pValue, t.significant ? "  significant" : "");
    const BottleneckChanges& aa = comparison->aa;
    double widest = 0;
    for (const auto& t : aa.types) widest = std::max(widest, std::fabs(t.deltaNs()));
    std::printf("A/A (period %s split at random, seed %llu): %lld of %zu types significant, the largest chance change %.3f ms\n",
                args.baseline.c_str(), static_cast<unsigned long long>(args.seed), static_cast<long long>(aa.significantTypes), aa.types.size(),
                widest / 1e6);
    return 0;
}

int runBottlenecks(const BottlenecksArgs& args) {
    const std::string& db = args.db;
    BottleneckOptions options;
    if (!args.rules.empty()) {
        std::ifstream in(args.rules, std::ios::binary);
        if (!in) return fail(args.rules + ": cannot read");
        std::stringstream text;
        text << in.rdbuf();
        auto rules = BottleneckRules::fromJson(text.str());
        if (!rules) return fail(args.rules + ": " + rules.message());
        options.rules = std::move(rules.value());
        if (args.saveRules) {
            auto writable = openDatabase(db, TraceStore::Mode::ReadWrite);
            if (!writable) return fail(writable.message());
            if (Status s = saveBottleneckRules(*writable.value(), options.rules); !s) return fail(db + ": " + s.message());
            std::fprintf(stderr, "stored %zu bottleneck rules in %s\n", options.rules.rules().size(), db.c_str());
        }
    }
    auto store = openAnalysed(db, AnalysisOptions{}, true);
    if (!store) return fail(store.message());
    const TraceStore& st = *store.value();
    if (args.rules.empty()) options.rules = loadBottleneckRules(st);
    for (const std::string* period : {&args.period, &args.baseline, &args.problem})
        if (!period->empty())
            if (auto requests = periodSize(st, *period); !requests) return fail(requests.message());
    auto analysis = loadAnalysis(st);
    if (!analysis) return fail(analysis.message());
    const auto& ids = analysis->data.requestIds;
    options.categories = loadCategoryRules(st);
    if (!args.baseline.empty()) return runComparison(args, st, analysis.value(), options);
    std::vector<std::uint32_t> rows = periodRows(st, ids, args.period);
    const std::string selection = args.period.empty() ? "the database" : "period '" + args.period + "'";
    if (rows.empty()) return fail(db + ": no analysed requests in " + selection);
    // A latency slice of the selection; the strata and the trend are of the slice.
    std::optional<LatencySliceResult> slice;
    if (!args.latencyPercentile.empty()) {
        auto range = parsePercentileRange(args.latencyPercentile);  // checked when parsed: cannot fail here
        if (!range) return fail("--latency-percentile " + range.message());
        slice = sliceByLatency(analysis.value(), rows, range.value());
        if (slice->rows.empty())
            return fail(db + ": --latency-percentile " + range->text() + " holds none of the " + std::to_string(rows.size()) +
                        " requests of " + selection + " (too few requests for so narrow a range)");
        rows = slice->rows;
    }

    // One pass: the selection first, then each stratum (of the selection's own values and quartiles).
    std::vector<std::vector<std::uint32_t>> groups{rows};
    std::vector<std::string> strataValues;
    if (!args.by.empty()) {
        for (auto& g : groupByAttribute(attributeValues(st, ids, args.by), ids.size(), 4, rows)) {
            strataValues.push_back(std::move(g.value));
            groups.push_back(std::move(g.rows));
        }
    }
    auto summaries = computeBottlenecks(analysis.value(), &st, groups, options);
    if (!summaries) return fail(db + ": " + summaries.message());
    std::vector<BottleneckStratum> strata;
    for (std::size_t i = 0; i < strataValues.size(); ++i) strata.push_back({strataValues[i], summaries.value()[i + 1]});
    std::optional<BottleneckTrend> trend;
    if (args.trend) {
        auto computed = computeBottleneckTrend(analysis.value(), &st, rows, options);
        if (!computed) return fail(db + ": " + computed.message());
        trend = std::move(computed.value());
    }

    if (args.json) {
        std::cout << bottlenecksJson(summaries->front(), args.by, strata,
                                     {slice ? &*slice : nullptr, trend ? &*trend : nullptr})
                  << "\n";
        return 0;
    }
    std::string title = args.period.empty() ? db : "period " + args.period;
    if (slice)
        title += ", latency percentiles " + slice->range.text() + " of " + std::to_string(slice->scopeRequests) + " requests (" +
                 formatMs(slice->minLatencyNs) + " to " + formatMs(slice->maxLatencyNs) + ")";
    printTable(summaries->front(), title);
    if (trend) {
        std::printf("\nTrend, one bucket per %s (mean contribution per request):\n", trend->bucketing.unit.c_str());
        for (std::size_t b = 0; b < trend->buckets.size(); ++b) {
            const BottleneckSummary& s = trend->buckets[b];
            std::printf("  %s  %6lld requests", formatUtc(trend->bucketStartNs[b]).c_str(), static_cast<long long>(s.requests));
            for (std::size_t t = 0; s.requests > 0 && t < s.types.size() && t < 3; ++t)
                std::printf("  %s %.3f ms", s.types[t].name.c_str(), s.types[t].meanNs / 1e6);
            std::printf("\n");
        }
    }
    for (const auto& s : strata) {
        std::printf("\n");
        printTable(s.summary, args.by + " = " + s.value);
    }
    std::printf("\nHow to fix:\n");
    for (const auto& t : summaries->front().types) std::printf("  %s: %s\n", t.name.c_str(), t.howToFix.c_str());
    return 0;
}

} // namespace

Command addBottlenecksCommand(CLI::App& program) {
    auto args = std::make_shared<BottlenecksArgs>();
    auto* cmd = program.add_subcommand("bottlenecks", "BOSS bottleneck types: each one's contribution to latency");
    addDatabaseArgument(*cmd, args->db);
    cmd->add_option("--period", args->period, "only requests of that period")->type_name("P");
    cmd->add_option("--by", args->by, "stratify by this request attribute (numeric ones in quartiles; period: by period)")->type_name("ATTR");
    auto* rules = cmd->add_option("--rules", args->rules, "bottleneck type rules, a JSON list (see docs/user/cli.md); default: the rules "
                                  "stored in DB, else one type per service or category")->type_name("FILE");
    cmd->add_flag("--save-rules", args->saveRules, "store the --rules in DB for later runs and the app")->needs(rules);
    cmd->add_option("--latency-percentile", args->latencyPercentile,
                    "only the requests in this latency percentile range of the selection (90..100: the slowest 10 %)")
        ->type_name("LO..HI")
        ->check(CLI::Validator(
            [](std::string& v) {
                auto range = parsePercentileRange(v);
                return range ? std::string() : range.message();
            },
            "", "percentile range"));
    cmd->add_flag("--trend", args->trend, "also the trend: the contributions per bucket of start time");
    auto* baseline = cmd->add_option("--baseline", args->baseline, "compare: the period before (with --problem)")->type_name("P");
    auto* problem = cmd->add_option("--problem", args->problem, "compare: the period after (with --baseline)")->type_name("P");
    baseline->needs(problem);
    problem->needs(baseline);
    auto* period = cmd->get_option("--period");
    baseline->excludes(period);
    cmd->get_option("--by")->excludes(baseline);
    cmd->add_option("--alpha", args->alpha, "compare: significance level, Benjamini-Hochberg across the types (default 0.05)")
        ->type_name("A")
        ->check(CLI::Range(1e-12, 0.5))
        ->needs(baseline);
    cmd->add_option("--seed", args->seed, "compare: seed of the A/A split of the baseline (default 1)")->type_name("N")->needs(baseline);
    addJsonFlag(*cmd, args->json, "JSON output (default: a table)");
    cmd->footer("Each request's timeline is cut at every start and end of what was active (a span's own time, not\n"
                "covered by its children; an event log's segments); each slice is shared evenly by what was active\n"
                "in it, and slices with nothing active are the type 'gaps'. Types: the rules' (first match), else\n"
                "one per service (span data) or per category (event logs). Per type: the mean contribution per\n"
                "request and its share of the latency (shares add up to 1). --latency-percentile LO..HI keeps the\n"
                "requests ranked LO % to HI % by latency, fastest first (ties in request order), before slicing --by.\n"
                "--baseline P --problem Q: each type's contribution before and after, its change, and a Welch test of\n"
                "it (Benjamini-Hochberg across the types), with the A/A of P's random halves: what chance alone gives.\n"
                "Analyses DB first when needed.");
    return {cmd, [args] { return runBottlenecks(*args); }};
}

} // namespace tracelight::cli
