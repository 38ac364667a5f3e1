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
#include "tracelight/compare/RegressionTree.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

namespace tracelight::cli {

namespace {

struct CompareArgs {
    std::string db, baseline, problem;
    double threshold = 50;
    double alpha = 0.05;
    bool bh = false;
    bool json = false;
    std::uint64_t seed = 1;
    std::int64_t tree = 0; // entry rank to explain with a regression tree (0: none)
    std::vector<std::string> drop;
};

bool parseNumber(const std::string& s, double& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && std::isfinite(out);
}

// Rows of the request attributes stored at import: positive = the entry's problem-period requests,
// negative = its top precursor's baseline requests (structural) or its own baseline requests
// (response time). An attribute whose every value is a number is numeric.
RegressionTree explainEntry(const TraceStore& store, const std::vector<RequestId>& ids, const RequestCategories& c,
                            const Comparison& cmp, const CompareEntry& e, const std::set<std::string>& drop) {
    const ComparedCategory& cc = cmp.categories[e.category];
    const std::vector<std::uint32_t>& negatives =
        e.kind == CompareEntry::Kind::Structural && !e.precursors.empty() ? cmp.categories[e.precursors.front().category].baselineEntries
                                                                           : cc.baselineEntries;
    std::vector<std::pair<std::map<std::string, std::string>, bool>> raw;
    std::map<std::string, bool> numeric; // name -> all values numeric
    auto add = [&](const std::vector<std::uint32_t>& entries, bool positive) {
        for (auto entry : entries) {
            std::map<std::string, std::string> values;
            for (auto& [k, v] : store.requestAttributes(ids[c.rows[entry]])) {
                double d;
                auto [it, fresh] = numeric.emplace(k, true);
                if (!parseNumber(v, d)) it->second = false;
                values[k] = v;
            }
            raw.push_back({std::move(values), positive});
        }
    };
    add(cc.problemEntries, true);
    add(negatives, false);
    std::vector<TreeAttribute> attrs;
    for (auto& [name, isNumber] : numeric)
        attrs.push_back({name, isNumber ? TreeAttributeKind::Numeric : TreeAttributeKind::Categorical});
    std::vector<TreeRow> rows;
    rows.reserve(raw.size());
    for (auto& [values, positive] : raw) {
        TreeRow row;
        row.positive = positive;
        for (const auto& a : attrs) {
            auto it = values.find(a.name);
            if (it == values.end()) row.values.push_back(TreeValue::none());
            else if (a.kind == TreeAttributeKind::Numeric) row.values.push_back(TreeValue::numeric(std::strtod(it->second.c_str(), nullptr)));
            else row.values.push_back(TreeValue::category(it->second));
        }
        rows.push_back(std::move(row));
    }
    TreeOptions opt;
    opt.dropped = drop;
    opt.classNames[0] = e.kind == CompareEntry::Kind::Structural && !e.precursors.empty() ? "precursor" : "baseline";
    opt.classNames[1] = "problem";
    return buildRegressionTree(attrs, rows, opt);
}

const char* kindName(CompareEntry::Kind k) { return k == CompareEntry::Kind::Structural ? "structural" : "response_time"; }

int runCompare(const CompareArgs& args) {
    const std::string& db = args.db;
    if (args.baseline == args.problem)
        return fail(db + ": --baseline and --problem are the same period '" + args.baseline + "'; compare two periods");
    auto store = openAnalysed(db, AnalysisOptions{}, true);
    if (!store) return fail(store.message());
    auto info = store.value()->info();
    if (!info) return fail(info.message());
    CompareOptions options;
    options.threshold = args.threshold;
    options.alpha = args.alpha;
    options.benjaminiHochberg = args.bh;
    options.aaSeed = args.seed;
    for (const std::string* period : {&args.baseline, &args.problem}) {
        const PeriodInfo* found = nullptr;
        for (const auto& p : info->periods)
            if (p.name == *period) found = &p;
        if (!found) {
            std::string known;
            for (const auto& p : info->periods) known += (known.empty() ? "" : ", ") + p.name;
            return fail(db + ": no period '" + *period + "' (periods: " + (known.empty() ? "none" : known) + ")");
        }
        if (found->requests == 0) return fail(db + ": period '" + *period + "' holds no requests");
        if (found->requests < options.minSample)
            return fail(db + ": period '" + *period + "' holds " + std::to_string(found->requests) + " requests, too few to test (at least " +
                        std::to_string(options.minSample) + ")");
    }
    auto analysis = loadAnalysis(*store.value());
    if (!analysis) return fail(analysis.message());
    const auto& ids = analysis->data.requestIds;
    const auto base = periodRows(*store.value(), ids, args.baseline);
    const auto prob = periodRows(*store.value(), ids, args.problem);
    if (base.empty() || prob.empty())
        return fail(db + ": period '" + (base.empty() ? args.baseline : args.problem) + "' has no analysed requests");
    std::vector<std::uint32_t> rows(base);
    rows.insert(rows.end(), prob.begin(), prob.end());
    auto categories = categorizeRequests(analysis.value(), rows);
    if (!categories) return fail(db + ": " + categories.message());
    const RequestCategories& c = categories.value();
    std::vector<std::uint32_t> baseline(base.size()), problem(prob.size());
    for (std::uint32_t i = 0; i < base.size(); ++i) baseline[i] = i;
    for (std::uint32_t i = 0; i < prob.size(); ++i) problem[i] = static_cast<std::uint32_t>(base.size() + i);
    const Comparison cmp = compareCategories(c, baseline, problem, options);
    const AaResult aa = aaSplit(c, baseline, options);
    if (cmp.categoriesTested == 0 && cmp.entries.empty() && !args.json)
        std::fprintf(stderr, "tracelight-cli: no category has %lld requests in both periods: none was tested for response time\n",
                     static_cast<long long>(options.minSample));
    auto requestName = [&](std::uint32_t entry) {
        const RequestId id = ids[c.rows[entry]];
        auto name = store.value()->requestName(id);
        return name ? *name : std::to_string(id.value);
    };
    auto root = [&](const ComparedCategory& cc) { return cc.info ? cc.info->root : std::string(); };

    if (args.tree > 0) {
        if (args.tree > static_cast<std::int64_t>(cmp.entries.size()))
            return fail(db + ": --tree " + std::to_string(args.tree) + ": no such entry (the comparison has " +
                        std::to_string(cmp.entries.size()) + ")");
        const CompareEntry& e = cmp.entries[static_cast<std::size_t>(args.tree - 1)];
        const std::set<std::string> drop(args.drop.begin(), args.drop.end());
        const RegressionTree tree = explainEntry(*store.value(), ids, c, cmp, e, drop);
        if (tree.attributes.empty())
            return fail(db + ": --tree " + std::to_string(args.tree) + ": the requests have no attributes stored at import");
        const std::uint32_t against = e.kind == CompareEntry::Kind::Structural && !e.precursors.empty()
                                          ? cmp.categories[e.precursors.front().category].id
                                          : cmp.categories[e.category].id;
        if (args.json) {
            JsonWriter w;
            w.beginObject().key("rank").value(args.tree).key("kind").value(kindName(e.kind))
                .key("category").value(std::int64_t(cmp.categories[e.category].id)).key("against").value(std::int64_t(against))
                .key("dropped").beginArray();
            for (const auto& d : drop) w.value(d);
            w.endArray().endObject();
            std::string head = w.text();
            head.pop_back(); // splice the tree in as "tree"
            std::cout << head << ",\"tree\":" << tree.toJson() << "}\n";
        } else {
            std::printf("regression tree for entry %lld (%s, category %u): problem-period requests vs baseline requests of %scategory %u\n",
                        static_cast<long long>(args.tree), kindName(e.kind), cmp.categories[e.category].id,
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
        w.key("entries").beginArray();
        std::int64_t rank = 0;
        for (const auto& e : cmp.entries) {
            const ComparedCategory& cc = cmp.categories[e.category];
            w.beginObject().key("rank").value(++rank).key("kind").value(kindName(e.kind)).key("category").value(std::int64_t(cc.id))
                .key("root").value(root(cc)).key("baseline_count").value(cc.baseline.count).key("problem_count").value(cc.problem.count)
                .key("baseline_mean_us").value(cc.baseline.meanNs / 1000.0).key("problem_mean_us").value(cc.problem.meanNs / 1000.0)
                .key("p_value").value(e.pValue).key("contribution_us").value(e.contributionNs / 1000.0);
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
    if (cmp.entries.empty()) {
        std::printf("no mutations at alpha %g and threshold %g\n", args.alpha, args.threshold);
        return 0;
    }
    std::printf("%4s  %-13s %8s %9s %9s %12s %12s %10s %14s  %s\n", "rank", "kind", "category", "baseline", "problem",
                "base mean", "prob mean", "p", "contribution", "root");
    std::int64_t rank = 0;
    for (const auto& e : cmp.entries) {
        const ComparedCategory& cc = cmp.categories[e.category];
        std::printf("%4lld  %-13s %8u %9lld %9lld %10.1fms %10.1fms %10.3g %12.3fms  %s\n", static_cast<long long>(++rank),
                    kindName(e.kind), cc.id, static_cast<long long>(cc.baseline.count), static_cast<long long>(cc.problem.count),
                    cc.baseline.meanNs / 1e6, cc.problem.meanNs / 1e6, e.pValue, e.contributionNs / 1e6, root(cc).c_str());
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
    cmd->add_option("--threshold", args->threshold, "requests a category must gain to be a structural mutation (default 50)")
        ->type_name("N")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--alpha", args->alpha, "significance level of the Kolmogorov-Smirnov tests (default 0.05)")
        ->type_name("A")
        ->check(CLI::Range(1e-12, 0.5));
    cmd->add_flag("--bh", args->bh, "Benjamini-Hochberg control of the false discovery rate across categories and edges");
    cmd->add_option("--seed", args->seed, "seed of the A/A split of the baseline (default 1)")->type_name("N");
    cmd->add_option("--tree", args->tree, "explain entry N (its rank) with a C4.5 regression tree over the request attributes")
        ->type_name("N")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--drop", args->drop, "leave attribute ATTR out of the --tree (repeatable)")->type_name("ATTR")->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    addJsonFlag(*cmd, args->json, "JSON output (the stable interface); without it, a table for people");
    cmd->footer("Requests are grouped into categories of identical structure. A category whose response times changed\n"
                "(two-sample Kolmogorov-Smirnov) is a response-time mutation, with its changed critical-path edges\n"
                "('red edges'); one that gained at least --threshold requests is a structural mutation, with the\n"
                "categories that lost requests and may have donated them (same root, 1:N, by edit distance).\n"
                "Entries are ranked by their contribution to the change in mean latency. 'aa' is the same comparison\n"
                "between two random halves of the baseline: what chance alone flags at this sample size.");
    return {cmd, [args] { return runCompare(*args); }};
}

} // namespace tracelight::cli
