// bottlenecks: BOSS contribution analysis — each request's timeline shared among what was active in it,
// summed per bottleneck type, per-request means and shares, stratified by an attribute.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "Commands.h"
#include "tracelight/bottleneck/Bottlenecks.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

namespace tracelight::cli {

namespace {

struct BottlenecksArgs {
    std::string db, period, by, rules;
    bool json = false, saveRules = false;
};

void printTable(const BottleneckSummary& s, const std::string& title) {
    std::printf("%s: %lld requests, mean latency %.3f ms\n", title.c_str(), static_cast<long long>(s.requests), s.meanLatencyNs / 1e6);
    // Names padded by the characters they show (a hop's arrow is three bytes), as wide as the widest.
    auto shown = [](const std::string& text) {
        std::size_t n = 0;
        for (unsigned char c : text) n += (c & 0xC0) != 0x80;
        return n;
    };
    std::size_t width = 40;
    for (const auto& t : s.types) width = std::max(width, shown(t.name));
    auto padded = [&](const std::string& text) { return text + std::string(width - std::min(width, shown(text)), ' '); };
    std::printf("  %s %14s %8s\n", padded("bottleneck type").c_str(), "per request", "share");
    for (const auto& t : s.types) std::printf("  %s %11.3f ms %7.2f %%\n", padded(t.name).c_str(), t.meanNs / 1e6, 100.0 * t.share);
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
    if (!args.period.empty())
        if (auto requests = periodSize(st, args.period); !requests) return fail(requests.message());
    auto analysis = loadAnalysis(st);
    if (!analysis) return fail(analysis.message());
    const auto& ids = analysis->data.requestIds;
    const std::vector<std::uint32_t> rows = periodRows(st, ids, args.period);
    if (rows.empty()) return fail(db + ": no analysed requests in " + (args.period.empty() ? "the database" : "period '" + args.period + "'"));
    options.categories = loadCategoryRules(st);

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

    if (args.json) {
        std::cout << bottlenecksJson(summaries->front(), args.by, strata) << "\n";
        return 0;
    }
    printTable(summaries->front(), args.period.empty() ? db : "period " + args.period);
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
    addJsonFlag(*cmd, args->json, "JSON output (default: a table)");
    cmd->footer("Each request's timeline is cut at every start and end of what was active (a span's own time, not\n"
                "covered by its children; an event log's segments); each slice is shared evenly by what was active\n"
                "in it, and slices with nothing active are the type 'gaps'. Types: the rules' (first match), else\n"
                "one per service (span data) or per category (event logs). Per type: the mean contribution per\n"
                "request and its share of the latency (shares add up to 1). Analyses DB first when needed.");
    return {cmd, [args] { return runBottlenecks(*args); }};
}

} // namespace tracelight::cli
