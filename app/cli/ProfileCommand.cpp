// profile: the average critical-path profile of a set of requests (critical path tracing), or the diff of
// two, exported as JSON, folded stacks, speedscope or pprof.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>

#include "Commands.h"
#include "tracelight/base/Json.h"
#include "tracelight/profile/Profile.h"
#include "tracelight/profile/ProfileAaTable.h"
#include "tracelight/profile/ProfileSelection.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"
#include "tracelight/store/Periods.h"

namespace tracelight::cli {

namespace {

struct ProfileArgs {
    std::string db, period, where, diffBase, format = "json", out;
    double alpha = 0.05;
    std::uint64_t seed = 1;
    bool outliers = false;
    std::size_t sample = kDefaultProfileSample;  // 0: every selected request
    std::vector<std::string> optInMarkers = defaultOptInMarkers();
    bool includeOptIn = false;
    bool aaTable = false;
    std::vector<std::size_t> aaSizes;
    std::vector<double> aaThresholdsMs;  // empty: defaultAaThresholdsNs
    int aaRepeats = 100;
};

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

// The A/A table of the selection (critical path tracing's Table 3) as JSON.
int writeAaTable(const ProfileArgs& args, const InMemoryAnalysis& analysis, const TraceStore& st, const std::vector<std::uint32_t>& rows,
                 const ProfileOptions& options) {
    AaTableOptions table;
    table.sizes = args.aaSizes.empty() ? defaultAaSizes(rows.size()) : args.aaSizes;
    if (table.sizes.empty()) return fail(args.db + ": an A/A table needs at least 4 requests; the selection has " + std::to_string(rows.size()));
    table.thresholdsNs = args.aaThresholdsMs.empty() ? defaultAaThresholdsNs() : std::vector<TimeNs>{};
    for (double ms : args.aaThresholdsMs) table.thresholdsNs.push_back(static_cast<TimeNs>(std::llround(ms * 1e6)));
    table.repeats = args.aaRepeats;
    table.seed = args.seed;
    auto cells = aaFalsePositiveTable(analysis, &st, rows, table, options);
    if (!cells) return fail(args.db + ": " + cells.message());
    JsonWriter w;
    w.beginObject().key("requests").value(static_cast<std::int64_t>(rows.size())).key("repeats").value(std::int64_t(table.repeats));
    w.key("table").beginArray();
    for (const AaTableCell& c : cells.value())
        w.beginObject().key("requests_per_profile").value(static_cast<std::int64_t>(c.size)).key("threshold_us").value(nsToUs(c.thresholdNs))
            .key("false_positive_frames").value(c.meanFrames).key("ci95").beginArray().value(c.ci95Low).value(c.ci95High).endArray()
            .endObject();
    w.endArray().endObject();
    const std::string text = w.text() + "\n";
    if (args.out.empty()) std::cout << text;
    else if (!(std::ofstream(args.out, std::ios::binary) << text)) return fail(args.out + ": cannot write");
    return 0;
}

int runProfile(const ProfileArgs& args) {
    const std::string& db = args.db;
    if (!args.diffBase.empty() && args.format != "json") return fail(db + ": --diff-base writes JSON only (--format json)");
    if (args.aaTable && (!args.diffBase.empty() || args.format != "json")) return fail(db + ": --aa-table writes JSON of one selection (no --diff-base)");
    if (!args.diffBase.empty() && args.diffBase == args.period)
        return fail(db + ": --diff-base and --period are the same period '" + args.period + "'");
    auto own = databaseOrTraceFile(db, true);  // a trace file: its own database
    if (!own) return fail(own.message());
    auto store = openAnalysed(own.value(), AnalysisOptions{}, true);
    if (!store) return fail(store.message());
    const TraceStore& st = *store.value();
    for (const std::string* period : {&args.period, &args.diffBase})
        if (!period->empty())
            if (auto requests = periodSize(st, *period); !requests) return fail(requests.message());
    auto analysis = loadAnalysis(st);
    if (!analysis) return fail(analysis.message());
    const auto& ids = analysis->data.requestIds;

    // --where and --outliers narrow every group; each is a sorted list of analysis rows.
    std::vector<std::vector<std::uint32_t>> filters;
    if (!args.where.empty()) {
        auto matching = requestsWhere(st, args.where);
        if (!matching) return fail(db + ": --where: " + matching.message());
        filters.push_back(rowsOfRequests(ids, matching.value()));
    }
    if (args.outliers) {
        auto aggregates = computeAggregates(analysis.value(), loadCategoryRules(st), 0, nullptr, nullptr, &st);
        if (!aggregates) return fail(db + ": " + aggregates.message());
        filters.push_back(outlierRows(aggregates.value()));
    }
    // Requests an operator asked to trace are no random sample of the traffic: left out unless asked for.
    const std::vector<std::uint8_t> optIn = args.includeOptIn ? std::vector<std::uint8_t>(ids.size(), 0) : optInRows(st, ids, args.optInMarkers);
    std::int64_t optInLeftOut = 0;
    auto rowsOf = [&](const std::string& period) {
        std::vector<std::uint32_t> rows = periodRows(st, ids, period);
        for (const auto& filter : filters) {
            std::vector<std::uint32_t> both;
            std::set_intersection(rows.begin(), rows.end(), filter.begin(), filter.end(), std::back_inserter(both));
            rows = std::move(both);
        }
        const auto before = rows.size();
        std::erase_if(rows, [&](std::uint32_t r) { return optIn[r] != 0; });
        optInLeftOut += static_cast<std::int64_t>(before - rows.size());
        return rows;
    };
    const auto target = rowsOf(args.period);
    auto what = [&](const std::string& period) {
        std::string s = period.empty() ? "the database" : "period '" + period + "'";
        if (!args.where.empty()) s += " where " + args.where;
        return args.outliers ? "the outliers of " + s : s;
    };
    if (target.empty()) return fail(db + ": no analysed requests in " + what(args.period));
    ProfileOptions options;
    options.rules = loadCategoryRules(st);
    // The critical paths analyze cached: read, not computed again (a request without one takes the pass).
    auto paths = loadCachedCriticalPaths(st, analysis->data);
    if (paths) options.paths = &paths.value();

    if (optInLeftOut > 0)
        std::fprintf(stderr, "tracelight-cli: %lld opt-in request%s left out (marked %s; --include-opt-in keeps them)\n",
                     static_cast<long long>(optInLeftOut), optInLeftOut == 1 ? "" : "s", joined(args.optInMarkers).c_str());
    if (args.aaTable) return writeAaTable(args, analysis.value(), st, target, options);

    if (args.diffBase.empty()) {
        auto set = buildProfiles(analysis.value(), &st, {sampleRows(target, args.sample, args.seed)}, options);
        if (!set) return fail(db + ": " + set.message());
        set->groups[0].selected = static_cast<std::int64_t>(target.size());
        std::string text;
        if (args.format == "json") {
            text = profileJson(set.value(), 0) + "\n";
        } else if (args.format == "folded") {
            text = profileFolded(set.value(), 0);
        } else if (args.format == "pprof") {
            auto bytes = profilePprof(set.value(), 0);
            if (!bytes) return fail(db + ": " + bytes.message());
            text = std::move(bytes.value());
        } else {
            text = profileSpeedscope(set.value(), 0, args.period.empty() ? db : args.period) + "\n";
        }
        if (args.out.empty()) {
            std::cout << text;
        } else if (!(std::ofstream(args.out, std::ios::binary) << text)) {
            return fail(args.out + ": cannot write");
        }
        return 0;
    }

    const auto base = rowsOf(args.diffBase);
    if (base.empty()) return fail(db + ": no analysed requests in " + what(args.diffBase));
    // One pass for the diff and its A/A split of the base (how many frames chance alone flags).
    const auto baseSample = sampleRows(base, args.sample, args.seed), targetSample = sampleRows(target, args.sample, args.seed + 1);
    auto [half1, half2] = splitAtRandom(baseSample, args.seed);
    std::vector<std::vector<std::uint32_t>> groups{baseSample, targetSample};
    if (!half1.empty() && !half2.empty()) {
        groups.push_back(std::move(half1));
        groups.push_back(std::move(half2));
    }
    auto set = buildProfiles(analysis.value(), &st, groups, options);
    if (!set) return fail(db + ": " + set.message());
    set->groups[0].selected = static_cast<std::int64_t>(base.size());
    set->groups[1].selected = static_cast<std::int64_t>(target.size());
    const ProfileDiff diff = diffProfiles(set.value(), 0, 1, args.alpha);
    const double aa = groups.size() == 4 ? double(diffProfiles(set.value(), 2, 3, args.alpha).significantFrames) : 0.0;
    const std::string text = profileDiffJson(set.value(), 0, 1, diff, args.diffBase, args.period.empty() ? "(all)" : args.period, aa) + "\n";
    if (args.out.empty()) std::cout << text;
    else if (!(std::ofstream(args.out, std::ios::binary) << text)) return fail(args.out + ": cannot write");
    return 0;
}

} // namespace

Command addProfileCommand(CLI::App& program) {
    auto args = std::make_shared<ProfileArgs>();
    auto* cmd = program.add_subcommand("profile", "the average critical-path profile (flame graph data), or a diff of two periods");
    addDatabaseArgument(*cmd, args->db);
    cmd->add_option("--period", args->period, "only requests of that period (with --diff-base: the target)")->type_name("P");
    cmd->add_option("--where", args->where, "only requests whose attribute matches: ATTR=V, ATTR!=V, ATTR<N, ATTR>N")->type_name("EXPR");
    cmd->add_flag("--outliers", args->outliers,
                  "only the outliers: requests slower than 95% of all (as breakdown's outlier study splits them)");
    cmd->add_option("--diff-base", args->diffBase, "diff against this period (the base): per-frame change and significance")
        ->type_name("B");
    cmd->add_option("--format", args->format, "json (default), folded, speedscope, pprof (gzipped profile.proto)")
        ->type_name("F")
        ->check(CLI::IsMember({"json", "folded", "speedscope", "pprof"}));
    cmd->add_option("--alpha", args->alpha, "false discovery rate of the diff's frames (Benjamini-Hochberg, default 0.05)")
        ->type_name("A")
        ->check(CLI::Range(1e-12, 0.5));
    cmd->add_option("--seed", args->seed, "seed of the sample, the A/A split of the base and the A/A table (default 1)")->type_name("N");
    cmd->add_option("--sample", args->sample, "profile a random sample of at most N of the selected requests (default 100000; 0: all)")
        ->type_name("N");
    cmd->add_option("--opt-in-marker", args->optInMarkers,
                    "a request attribute that marks a request traced on request, left out (default: jaeger-debug-id, sampling.priority)")
        ->type_name("ATTR");
    cmd->add_flag("--include-opt-in", args->includeOptIn, "keep the requests that an opt-in marker marks");
    cmd->add_flag("--aa-table", args->aaTable,
                  "how many frames chance alone moves: random pairs of profiles of the selection, per size and threshold (JSON)");
    cmd->add_option("--aa-sizes", args->aaSizes, "requests per profile of the A/A table (default 100, 1000, 10000, 100000 that fit)")
        ->type_name("N,...")->delimiter(',')->check(CLI::PositiveNumber);
    cmd->add_option("--aa-thresholds-ms", args->aaThresholdsMs, "the A/A table's thresholds in milliseconds (default 1,5,10)")
        ->type_name("MS,...")->delimiter(',')->check(CLI::PositiveNumber);
    cmd->add_option("--aa-repeats", args->aaRepeats, "random pairs per cell of the A/A table (default 100)")->type_name("N")->check(CLI::Range(2, 100000));
    cmd->add_option("--out", args->out, "write to this file instead of standard output")->type_name("FILE");
    cmd->footer("Critical paths merged by identical stack and divided by the number of requests: each frame's mean time\n"
                "on the critical path per request, its share, how often it was critical and the 95% confidence interval\n"
                "of its mean. Stacks: span ancestry (service:operation), network trips named 'caller → callee', blind\n"
                "time as 'blind' under the span that waited; event logs: category > task > segment. With --diff-base,\n"
                "each frame's change in total time is tested (Welch, Benjamini-Hochberg across frames); frames are\n"
                "listed significant first, by relative slowdown of self time; expected_false_positives is what the same diff\n"
                "flags between two random halves of the base. folded, speedscope and pprof values: mean nanoseconds.\n"
                "Each period's requests are a random sample of at most --sample of those selected (\"selected\" says how\n"
                "many); requests marked as traced on request (--opt-in-marker) are left out. --aa-table prints\n"
                "{\"requests\", \"repeats\", \"table\": [{\"requests_per_profile\", \"threshold_us\", \"false_positive_frames\",\n"
                "\"ci95\"}]}: frames whose mean differs by more than the threshold between two random profiles of the selection.\n"
                "DB may be a trace file: its own database (FILE.tldb beside it, or in the cache folder) is imported the\n"
                "first time and used while the file is unchanged.");
    return {cmd, [args] { return runProfile(*args); }};
}

} // namespace tracelight::cli
