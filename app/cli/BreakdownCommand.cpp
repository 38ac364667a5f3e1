// breakdown: the Mystery Machine's aggregate view per category, stratified, with outliers.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "Commands.h"
#include "tracelight/studies/Aggregates.h"
#include "tracelight/studies/DerivedAttributes.h"
#include "tracelight/base/Json.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::cli {

namespace {
void writeCategories(JsonWriter& w, const Breakdown& b) {
    w.beginArray();
    for (const auto& c : b.categories)
        w.beginObject().key("name").value(c.name).key("summed_us").value(c.summedNs / 1000.0).key("critical_us").value(c.criticalNs / 1000.0)
            .key("critical_share").value(c.criticalShare).endObject();
    w.endArray();
}

struct BreakdownArgs {
    std::string db, period, by;
    std::vector<std::string> derive;  // NAME=EXPR
    bool saveDerived = false;
    double fraction = 0.05;
    int quantiles = 4;
    bool json = false;
};

int runBreakdown(const BreakdownArgs& args) {
    const std::string& db = args.db;
    const std::string& period = args.period;
    const std::string& by = args.by;
    const double fraction = args.fraction;
    std::vector<DerivedAttribute> derived;
    for (const std::string& definition : args.derive) {
        auto d = parseDerivedAttribute(definition);
        if (!d) return fail("--derive: " + d.message());
        derived.push_back(std::move(d.value()));
    }
    if (args.saveDerived) {
        // Kept in DB (replacing those kept before), so --by and the app's Stratify by offer them from now on.
        auto writable = openDatabase(db, TraceStore::Mode::ReadWrite);
        if (!writable) return fail(writable.message());
        if (Status s = saveDerivedAttributes(*writable.value(), derived); !s) return fail(db + ": " + s.message());
    }
    auto opened = openAggregates(db);
    if (!opened) return fail(opened.message());
    const std::unique_ptr<TraceStore>& store = opened->store;
    const InMemoryAnalysis* analysis = &opened->analysis;
    const RequestAggregates& a = opened->aggregates;
    std::vector<std::uint32_t> rows;
    if (!period.empty()) {
        rows = periodRows(*store, a.ids, period);
        if (rows.empty()) return fail(db + ": no requests in period '" + period + "'");
    }
    const Breakdown all = breakdown(a, rows);
    JsonWriter w;
    w.beginObject().key("requests").value(all.requests).key("mean_latency_us").value(all.meanLatencyNs / 1000.0).key("categories");
    writeCategories(w, all);
    w.key("strata").beginArray();
    if (!by.empty()) {
        auto read = requestAttributeValues(*store, a, by, derived);
        if (!read) return fail(db + ": " + read.message());
        const std::vector<std::string>& values = read.value();
        // Only the chosen period's requests (rows; empty = all), cut by the quantiles of their own values.
        for (const auto& s : stratify(a, values, args.quantiles, rows)) {
            w.beginObject().key("attr").value(by).key("value").value(s.value).key("requests").value(s.breakdown.requests)
                .key("categories");
            writeCategories(w, s.breakdown);
            w.endObject();
        }
    }
    w.endArray();
    const Outliers o = outliers(a, fraction, 20, rows);
    w.key("outliers").beginObject().key("threshold_us").value(nsToUs(o.thresholdNs)).key("segments").beginArray();
    for (const auto& s : o.segments) {
        const SegmentType& t = analysis->data.segmentTypes[s.type];
        w.beginObject().key("segment").beginObject().key("task").value(analysis->data.label(t.task.value))
            .key("start").value(analysis->data.label(t.startEvent.value)).key("end").value(analysis->data.label(t.endEvent.value))
            .endObject().key("outlier_share").value(s.outlierShare).key("rest_share").value(s.restShare).key("ratio").value(s.ratio)
            .endObject();
    }
    w.endArray().key("slack").beginArray();
    for (const auto& s : o.slack)
        w.beginObject().key("category").value(a.categories[s.category]).key("outlier_requests").value(s.outlierRequests)
            .key("rest_requests").value(s.restRequests).key("outlier_median_us").value(nsToUs(s.outlierMedianNs))
            .key("rest_median_us").value(nsToUs(s.restMedianNs)).key("ratio").value(s.ratio).endObject();
    w.endArray().endObject().endObject();
    std::cout << w.text() << "\n";
    return 0;
}

} // namespace

Command addBreakdownCommand(CLI::App& program) {
    auto args = std::make_shared<BreakdownArgs>();
    auto* cmd = program.add_subcommand("breakdown", "per-category delay vs critical path, strata, outliers");
    addDatabaseArgument(*cmd, args->db);
    cmd->add_option("--period", args->period, "only requests of that period")->type_name("P");
    cmd->add_option("--by", args->by, "stratify by this request attribute (browser, os, connection, bytes, ...; period: by period)")
        ->type_name("ATTR");
    cmd->add_option("--quantiles", args->quantiles, "a numeric --by attribute in this many equal-population ranges (default 4)")
        ->type_name("N")
        ->check(CLI::Range(2, 100));
    cmd->add_option("--outliers", args->fraction, "the slowest share of requests compared with the rest (default 0.05)")
        ->type_name("FRACTION")
        ->check(CLI::Validator(
            [](std::string& v) {
                char* end = nullptr;
                const double f = std::strtod(v.c_str(), &end);
                return end != v.c_str() && *end == '\0' && f > 0 && f < 1 ? std::string()
                                                                           : "needs a fraction between 0 and 1, not '" + v + "'";
            },
            "", "fraction"));
    cmd->add_option("--derive", args->derive,
                    "a derived attribute NAME=EXPR for --by: + - * / over numbers, attributes, time(C), critical(C) and "
                    "latency() in seconds (bandwidth=bytes/time(network)); repeatable")
        ->type_name("NAME=EXPR");
    cmd->add_flag("--save-derived", args->saveDerived, "keep the --derive attributes in DB (replacing those kept), for --by and the app");
    addJsonFlag(*cmd, args->json);
    cmd->footer("Per category (network, and each host role, or your rules): mean summed delay and mean time on the\n"
                "critical path per request (blind time is the category 'blind', so critical times add up to the mean\n"
                "latency); the same per value of a request attribute (numeric ones in quartiles or --quantiles, of the\n"
                "period's requests when --period is given; a derived attribute, given by --derive or kept in DB, is\n"
                "computed per request); the segment types most over-represented on the critical paths of the slowest\n"
                "requests, and each category's median slack in them against the rest's.\n"
                "Analyses DB first when its results are missing or stale.");
    return {cmd, [args] { return runBreakdown(*args); }};
}

} // namespace tracelight::cli
