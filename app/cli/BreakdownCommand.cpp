// breakdown: the Mystery Machine's aggregate view per category, stratified, with outliers.
#include <iostream>

#include "Commands.h"
#include "tracelight/studies/Aggregates.h"
#include "tracelight/base/Json.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::cli {

namespace {
constexpr char kOtherPeriod = '\x01';  // marks requests outside the chosen period while stratifying

void writeCategories(JsonWriter& w, const Breakdown& b) {
    w.beginArray();
    for (const auto& c : b.categories)
        w.beginObject().key("name").value(c.name).key("summed_us").value(c.summedNs / 1000.0).key("critical_us").value(c.criticalNs / 1000.0)
            .key("critical_share").value(c.criticalShare).endObject();
    w.endArray();
}
} // namespace

int breakdownCommand(const Args& args) {
    std::string db, period, by;
    double fraction = 0.05;
    bool json = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](std::string& out) { return optionValue(args, i, out); };
        if (a == "-h" || a == "--help") {
            std::cout << "Usage: tracelight-cli breakdown DB [--period P] [--by ATTR] [--outliers FRACTION] --json\n\n"
                         "Per category (network, and each host role, or your rules): mean summed delay and mean time on the\n"
                         "critical path per request (blind time is the category 'blind', so critical times add up to the mean\n"
                         "latency); the same per value of a request attribute (numeric ones in quartiles); and the segment\n"
                         "types most over-represented on the critical paths of the slowest requests.\n"
                         "  --period P          only requests of that period\n"
                         "  --by ATTR           stratify by this request attribute (browser, os, connection, bytes, ...)\n"
                         "  --outliers FRACTION the slowest share of requests compared with the rest (default 0.05)\n"
                         "  --json              JSON output (the only output for now)\n";
            return 0;
        } else if (a == "--period") {
            if (!value(period)) return usageError("breakdown", "--period needs a name");
        } else if (a == "--by") {
            if (!value(by)) return usageError("breakdown", "--by needs an attribute");
        } else if (a == "--outliers") {
            std::string v;
            if (!value(v)) return usageError("breakdown", "--outliers needs a fraction");
            try {
                fraction = std::stod(v);
            } catch (...) {
                fraction = -1;
            }
            if (!(fraction > 0 && fraction < 1)) return usageError("breakdown", "--outliers needs a fraction between 0 and 1");
        } else if (a == "--json") {
            json = true;
        } else if (!a.empty() && a[0] == '-') {
            return usageError("breakdown", "unknown option '" + a + "'");
        } else if (db.empty()) {
            db = a;
        } else {
            return usageError("breakdown", "more than one database given");
        }
    }
    if (db.empty()) return usageError("breakdown", "no database given");
    (void)json;
    auto store = openAnalysed(db, AnalysisOptions{}, true);
    if (!store) return fail(store.message());
    auto analysis = loadAnalysis(*store.value());
    if (!analysis) return fail(analysis.message());
    const RequestAggregates a = computeAggregates(analysis.value(), loadCategoryRules(*store.value()));
    std::vector<std::uint32_t> rows;
    if (!period.empty()) {
        rows = periodRows(*store.value(), a.ids, period);
        if (rows.empty()) return fail(db + ": no requests in period '" + period + "'");
    }
    const Breakdown all = breakdown(a, rows);
    JsonWriter w;
    w.beginObject().key("requests").value(all.requests).key("mean_latency_us").value(all.meanLatencyNs / 1000.0).key("categories");
    writeCategories(w, all);
    w.key("strata").beginArray();
    if (!by.empty()) {
        std::vector<std::string> values = attributeValues(*store.value(), a.ids, by);
        if (!rows.empty()) {
            // Stratify only the chosen period: mark the others absent and drop their group.
            std::vector<bool> keep(values.size(), false);
            for (auto r : rows) keep[r] = true;
            for (std::size_t r = 0; r < values.size(); ++r)
                if (!keep[r]) values[r].assign(1, kOtherPeriod);
        }
        for (const auto& s : stratify(a, values)) {
            if (s.value.size() == 1 && s.value[0] == kOtherPeriod) continue;
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
    w.endArray().endObject().endObject();
    std::cout << w.text() << "\n";
    return 0;
}

} // namespace tracelight::cli
