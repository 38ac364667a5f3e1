// compare: Spectroscope's comparison of a non-problem (baseline) and a problem period.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <unordered_map>

#include "Commands.h"
#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/base/Json.h"
#include "tracelight/compare/TrainSchedule.h"
#include "tracelight/compare/Compare.h"
#include "tracelight/compare/FlowGraph.h"
#include "tracelight/compare/PeriodComparison.h"
#include "tracelight/compare/RegressionTree.h"
#include "tracelight/compare/Suspects.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

#include <optional>

namespace tracelight::cli {

namespace {

struct CompareArgs {
    std::string db, baseline, problem;
    std::optional<double> threshold;
    double alpha = 0.05;
    bool bh = false;
    bool paper = false;
    bool json = false;
    std::uint64_t seed = 1;
    std::int64_t tree = 0; // entry rank to explain with a regression tree (0: none)
    std::int64_t entry = 0; // entry rank to show against its precursor or baseline (0: none)
    std::uint32_t precursor = 0; // the candidate precursor category to compare entry N with (0: the closest)
    std::uint32_t category = 0; // a category to show, ranked or not (0: none)
    std::vector<std::string> drop;
};

// An edge's latency in one category and period: {"count": N, "mean_us": X, "variance_us2": X}.
void writeStats(JsonWriter& w, const CategoryStats& s) {
    w.beginObject().key("count").value(s.count).key("mean_us").value(s.meanNs / 1000.0).key("variance_us2").value(s.varianceNs2 / 1e6)
        .endObject();
}

std::string formatMs(double ns) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3fms", ns / 1e6);
    return text;
}

// --entry N: the entry against its compared precursor (or its own baseline), as the Compare tab's side by side, diff
// and swim lanes show it: both sides' edge latencies (mean and variance), the merged flow graph and the two
// representative requests. --category C: any category the same way, its problem-period requests against its
// baseline ones (e is then that category's response-time view, rank 0).
int printEntry(const CompareArgs& args, const TraceStore& store, const InMemoryAnalysis& analysis, const PeriodComparison& pc,
               const CompareEntry& e, std::int64_t rank) {
    const std::string what = rank > 0 ? "--entry " + std::to_string(rank) : "--category " + std::to_string(args.category);
    const Comparison& cmp = pc.comparison;
    const RequestCategories& c = *pc.categories;
    auto graphs = entryFlowGraphs(analysis, pc, e);
    if (!graphs) return fail(args.db + ": " + what + ": " + graphs.message());
    const FlowGraphPair& pair = graphs.value();
    const auto sides = entrySides(pc, e);
    auto requestName = [&](RequestId id) -> std::string {
        if (!id.isValid()) return {};
        auto name = tracelight::requestName(store, id);
        return name ? *name : std::to_string(id.value);
    };
    const PrecursorRef* precursor = sides.second.precursor ? e.comparedPrecursor() : nullptr;
    if (args.json) {
        JsonWriter w;
        w.beginObject().key("rank");
        if (rank > 0) w.value(rank).key("kind").value(compareKindName(e.kind));
        else w.null().key("kind").null();
        w.key("category").value(std::int64_t(cmp.categories[e.category].id)).key("precursor");
        if (precursor) w.value(std::int64_t(cmp.categories[precursor->category].id));
        else w.null();
        auto side = [&](const char* key, const EntrySide& s, RequestId representative, const std::vector<EdgeStats>& edges) {
            w.key(key);
            if (s.entries.empty()) {
                w.null();
                return;
            }
            w.beginObject().key("category").value(std::int64_t(cmp.categories[s.category].id))
                .key("period").value(s.baseline ? pc.baseline : pc.problem).key("precursor").value(s.precursor)
                .key("requests").value(std::int64_t(s.entries.size())).key("representative").value(requestName(representative));
            // The representative zoomed out to components (Spectroscope's Figure 8): its legs between hosts over time.
            w.key("train_schedule");
            if (auto detail = representative.isValid() ? loadRequestDetail(store, representative) : Result<RequestDetail>(Status::error("")); detail) {
                const TrainSchedule t = trainSchedule(detail.value());
                w.beginObject().key("latency_us").value(nsToUs(t.latencyNs)).key("components").beginArray();
                for (const auto& c : t.components) w.value(c);
                w.endArray().key("legs").beginArray();
                for (const TrainLeg& leg : t.legs)
                    w.beginObject().key("from").value(std::int64_t(leg.from)).key("to").value(std::int64_t(leg.to)).key("start_us").value(nsToUs(leg.startNs))
                        .key("end_us").value(nsToUs(leg.endNs)).key("critical").value(leg.critical).endObject();
                w.endArray().endObject();
            } else {
                w.null();
            }
            w.key("edges").beginArray();
            for (const EdgeStats& edge : edges) {
                w.beginObject().key("from").value(c.typeStart[edge.type]).key("to").value(c.typeEnd[edge.type]);
                w.key("count").value(edge.stats.count).key("mean_us").value(edge.stats.meanNs / 1000.0)
                    .key("variance_us2").value(edge.stats.varianceNs2 / 1e6).endObject();
            }
            w.endArray().endObject();
        };
        side("first", sides.first, pair.firstRequest, pair.firstEdges);
        side("second", sides.second, pair.secondRequest, pair.secondEdges);
        w.key("nodes").beginArray();
        for (const FlowNode& n : pair.nodes)
            w.beginObject().key("label").value(n.label).key("occurrence").value(std::int64_t(n.occurrence)).key("in_first").value(n.inFirst)
                .key("in_second").value(n.inSecond).key("first_mean_us").value(n.firstMeanNs / 1000.0)
                .key("first_variance_us2").value(n.firstVarianceNs2 / 1e6).key("second_mean_us").value(n.secondMeanNs / 1000.0)
                .key("second_variance_us2").value(n.secondVarianceNs2 / 1e6).key("red").value(n.changed).endObject();
        w.endArray().key("links").beginArray();
        for (const FlowEdge& l : pair.edges)
            w.beginObject().key("from").value(std::int64_t(l.from)).key("to").value(std::int64_t(l.to)).key("in_first").value(l.inFirst)
                .key("in_second").value(l.inSecond).endObject();
        w.endArray().endObject();
        std::cout << w.text() << "\n";
        return 0;
    }
    const ComparedCategory& shown = cmp.categories[e.category];
    if (rank > 0)
        std::printf("entry %lld (%s, category %u) against %s\n", static_cast<long long>(rank), compareKindName(e.kind), shown.id,
                    precursor ? ("precursor category " + std::to_string(cmp.categories[precursor->category].id) + " (edit distance " +
                                 std::to_string(precursor->editDistance) + ")").c_str()
                              : "its own baseline requests");
    else
        std::printf("category %u (%s): %lld baseline requests, mean %s ± %s; %lld problem requests, mean %s ± %s\n", shown.id,
                    requestTypeOf(pc, shown).c_str(), static_cast<long long>(shown.baseline.count), formatMs(shown.baseline.meanNs).c_str(),
                    formatMs(std::sqrt(shown.baseline.varianceNs2)).c_str(), static_cast<long long>(shown.problem.count),
                    formatMs(shown.problem.meanNs).c_str(), formatMs(std::sqrt(shown.problem.varianceNs2)).c_str());
    std::printf("first:  %s%s%s\n", pair.firstTitle.c_str(), pair.firstRequest.isValid() ? ", representative " : "",
                requestName(pair.firstRequest).c_str());
    std::printf("second: %s%s%s\n", pair.secondTitle.c_str(), pair.secondRequest.isValid() ? ", representative " : "",
                requestName(pair.secondRequest).c_str());
    // Each side's edges, mean and standard deviation of their critical-path latency.
    std::map<std::uint32_t, std::pair<CategoryStats, CategoryStats>> edges;
    for (const EdgeStats& edge : pair.firstEdges) edges[edge.type].first = edge.stats;
    for (const EdgeStats& edge : pair.secondEdges) edges[edge.type].second = edge.stats;
    std::printf("edges (critical-path latency, mean ± standard deviation (requests)): first | second\n");
    auto cell = [](const CategoryStats& s) {
        return s.count ? formatMs(s.meanNs) + " ± " + formatMs(std::sqrt(s.varianceNs2)) + " (" + std::to_string(s.count) + ")" : std::string("–");
    };
    for (const auto& [type, both] : edges)
        std::printf("  %s -> %s: %s | %s\n", c.typeStart[type].c_str(), c.typeEnd[type].c_str(), cell(both.first).c_str(),
                    cell(both.second).c_str());
    std::size_t onlyFirst = 0, onlySecond = 0;
    for (const FlowNode& n : pair.nodes) {
        onlyFirst += n.inFirst && !n.inSecond;
        onlySecond += n.inSecond && !n.inFirst;
    }
    std::printf("diff: %zu segments only in the first graph, %zu only in the second, of %zu\n", onlyFirst, onlySecond, pair.nodes.size());
    for (const FlowNode& n : pair.nodes)
        if (n.inFirst != n.inSecond) std::printf("  %s %s\n", n.inFirst ? "+" : "-", n.label.c_str());
    return 0;
}

int runCompare(const CompareArgs& args) {
    const std::string& db = args.db;
    if (args.baseline == args.problem)
        return fail(db + ": --baseline and --problem are the same period '" + args.baseline + "'; compare two periods");
    if (args.precursor > 0 && args.entry == 0 && args.tree == 0)
        return fail(db + ": --precursor " + std::to_string(args.precursor) + " needs the entry it is a precursor of: --entry N or --tree N");
    if (args.category > 0 && (args.entry > 0 || args.tree > 0 || args.precursor > 0))
        return fail(db + ": --category shows one category; it does not go with --entry, --tree or --precursor");
    if (args.entry > 0 && args.tree > 0 && args.entry != args.tree)
        return fail(db + ": --entry " + std::to_string(args.entry) + " and --tree " + std::to_string(args.tree) + " name two entries; name one");
    auto store = openAnalysed(db, AnalysisOptions{}, true);
    if (!store) return fail(store.message());
    CompareOptions options;
    if (args.paper && args.bh) return fail(db + ": --paper and --bh are two different corrections; choose one");
    options.paperStatistics = args.paper;
    options.threshold = args.threshold.value_or(args.paper ? CompareOptions::kPaperThreshold : options.threshold);
    options.alpha = args.alpha;
    options.benjaminiHochberg = args.bh;
    options.aaSeed = args.seed;
    auto analysis = loadAnalysis(*store.value());
    if (!analysis) return fail(analysis.message());
    auto compared = comparePeriods(*store.value(), analysis.value(), args.baseline, args.problem, options);
    if (!compared) return fail(compared.message());
    const PeriodComparison& pc = compared.value();
    const RequestCategories& c = *pc.categories;
    const Comparison& cmp = pc.comparison;
    const AaResult& aa = pc.aa;
    if (cmp.categoriesTested == 0 && cmp.entries.empty() && !args.json)
        std::fprintf(stderr, "tracelight-cli: no category has %lld requests in both periods: none was tested for response time\n",
                     static_cast<long long>(options.minSample));
    auto requestName = [&](std::uint32_t entry) {
        const RequestId id = pc.requestIds[entry];
        auto name = tracelight::requestName(*store.value(), id);
        return name ? *name : std::to_string(id.value);
    };
    auto root = [&](const ComparedCategory& cc) { return requestTypeOf(pc, cc); };
    const std::vector<Suspect>& suspects = pc.suspects;  // span data: the services most likely responsible

    // The entry the user picked (--entry N or --tree N), compared with the candidate precursor picked (--precursor).
    std::optional<CompareEntry> picked;
    if (const std::int64_t rank = args.tree > 0 ? args.tree : args.entry; rank > 0) {
        const char* option = args.tree > 0 ? "--tree" : "--entry";
        if (rank > static_cast<std::int64_t>(cmp.entries.size()))
            return fail(db + ": " + option + " " + std::to_string(rank) + ": no such entry (the comparison has " +
                        std::to_string(cmp.entries.size()) + ")");
        picked = cmp.entries[static_cast<std::size_t>(rank - 1)];
        if (args.precursor > 0)
            if (Status chosen = choosePrecursor(cmp, *picked, args.precursor); !chosen)
                return fail(db + ": --precursor " + std::to_string(args.precursor) + ": " + chosen.message());
    }

    if (args.tree > 0) {
        const CompareEntry& e = *picked;
        const std::set<std::string> drop(args.drop.begin(), args.drop.end());
        const RegressionTree tree = explainEntry(*store.value(), pc, e, drop);
        if (tree.attributes.empty())
            return fail(db + ": --tree " + std::to_string(args.tree) + ": the requests have no attributes stored at import");
        const auto sides = entrySides(pc, e);
        const std::uint32_t against = cmp.categories[sides.second.category].id;
        if (args.json) {
            JsonWriter w;
            w.beginObject().key("rank").value(args.tree).key("kind").value(compareKindName(e.kind))
                .key("category").value(std::int64_t(cmp.categories[e.category].id)).key("against").value(std::int64_t(against))
                .key("dropped").beginArray();
            for (const auto& d : drop) w.value(d);
            w.endArray().endObject();
            std::string head = w.text();
            head.pop_back(); // splice the tree in as "tree"
            std::cout << head << ",\"tree\":" << tree.toJson() << "}\n";
        } else {
            std::printf("regression tree for entry %lld (%s, category %u): problem-period requests vs baseline requests of %scategory %u\n",
                        static_cast<long long>(args.tree), compareKindName(e.kind), cmp.categories[e.category].id,
                        sides.second.precursor ? "precursor " : "", against);
            std::fputs(tree.toText().c_str(), stdout);
        }
        return 0;
    }

    if (args.entry > 0) return printEntry(args, *store.value(), analysis.value(), pc, *picked, args.entry);
    if (args.category > 0) {
        // Any category, ranked or not: drawn as its response-time view (its problem requests against its baseline).
        if (args.category > cmp.categories.size())
            return fail(db + ": --category " + std::to_string(args.category) + ": no such category (the comparison has " +
                        std::to_string(cmp.categories.size()) + ")");
        CompareEntry view;
        view.category = args.category - 1;  // categories are in id order
        return printEntry(args, *store.value(), analysis.value(), pc, view, 0);
    }

    if (args.json) {
        JsonWriter w;
        w.beginObject();
        w.key("baseline").beginObject().key("period").value(args.baseline).key("requests").value(cmp.baselineRequests).endObject();
        w.key("problem").beginObject().key("period").value(args.problem).key("requests").value(cmp.problemRequests).endObject();
        w.key("statistics").value(args.paper ? "paper" : args.bh ? "benjamini-hochberg" : "holm").key("threshold").value(options.threshold);
        w.key("entries").beginArray();
        std::int64_t rank = 0;
        for (const auto& e : cmp.entries) {
            const ComparedCategory& cc = cmp.categories[e.category];
            w.beginObject().key("rank").value(++rank).key("kind").value(compareKindName(e.kind)).key("category").value(std::int64_t(cc.id))
                .key("root").value(root(cc)).key("baseline_count").value(cc.baseline.count).key("problem_count").value(cc.problem.count)
                .key("baseline_mean_us").value(cc.baseline.meanNs / 1000.0).key("problem_mean_us").value(cc.problem.meanNs / 1000.0)
                .key("p_value").value(e.pValue).key("p_value_raw").value(e.rawPValue).key("contribution_us").value(e.contributionNs / 1000.0);
            w.key("precursors").beginArray();
            for (const auto& p : e.precursors)
                w.beginObject().key("category").value(std::int64_t(cmp.categories[p.category].id)).key("edit_distance").value(p.editDistance)
                    .endObject();
            w.endArray().key("changed_edges").beginArray();
            for (const auto& edge : e.changedEdges)
                w.beginObject().key("from").value(c.typeStart[edge.type]).key("to").value(c.typeEnd[edge.type])
                    .key("baseline_mean_us").value(edge.baselineMeanNs / 1000.0).key("problem_mean_us").value(edge.problemMeanNs / 1000.0)
                    .key("baseline_variance_us2").value(edge.baselineVarianceNs2 / 1e6)
                    .key("problem_variance_us2").value(edge.problemVarianceNs2 / 1e6).key("p_value").value(edge.pValue).endObject();
            w.endArray().key("edges").beginArray();
            for (const CategoryEdgeStats& edge : categoryEdgeStatistics(c, cc)) {
                w.beginObject().key("from").value(c.typeStart[edge.type]).key("to").value(c.typeEnd[edge.type]);
                writeStats(w.key("baseline"), edge.baseline);
                writeStats(w.key("problem"), edge.problem);
                w.endObject();
            }
            w.endArray().key("problem_requests").beginArray();
            for (auto r : cc.problemEntries) w.value(requestName(r));
            w.endArray().endObject();
        }
        w.endArray();
        w.key("aa").beginObject().key("categories_tested").value(aa.categoriesTested).key("mutations").value(aa.mutations).endObject();
        w.key("variance_test").beginObject().key("baseline_categories").value(cmp.variance.baselineCategories)
            .key("problem_categories").value(cmp.variance.problemCategories).key("tested").value(cmp.variance.tested)
            .key("d").value(cmp.variance.d).key("p_value").value(cmp.variance.pValue).endObject();
        w.key("suspects").beginArray();
        for (const Suspect& s : suspects) {
            w.beginObject().key("service").value(s.service).key("score").value(s.score).key("p_value").value(s.pValue)
                .key("delta_us").value(s.deltaUs).key("evidence").beginArray();
            for (const SuspectEvidence& e : s.evidence) {
                w.beginObject().key("key").value(e.key).key("kind").value(e.hop ? "hop" : "work").key("base_us").value(e.baseUs)
                    .key("problem_us").value(e.targetUs).key("base_slow_share").value(e.baseSlowShare)
                    .key("problem_slow_share").value(e.targetSlowShare).key("base_far_share").value(e.baseFarShare)
                    .key("problem_far_share").value(e.targetFarShare).key("slowdown").value(e.slowdown).key("q_value").value(e.qValue)
                    .key("base_requests").value(e.baseRequests).key("problem_requests").value(e.targetRequests).key("examples").beginArray();
                for (const RequestId id : e.examples) {
                    auto name = tracelight::requestName(*store.value(), id);
                    w.value(name ? *name : std::to_string(id.value));
                }
                w.endArray().endObject();
            }
            w.endArray().endObject();
        }
        w.endArray();
        w.endObject();
        std::cout << w.text() << "\n";
        return 0;
    }
    std::printf("baseline %s: %lld requests; problem %s: %lld requests; %zu categories, %lld tested for response time%s\n",
                args.baseline.c_str(), static_cast<long long>(cmp.baselineRequests), args.problem.c_str(),
                static_cast<long long>(cmp.problemRequests), cmp.categories.size(), static_cast<long long>(cmp.categoriesTested),
                args.bh ? " (Benjamini-Hochberg)" : "");
    std::printf("A/A (the baseline split in two at random): %lld of %lld categories flagged by chance\n",
                static_cast<long long>(aa.mutations), static_cast<long long>(aa.categoriesTested));
    if (cmp.variance.tested)
        std::printf("intra-category variance (KS over %lld and %lld categories' variances): D %.3f, p %.3g\n",
                    static_cast<long long>(cmp.variance.baselineCategories), static_cast<long long>(cmp.variance.problemCategories),
                    cmp.variance.d, cmp.variance.pValue);
    if (!suspects.empty()) {
        std::printf("suspects, most likely first (slowdown of their calls against the same operations in %s):\n", args.baseline.c_str());
        int n = 0;
        for (const Suspect& s : suspects) {
            std::printf("  %d. %-28s x%-7.2f q %-9.3g %+.3f ms per request\n", ++n, s.service.c_str(), s.score, s.pValue, s.deltaUs / 1000);
            for (std::size_t k = 0; k < s.evidence.size() && k < 3; ++k) {
                const SuspectEvidence& e = s.evidence[k];
                std::printf("       %s %s: %.3f -> %.3f ms per request, slow in %.0f%% -> %.0f%%, far in %.0f%% -> %.0f%% of requests (x%.2f, q %.3g)\n",
                            e.hop ? "hop" : "work", e.key.c_str(), e.baseUs / 1000, e.targetUs / 1000, 100 * e.baseSlowShare,
                            100 * e.targetSlowShare, 100 * e.baseFarShare, 100 * e.targetFarShare, e.slowdown, e.qValue);
            }
        }
    }
    if (cmp.entries.empty()) {
        std::printf("no mutations at alpha %g and threshold %g\n", args.alpha, options.threshold);
        return 0;
    }
    std::printf("%4s  %-13s %8s %9s %9s %12s %12s %10s %10s %14s  %s\n", "rank", "kind", "category", "baseline", "problem",
                "base mean", "prob mean", args.paper ? "p (uncorr)" : args.bh ? "p (BH)" : "p (Holm)", "p (raw)", "contribution", "request type");
    std::int64_t rank = 0;
    for (const auto& e : cmp.entries) {
        const ComparedCategory& cc = cmp.categories[e.category];
        std::printf("%4lld  %-13s %8u %9lld %9lld %10.1fms %10.1fms %10.3g %10.3g %12.3fms  %s\n", static_cast<long long>(++rank),
                    compareKindName(e.kind), cc.id, static_cast<long long>(cc.baseline.count), static_cast<long long>(cc.problem.count),
                    cc.baseline.meanNs / 1e6, cc.problem.meanNs / 1e6, e.pValue, e.rawPValue, e.contributionNs / 1e6, root(cc).c_str());
        for (const auto& edge : e.changedEdges)
            std::printf("        red edge %s -> %s: %.3fms -> %.3fms (p %.3g)\n", c.typeStart[edge.type].c_str(), c.typeEnd[edge.type].c_str(),
                        edge.baselineMeanNs / 1e6, edge.problemMeanNs / 1e6, edge.pValue);
        for (std::size_t k = 0; k < e.precursors.size() && k < 3; ++k)
            std::printf("        precursor category %u (edit distance %lld)\n", cmp.categories[e.precursors[k].category].id,
                        static_cast<long long>(e.precursors[k].editDistance));
    }
    return 0;
}

} // namespace

Command addCompareCommand(CLI::App& program) {
    auto args = std::make_shared<CompareArgs>();
    auto* cmd = program.add_subcommand("compare", "problem vs non-problem period: mutations ranked by contribution (Spectroscope)");
    addDatabaseArgument(*cmd, args->db);
    cmd->add_option("--baseline", args->baseline, "the non-problem period")->type_name("P")->required();
    cmd->add_option("--problem", args->problem, "the problem period")->type_name("P")->required();
    cmd->add_option("--threshold", args->threshold,
                    "requests a category must gain to be a structural mutation, besides the count test (default 10; 50 with --paper)")
        ->type_name("N")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--alpha", args->alpha, "significance level of the Kolmogorov-Smirnov tests (default 0.05)")
        ->type_name("A")
        ->check(CLI::Range(1e-12, 0.5));
    cmd->add_flag("--bh", args->bh, "Benjamini-Hochberg control of the false discovery rate across categories and edges (default: Holm)");
    cmd->add_flag("--paper", args->paper,
                  "Spectroscope's own statistics: each KS test at --alpha uncorrected, structural mutations by --threshold alone (50)");
    cmd->add_option("--seed", args->seed, "seed of the A/A split of the baseline (default 1)")->type_name("N");
    cmd->add_option("--tree", args->tree, "explain entry N (its rank) with a C4.5 regression tree over the request attributes")
        ->type_name("N")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--entry", args->entry,
                    "show entry N (its rank) against its compared precursor or baseline: both sides' edges, the diff, the representatives")
        ->type_name("N")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--category", args->category,
                    "show category C, ranked or not: its problem-period requests against its baseline ones, as --entry shows an entry")
        ->type_name("C")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--precursor", args->precursor, "compare entry N (--entry or --tree) with this candidate precursor category")
        ->type_name("CAT")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--drop", args->drop, "leave attribute ATTR out of the --tree (repeatable)")->type_name("ATTR")->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    addJsonFlag(*cmd, args->json, "JSON output (the stable interface); without it, a table for people");
    cmd->footer("Requests are grouped into categories of identical structure. A category whose response times or\n"
                "critical-path edge latencies changed (two-sample Kolmogorov-Smirnov) is a response-time mutation, with\n"
                "its changed edges ('red edges'); one that gained at least --threshold requests, more than chance allows\n"
                "(exact binomial test of its counts), is a structural mutation, with the categories that lost at least\n"
                "--threshold and may have donated them (same root, 1:N, by edit distance). Each family of tests is\n"
                "corrected for multiplicity: Holm (family-wise error), or Benjamini-Hochberg with --bh; --paper uses the\n"
                "paper's own statistics instead (no correction, no count test: more found, and more by chance).\n"
                "Entries are ranked by their contribution to the change in mean latency. 'aa' is the same comparison\n"
                "between two random halves of the baseline: what chance alone flags at this sample size.");
    return {cmd, [args] { return runCompare(*args); }};
}

} // namespace tracelight::cli
