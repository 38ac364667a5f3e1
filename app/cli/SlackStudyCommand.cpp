// slack-study: the Mystery Machine's slack validation and prediction for one category, as JSON.
#include <CLI/CLI.hpp>
#include <iostream>

#include "Commands.h"
#include "tracelight/base/Json.h"
#include "tracelight/store/Periods.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

namespace tracelight::cli {

namespace {

struct SlackStudyArgs {
    std::string db, category, period, where, user;
    int buckets = 20;
    double cutoffUs = -1;  // < 0: the median slack
};

int runSlackStudy(const SlackStudyArgs& args) {
    const std::string& db = args.db;
    auto opened = openAggregates(db);
    if (!opened) return fail(opened.message());
    const std::unique_ptr<TraceStore>& store = opened->store;
    const RequestAggregates& a = opened->aggregates;
    int category = args.category.empty() ? slackStudyCategory(a) : a.categoryIndex(args.category);
    if (category < 0) {
        std::string known;
        for (const auto& c : a.categories) known += (known.empty() ? "" : ", ") + c;
        return fail(db + ": no category '" + args.category + "' (categories: " + known + ")");
    }
    std::vector<std::uint32_t> rows;  // empty: every request
    if (!args.period.empty() || !args.where.empty()) {
        auto selected = selectedRows(*store, db, a.ids, args.period, args.where);
        if (!selected) return fail(selected.message());
        rows = std::move(selected.value());
    }
    std::vector<std::string> users;
    if (!args.user.empty()) users = attributeValues(*store, a.ids, args.user);
    const TimeNs cutoff = args.cutoffUs < 0 ? -1 : static_cast<TimeNs>(std::llround(args.cutoffUs * 1000));
    const SlackStudy study = slackStudy(a, static_cast<std::size_t>(category), cutoff, rows, args.user.empty() ? nullptr : &users, args.buckets);

    JsonWriter w;
    w.beginObject().key("category").value(a.categories[static_cast<std::size_t>(category)])
        .key("requests_with_slack").value(static_cast<std::int64_t>(study.slackNs.size())).key("cutoff_us").value(nsToUs(study.cutoffNs));
    w.key("buckets").beginArray();
    for (const SlackBucket& b : study.buckets)
        w.beginObject().key("slack_from_us").value(nsToUs(b.slackFromNs)).key("slack_to_us").value(nsToUs(b.slackToNs))
            .key("requests").value(b.requests).key("correlation").value(b.correlation).key("slope").value(b.slope).endObject();
    w.endArray();
    if (study.predicted) {
        const SlackPrediction& p = study.prediction;
        w.key("prediction").beginObject().key("user_attribute").value(args.user).key("pairs").value(p.pairs)
            .key("true_positive").value(p.truePositive).key("false_positive").value(p.falsePositive)
            .key("true_negative").value(p.trueNegative).key("false_negative").value(p.falseNegative)
            .key("accuracy").value(p.accuracy()).key("type_one_rate").value(p.typeOneRate()).key("type_two_rate").value(p.typeTwoRate());
        w.key("slack_pairs_us").beginArray();
        for (const auto& [previous, current] : p.slackPairs) {
            w.beginArray();
            for (TimeNs s : {previous, current}) {
                if (s == RequestAggregates::kNoSlack) w.null();
                else w.value(nsToUs(s));
            }
            w.endArray();
        }
        w.endArray().endObject();
    }
    w.endObject();
    std::cout << w.text() << "\n";
    return 0;
}

} // namespace

Command addSlackStudyCommand(CLI::App& program) {
    auto args = std::make_shared<SlackStudyArgs>();
    auto* cmd = program.add_subcommand("slack-study", "slack validation and prediction for one category (Mystery Machine)");
    addDatabaseArgument(*cmd, args->db);
    cmd->add_option("--category", args->category, "the category (default: the one whose slack varies most)")->type_name("C");
    cmd->add_option("--buckets", args->buckets, "equal-population buckets of its slack (default 20, the paper's)")
        ->type_name("N")->check(CLI::Range(1, 1000));
    cmd->add_option("--period", args->period, "only requests of that period")->type_name("P");
    cmd->add_option("--where", args->where, "only requests whose attribute matches: ATTR=V, ATTR!=V, ATTR<N, ATTR>N")->type_name("EXPR");
    cmd->add_option("--user", args->user, "predict each request's slack from the same user's previous one (this attribute names the user)")
        ->type_name("ATTR");
    cmd->add_option("--cutoff-us", args->cutoffUs, "slack means at least this many microseconds (default: the median slack)")
        ->type_name("US")->check(CLI::NonNegativeNumber);
    cmd->footer("Prints {\"category\", \"requests_with_slack\", \"cutoff_us\", \"buckets\": [{\"slack_from_us\", \"slack_to_us\",\n"
                "\"requests\", \"correlation\", \"slope\"}], \"prediction\": {...}}: in each bucket of the category's slack, how\n"
                "closely its time follows the end-to-end latency (Pearson) — high where it has little slack, low where it\n"
                "has much, if the slack is right. With --user, each request's slack is predicted from the same user's\n"
                "previous request by start time: counts, accuracy, type I and II rates and every pair's two slacks.");
    return {cmd, [args] { return runSlackStudy(*args); }};
}

} // namespace tracelight::cli
