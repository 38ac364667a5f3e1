// aa: an A/A comparison of one period (or every request): its requests split at random in two halves — by
// request, or by user (any attribute: every request of one user in the same half) — their latency percentiles
// with the 95 % interval of the difference, and how many categories the period comparison flags between the
// same halves: what chance alone looks like at this sample size. With --test and --control, a test period
// against its control the same way; with --buckets, all of it per time bucket, with the load and request mix.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "Commands.h"
#include "tracelight/base/Json.h"
#include "tracelight/compare/AaStudy.h"
#include "tracelight/store/Periods.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

namespace tracelight::cli {

namespace {

struct AaArgs {
    std::string db, period, by, test, control;
    std::uint64_t seed = 1;
    int resamples = 1000;
    int buckets = 0;
    bool json = false;
};

void writePercentiles(JsonWriter& w, const std::vector<AaPercentile>& rows) {
    w.beginArray();
    for (const auto& p : rows)
        w.beginObject()
            .key("p").value(static_cast<std::int64_t>(p.p))
            .key("a_us").value(p.aNs / 1000.0)
            .key("b_us").value(p.bNs / 1000.0)
            .key("relative_diff").value(p.relativeDiff)
            .key("ci95").beginArray().value(p.ciLow).value(p.ciHigh).endArray()
            .endObject();
    w.endArray();
}

void printPercentiles(const std::vector<AaPercentile>& rows, const char* a, const char* b) {
    std::printf("%4s %14s %14s %10s   %s\n", "p", a, b, "B vs A", "95% interval of the difference");
    for (const auto& p : rows)
        std::printf("%4d %12.3fms %12.3fms %+9.1f%%   [%+.1f%%, %+.1f%%]\n", p.p, p.aNs / 1e6, p.bNs / 1e6, 100 * p.relativeDiff,
                    100 * p.ciLow, 100 * p.ciHigh);
}

std::string percentText(const std::vector<AaPercentile>& rows, int p) {
    for (const auto& r : rows)
        if (r.p == p) {
            char text[64];
            std::snprintf(text, sizeof text, "%+6.1f%% [%+.0f, %+.0f]", 100 * r.relativeDiff, 100 * r.ciLow, 100 * r.ciHigh);
            return text;
        }
    return "-";
}

int runAa(const AaArgs& args) {
    auto store = openAnalysed(args.db, AnalysisOptions{}, true);
    if (!store) return fail(store.message());
    const TraceStore& st = *store.value();
    const bool versus = !args.test.empty();
    for (const std::string& p : {args.period, args.test, args.control})
        if (!p.empty())
            if (auto requests = periodSize(st, p); !requests) return fail(requests.message());
    if (!args.by.empty() && args.by != kPeriodKey)
        if (Status known = requireAttribute(st, args.by); !known) return fail(args.db + ": --by: " + known.message());
    auto analysis = loadAnalysis(st);
    if (!analysis) return fail(analysis.message());
    const auto& ids = analysis->data.requestIds;

    // The rows, and each one's group: the test against its control, or the halves of one period.
    std::vector<std::uint32_t> rows;
    std::vector<std::uint8_t> inB;
    if (versus) {
        const auto control = periodRows(st, ids, args.control), test = periodRows(st, ids, args.test);
        std::vector<std::uint32_t> both;
        std::set_intersection(control.begin(), control.end(), test.begin(), test.end(), std::back_inserter(both));
        if (!both.empty())
            return fail(args.db + ": periods '" + args.control + "' and '" + args.test + "' share " + std::to_string(both.size()) +
                        " requests; a test and its control must be apart");
        std::merge(control.begin(), control.end(), test.begin(), test.end(), std::back_inserter(rows));
        for (auto r : rows) inB.push_back(std::binary_search(test.begin(), test.end(), r) ? 1 : 0);
    } else {
        rows = periodRows(st, ids, args.period);
    }
    if (rows.size() < 4)
        return fail(args.db + ": " + (versus ? "the two periods have " : args.period.empty() ? std::string("the database has ") : "period '" + args.period + "' has ") +
                    std::to_string(rows.size()) + " analysed requests; an A/A split needs at least 4");
    // One pass gives each request's latency, start and category: the percentiles' groups and the comparison's
    // are the same (both of the indices 0..n-1).
    auto categories = categorizeRequests(analysis.value(), rows);
    if (!categories) return fail(args.db + ": " + categories.message());

    UserSplit users;
    if (!versus && !args.by.empty()) {
        const auto values = attributeValues(st, ids, args.by);
        std::vector<std::string> keys;
        keys.reserve(rows.size());
        for (auto r : rows) keys.push_back(values[r]);
        users = splitByUser(keys, args.seed);
        if (users.requestsA < 2 || users.requestsB < 2)
            return fail(args.db + ": --by " + args.by + ": the users fall " + std::to_string(users.requestsA) + " and " +
                        std::to_string(users.requestsB) + " requests to the two halves; an A/A split needs at least 2 in each");
        inB = users.inB;
    } else if (!versus) {
        inB = randomHalves(rows.size(), args.seed);
    }
    AaStudyOptions options;
    options.seed = args.seed;
    options.resamples = args.resamples;
    options.buckets = args.buckets;
    CompareOptions compare;
    compare.aaSeed = args.seed;
    std::vector<std::string> types;
    if (args.buckets > 0) {
        std::vector<RequestId> entryIds;
        for (auto r : rows) entryIds.push_back(ids[r]);
        types = requestTypeOfEach(st, categories.value(), entryIds);
    }
    const AaStudy study = aaStudy(categories.value(), inB, args.by.empty() || versus ? std::span<const std::uint32_t>{} : users.unit,
                                  types, options, compare);

    const std::string period = args.period.empty() ? "(all)" : args.period;
    if (args.json) {
        JsonWriter w;
        w.beginObject();
        if (versus) {
            w.key("control").beginObject().key("period").value(args.control).key("requests").value(study.requestsA).endObject();
            w.key("test").beginObject().key("period").value(args.test).key("requests").value(study.requestsB).endObject();
        } else {
            w.key("period").value(period);
        }
        w.key("requests").value(static_cast<std::int64_t>(rows.size()));
        w.key("seed").value(static_cast<std::int64_t>(args.seed));
        if (!versus && !args.by.empty())
            w.key("by").beginObject().key("attr").value(args.by)
                .key("users_a").value(users.usersA).key("users_b").value(users.usersB)
                .key("requests_a").value(users.requestsA).key("requests_b").value(users.requestsB)
                .key("without_attribute").value(users.withoutKey).endObject();
        w.key("percentiles");
        writePercentiles(w, study.percentiles);
        w.key("compare").beginObject().key("categories_tested").value(study.compare.categoriesTested)
            .key("mutations").value(study.compare.mutations).endObject();
        if (args.buckets > 0) {
            w.key("types").beginArray();
            for (const auto& t : study.types) w.value(t);
            w.endArray().key("buckets").beginArray();
            for (const auto& b : study.buckets) {
                w.beginObject()
                    .key("start_us").value(double(b.startNs) / 1000.0)
                    .key("end_us").value(double(b.endNs) / 1000.0)
                    .key("requests").value(b.requests)
                    .key("a_requests").value(b.requestsA)
                    .key("b_requests").value(b.requestsB)
                    .key("qps").value(b.qps)
                    .key("mix").beginArray();
                for (auto n : b.mix) w.value(n);
                w.endArray().key("percentiles");
                writePercentiles(w, b.percentiles);
                w.endObject();
            }
            w.endArray();
        }
        w.endObject();
        std::cout << w.text() << "\n";
        return 0;
    }
    if (versus)
        std::printf("%s (test, B: %lld requests) against %s (control, A: %lld requests), %d re-splits for the intervals\n",
                    args.test.c_str(), static_cast<long long>(study.requestsB), args.control.c_str(),
                    static_cast<long long>(study.requestsA), args.resamples);
    else if (!args.by.empty())
        std::printf("A/A of %s by %s: %lld and %lld users (%lld and %lld requests; %lld without %s) split at random (seed %llu), %d re-splits\n",
                    period.c_str(), args.by.c_str(), static_cast<long long>(users.usersA), static_cast<long long>(users.usersB),
                    static_cast<long long>(users.requestsA), static_cast<long long>(users.requestsB), static_cast<long long>(users.withoutKey),
                    args.by.c_str(), static_cast<unsigned long long>(args.seed), args.resamples);
    else
        std::printf("A/A of %s: %zu requests split at random in two halves (seed %llu), %d re-splits for the intervals\n", period.c_str(),
                    rows.size(), static_cast<unsigned long long>(args.seed), args.resamples);
    printPercentiles(study.percentiles, versus ? "control" : "half A", versus ? "test" : "half B");
    std::printf("period comparison between the %s: %lld of %lld categories flagged\n", versus ? "groups" : "halves",
                static_cast<long long>(study.compare.mutations), static_cast<long long>(study.compare.categoriesTested));
    if (args.buckets > 0) {
        std::printf("\nover time (%d buckets of %.3f s):\n%8s %8s %7s %9s  %-26s %-26s %s\n", args.buckets,
                    study.buckets.empty() ? 0.0 : double(study.buckets[0].endNs - study.buckets[0].startNs) / 1e9, "start s", "requests",
                    "A/B", "qps", "p50 B vs A [95%]", "p99 B vs A [95%]", "top type");
        const TimeNs t0 = study.buckets.empty() ? 0 : study.buckets[0].startNs;
        for (const auto& b : study.buckets) {
            const auto top = std::max_element(b.mix.begin(), b.mix.end());
            const std::string type = top == b.mix.end() || *top == 0 ? "-" : study.types[static_cast<std::size_t>(top - b.mix.begin())];
            std::printf("%8.3f %8lld %3lld/%-3lld %9.2f  %-26s %-26s %s\n", double(b.startNs - t0) / 1e9, static_cast<long long>(b.requests),
                        static_cast<long long>(b.requestsA), static_cast<long long>(b.requestsB), b.qps, percentText(b.percentiles, 50).c_str(),
                        percentText(b.percentiles, 99).c_str(), type.c_str());
        }
    }
    return 0;
}

} // namespace

Command addAaCommand(CLI::App& program) {
    auto args = std::make_shared<AaArgs>();
    auto* cmd = program.add_subcommand("aa", "A/A: how far two random halves of one period differ by chance; or a test against its control");
    addDatabaseArgument(*cmd, args->db);
    auto* period = cmd->add_option("--period", args->period, "only the requests of that period (default: all)")->type_name("P");
    auto* by = cmd->add_option("--by", args->by, "split by user: by a hash of this attribute's value, every request of one value in the same half")
                   ->type_name("ATTR");
    auto* test = cmd->add_option("--test", args->test, "instead of an A/A: this period (B) against --control (A)")->type_name("P");
    auto* control = cmd->add_option("--control", args->control, "the control period of --test")->type_name("P");
    test->needs(control);
    control->needs(test);
    test->excludes(period)->excludes(by);
    cmd->add_option("--buckets", args->buckets, "also per time bucket: both groups' percentiles, load (qps) and request mix")
        ->type_name("N")->check(CLI::Range(1, 1000));
    cmd->add_option("--seed", args->seed, "seed of the split and of the intervals' re-splits (default 1)")->type_name("N");
    cmd->add_option("--resamples", args->resamples, "re-splits for the intervals (default 1000)")->type_name("N")->check(CLI::Range(10, 100000));
    addJsonFlag(*cmd, args->json, "JSON (docs/reference/json.md): period, requests, seed, by, percentiles with ci95, compare, types, buckets");
    cmd->footer("Each half's p50, p90, p95 and p99 latency, the relative difference B vs A and its 95% interval (the units, requests\n"
                "or users, dealt again at random many times), and how many categories the period comparison flags between the same\n"
                "two halves. Read every comparison against these figures. --buckets compares them at the same points in time.");
    return {cmd, [args] { return runAa(*args); }};
}

} // namespace tracelight::cli
