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
#include "tracelight/base/Json.h"
#include "tracelight/compare/Compare.h"
#include "tracelight/compare/PeriodComparison.h"
#include "tracelight/compare/RegressionTree.h"
#include "tracelight/compare/Suspects.h"
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
    std::vector<std::string> drop;
};

int runCompare(const CompareArgs& args) {
    const std::string& db = args.db;
    if (args.baseline == args.problem)
        return fail(db + ": --baseline and --problem are the same period '" + args.baseline + "'; compare two periods");
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
        auto name = store.value()->requestName(id);
        return name ? *name : std::to_string(id.value);
    };
    auto root = [&](const ComparedCategory& cc) { return requestTypeOf(pc, cc); };
    const std::vector<Suspect>& suspects = pc.suspects;  // span data: the services most likely responsible

    if (args.tree > 0) {
        if (args.tree > static_cast<std::int64_t>(cmp.entries.size()))
            return fail(db + ": --tree " + std::to_string(args.tree) + ": no such entry (the comparison has " +
                        std::to_string(cmp.entries.size()) + ")");
        const CompareEntry& e = cmp.entries[static_cast<std::size_t>(args.tree - 1)];
        const std::set<std::string> drop(args.drop.begin(), args.drop.end());
        const RegressionTree tree = explainEntry(*store.value(), pc, e, drop);
        if (tree.attributes.empty())
            return fail(db + ": --tree " + std::to_string(args.tree) + ": the requests have no attributes stored at import");
        const std::uint32_t against = e.kind == CompareEntry::Kind::Structural && !e.precursors.empty()
                                          ? cmp.categories[e.precursors.front().category].id
                                          : cmp.categories[e.category].id;
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
                        e.kind == CompareEntry::Kind::Structural && !e.precursors.empty() ? "precursor " : "", against);
            std::fputs(tree.toText().c_str(), stdout);
        }
        return 0;
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
                    .key("p_value").value(edge.pValue).endObject();
            w.endArray().key("problem_requests").beginArray();
            for (auto r : cc.problemEntries) w.value(requestName(r));
            w.endArray().endObject();
        }
        w.endArray();
        w.key("aa").beginObject().key("categories_tested").value(aa.categoriesTested).key("mutations").value(aa.mutations).endObject();
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
                    auto name = store.value()->requestName(id);
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
                "base mean", "prob mean", args.bh ? "p (BH)" : "p (Holm)", "p (raw)", "contribution", "request type");
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
