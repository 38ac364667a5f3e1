// analyze, model, critical-path, slack: the analysis engine from the command line.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <future>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>

#include "Commands.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/ClockAdjustments.h"
#include "tracelight/analysis/Slack.h"
#include "tracelight/base/Json.h"
#include "tracelight/base/Parallel.h"
#include "tracelight/import/TraceFileContents.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/ResultTables.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"
#include "tracelight/store/Periods.h"

namespace tracelight::cli {

namespace {

struct CommonOptions {
    std::string db;
    std::string request;
    std::string period;  // model: only the requests of this period
    std::optional<std::string> excludeNames;  // analyze, model: the naming filter to keep in DB first
    std::string sqlTables;                    // analyze: "on" or "off" keeps (or stops keeping) the SQL result tables
    bool json = false;
    bool quiet = false;
    AnalysisOptions analysis;
};

int runAnalysis(TraceStore& store, const CommonOptions& o) {
    const bool showProgress = !o.quiet && isatty(STDERR_FILENO);
    ProgressSink progress = [](double fraction, std::string_view stage) {
        std::fprintf(stderr, "\r%3d%%  %-50.*s", static_cast<int>(fraction * 100), static_cast<int>(stage.size()), stage.data());
        std::fflush(stderr);
    };
    auto summary = analyzeStore(store, o.analysis, showProgress ? &progress : nullptr);
    if (showProgress) std::fprintf(stderr, "\r%60s\r", "");
    if (!summary) return fail(summary.message());
    if (!o.quiet) {
        double total = 0;
        for (const auto& s : summary->stages) total += s.seconds;
        std::fprintf(stderr,
                     "analysed %lld requests: %lld segment types, %lld happens-before, %lld mutual-exclusion, %lld pipeline "
                     "relations; %lld hosts skew-corrected\n",
                     static_cast<long long>(summary->requests), static_cast<long long>(summary->segmentTypes),
                     static_cast<long long>(summary->happensBefore), static_cast<long long>(summary->mutualExclusion),
                     static_cast<long long>(summary->pipelines), static_cast<long long>(summary->correctedHosts));
        if (summary->incremental)
            std::fprintf(stderr, "  incremental: the model refined with %lld new requests; critical paths and slack derived for %lld\n",
                         static_cast<long long>(summary->inferredRequests), static_cast<long long>(summary->derivedRequests));
        else
            std::fprintf(stderr, "  full analysis: %s\n", summary->fullBecause.c_str());
        for (const auto& s : summary->stages) std::fprintf(stderr, "  %-33s %8.2f s\n", s.stage.c_str(), s.seconds);
    }
    // What clock-skew correction did, per host pair: every adjustment visible, with the rule that fired.
    if (o.json) {
        const std::vector<ClockAdjustment> pairs = loadClockAdjustments(store);
        JsonWriter w;
        w.beginObject().key("requests").value(summary->requests).key("corrected_hosts").value(summary->correctedHosts);
        w.key("incremental").value(summary->incremental).key("inferred_requests").value(summary->inferredRequests)
            .key("derived_requests").value(summary->derivedRequests).key("full_because").value(summary->fullBecause);
        const std::string filter = store.namingFilter();
        w.key("exclude_names");
        if (filter.empty()) w.null();
        else w.value(filter);
        w.key("sql_tables").value(resultTablesKept(store));
        w.key("clock_skew").beginArray();
        for (const auto& p : pairs)
            w.beginObject().key("client").value(p.client).key("server").value(p.server).key("offset_us").value(nsToUs(p.offsetNs))
                .key("rtt_us").value(nsToUs(p.rttNs)).key("round_trips").value(p.roundTrips).key("outside").value(p.outside)
                .key("rule").value(p.rule).key("applied").value(p.applied).endObject();
        w.endArray().endObject();
        std::cout << w.text() << "\n";
    } else if (!o.quiet) {
        // The adjustments with the most evidence first, at most kShownPairs of them: a corpus of a million
        // page loads has a client per user, and hundreds of thousands of lines help nobody (--json lists all).
        constexpr std::size_t kShownPairs = 20;
        const ClockAdjustmentDigest digest = loadClockAdjustmentDigest(store, kShownPairs);
        for (const ClockAdjustment& p : digest.mostEvidence)
            std::fprintf(stderr, "  clock skew %s -> %s: %s offset %+.3f us over %lld round trips (%lld outside their client), rule %s\n",
                         p.client.c_str(), p.server.c_str(), p.applied ? "applied" : "kept, estimated",
                         nsToUs(p.offsetNs), static_cast<long long>(p.roundTrips), static_cast<long long>(p.outside), p.rule.c_str());
        const auto shown = static_cast<std::int64_t>(digest.mostEvidence.size());
        if (digest.adjusted > shown)
            std::fprintf(stderr, "  clock skew: %lld more host pairs adjusted or estimated (fewer round trips each; analyze --json lists every pair)\n",
                         static_cast<long long>(digest.adjusted - shown));
        if (digest.kept)
            std::fprintf(stderr, "  clock skew: %lld host pairs keep their recorded clocks (rule fits: all %lld round trips fit)\n",
                         static_cast<long long>(digest.kept), static_cast<long long>(digest.keptRoundTrips));
    }
    return 0;
}

// The database of a one-request command, analysed: DB, or a trace file's own database (imported the first time).
Result<std::unique_ptr<TraceStore>> openForRequest(const CommonOptions& o) {
    auto db = databaseOrTraceFile(o.db, o.quiet);
    if (!db) return db.status();
    // A trace file's own database is analysed as a matter of course: no notice for it.
    return openAnalysed(db.value(), o.analysis, o.quiet || db.value() != o.db);
}

// The request a command is about: --request, or the only request the database holds.
Result<std::string> requestOf(const TraceStore& store, const CommonOptions& o) {
    if (!o.request.empty()) return o.request;
    const std::int64_t count = store.requestCount();
    if (count == 1)
        for (const auto& period : listPeriods(store))
            if (const auto ids = requestsInPeriod(store, period.name); !ids.empty())
                if (auto name = requestName(store, ids.front())) return *name;
    return Status::error(o.db + " holds " + std::to_string(count) + " requests: name one with --request ID");
}

// One request's critical path and slack and, for span data, its segments' categories as the breakdown puts them.
struct AnalysedRequest {
    RequestAnalysis analysis;
    std::vector<std::string> categories;
};

// A trace file without a current database of its own is read and analysed in memory, writing nothing (without
// withSlack, a span request's slack is left 0: only its critical path is computed); spans
// over the memory budget, and event logs, are imported into its database as before.
std::optional<Result<AnalysedRequest>> analysedInMemory(const CommonOptions& o, bool withCategories, bool withSlack) {
    if (!isTraceFileWithoutCurrentDatabase(o.db)) return std::nullopt;
    ImportOptions import;
    import.inputs = {o.db};
    auto contents = readSpanFiles(import);
    if (!contents) {
        if (needsDatabase(contents.status())) return std::nullopt;
        return Status::error(o.db + ": " + contents.message());
    }
    if (!o.quiet && contents->tracesWithWarnings)
        std::fprintf(stderr, "tracelight-cli: %s: %lld trace%s with warnings (import it to list them)\n", o.db.c_str(),
                     static_cast<long long>(contents->tracesWithWarnings), contents->tracesWithWarnings == 1 ? "" : "s");
    std::size_t row = 0;
    const auto& names = contents->requestNames;
    if (!o.request.empty()) {
        const auto it = std::find(names.begin(), names.end(), o.request);
        if (it == names.end()) return Status::error(o.db + ": no request '" + o.request + "'");
        row = static_cast<std::size_t>(it - names.begin());
    } else if (names.size() != 1) {
        return Status::error(o.db + " holds " + std::to_string(names.size()) + " requests: name one with --request ID");
    }
    std::string name = names[row];
    std::vector<std::string> spanIds = std::move(contents->spanIds[row]);
    const auto categoriesOf = [&](const TraceData& data) { return requestSegmentCategories(data, row, CategoryRules::defaults()); };
    // The critical path alone: a span request's needs no model (its span tree gives the causal edges). The
    // segments' categories are found on a second thread meanwhile (both only read the requests).
    if (!withSlack) {
        std::future<std::vector<std::string>> beside;
        if (withCategories && resolveThreads(o.analysis.inference.threads) > 1)
            beside = std::async(std::launch::async, [&] { return categoriesOf(contents->data); });
        auto path = requestCriticalPathWithoutModel(contents->data, o.analysis, row, name, std::move(spanIds));
        const bool foundBeside = beside.valid();
        std::vector<std::string> categories = foundBeside ? beside.get() : std::vector<std::string>{};  // before the data moves
        if (path) {
            if (!*path) return path->status();
            AnalysedRequest out{std::move(path->value()), {}};
            if (withCategories && !out.analysis.spanIds.empty())
                out.categories = foundBeside ? std::move(categories) : categoriesOf(contents->data);
            return out;
        }
    }
    auto analysis = analyzeInMemory(std::move(contents->data), o.analysis);
    if (!analysis) return analysis.status();
    auto a = requestAnalysis(analysis.value(), row, std::move(name), std::move(spanIds));
    if (!a) return a.status();
    AnalysedRequest out{std::move(a.value()), {}};
    if (withCategories && !out.analysis.spanIds.empty()) out.categories = categoriesOf(analysis->data);
    return out;
}

// One request's critical path and (withSlack) slack: in memory for a trace file without a current database, else the
// database's cached results (analysing it first when needed).
Result<AnalysedRequest> analysedRequest(const CommonOptions& o, bool withCategories, bool withSlack) {
    if (auto inMemory = analysedInMemory(o, withCategories, withSlack)) return std::move(*inMemory);
    auto store = openForRequest(o);
    if (!store) return store.status();
    auto request = requestOf(*store.value(), o);
    if (!request) return request.status();
    auto a = loadRequestAnalysis(*store.value(), request.value());
    if (!a) return a.status();
    AnalysedRequest out{std::move(a.value()), {}};
    if (withCategories && !out.analysis.spanIds.empty()) {
        auto c = requestSegmentCategories(*store.value(), request.value(), loadCategoryRules(*store.value()));
        if (!c) return c.status();
        out.categories = std::move(c.value());
    }
    return out;
}

// The end of JSON written to standard output as it was made: its last part and a newline, or an error.
int finishStreamed(JsonWriter& w) {
    if (!w.flush() || std::fputc('\n', stdout) == EOF || std::fflush(stdout) != 0) return fail("cannot write the output");
    return 0;
}

void writeSegment(JsonWriter& w, const RequestSegment& s) {
    w.beginObject().key("task").value(s.task).key("start").value(s.startEvent).key("end").value(s.endEvent).endObject();
}

// --exclude-names: the naming filter kept in DB (as --save-rules keeps rules), which makes its results stale
// when it changes; an expression that does not compile changes nothing.
Status saveNamingFilter(const CommonOptions& o) {
    if (!o.excludeNames) return Status::ok();
    if (Status s = TraceStore::checkNamingFilter(*o.excludeNames); !s) return Status::error(o.db + ": " + s.message());
    auto store = openDatabase(o.db, TraceStore::Mode::ReadWrite);
    if (!store) return store.status();
    if (store.value()->namingFilter() == *o.excludeNames) return Status::ok();
    return store.value()->setNamingFilter(*o.excludeNames);
}

int runAnalyze(const CommonOptions& o) {
    if (Status s = saveNamingFilter(o); !s) return fail(s.message());
    if (!o.sqlTables.empty()) {
        auto store = openDatabase(o.db, TraceStore::Mode::ReadWrite);
        if (!store) return fail(store.message());
        if (Status s = keepResultTables(*store.value(), o.sqlTables == "on"); !s) return fail(s.message());
    }
    // The file is checked while the analysis reads it, the events by that read (it writes only after it).
    auto store = openDatabase(o.db, TraceStore::Mode::ReadWrite, TraceStore::WriteCheck::BesideFullRead);
    if (!store) return fail(store.message());
    return runAnalysis(*store.value(), o);
}

int runModel(const CommonOptions& o) {
    if (Status s = saveNamingFilter(o); !s) return fail(s.message());
    auto store = openAnalysed(o.db, o.analysis, o.quiet);
    if (!store) return fail(store.message());
    if (!o.period.empty()) {
        // Inferred now from that period's requests alone, on the analysis's clocks (not cached).
        if (auto size = periodSize(*store.value(), o.period); !size) return fail(size.message());
        auto analysis = loadAnalysis(*store.value());
        if (!analysis) return fail(analysis.message());
        const std::vector<std::uint32_t> rows = periodRows(*store.value(), analysis->data.requestIds, o.period);
        if (rows.empty()) return fail(o.db + ": no requests in period '" + o.period + "'");
        auto json = modelJsonOfRows(analysis.value(), rows, o.analysis);
        if (!json) return fail(json.message());
        std::cout << json.value() << "\n";
        return 0;
    }
    auto json = cachedModelJson(*store.value(), o.analysis);
    if (!json) return fail(json.message());
    std::cout << json.value() << "\n";
    return 0;
}

int runCriticalPath(const CommonOptions& o) {
    auto analysed = analysedRequest(o, true, false);
    if (!analysed) return fail(analysed.message());
    const RequestAnalysis* a = &analysed->analysis;
    const std::vector<std::string>& categories = analysed->categories;
    JsonWriter w(stdout);  // a million-segment path is hundreds of megabytes: written as it is made
    w.beginObject().key("request").value(a->request).key("latency_us").value(nsToUs(a->latencyNs)).key("blind_us").value(nsToUs(a->blindNs));
    w.key("path").beginArray();
    // A span by its id as the input wrote it; null where none owns the time.
    auto writeSpan = [&](std::int32_t span) {
        w.key("span");
        if (span >= 0 && static_cast<std::size_t>(span) < a->spanIds.size()) w.value(a->spanIds[static_cast<std::size_t>(span)]);
        else w.null();
    };
    // An entry only part of whose segment is on the path gives that part.
    forEachPathEntry(a->criticalPath.size(), a->clips, [&](std::size_t k, const PathClip* clip) {
        const auto& s = a->segments[a->criticalPath[k]];
        const TimeNs start = clip ? clip->startNs : s.startNs, duration = clip ? clip->endNs - clip->startNs : s.durationNs;
        w.beginObject().key("segment");
        writeSegment(w, s);
        if (k < a->entrySpan.size()) writeSpan(a->entrySpan[k]);
        if (a->criticalPath[k] < categories.size()) w.key("category").value(categories[a->criticalPath[k]]);
        w.key("start_us").value(nsToUs(start)).key("duration_us").value(nsToUs(duration)).endObject();
    });
    w.endArray().key("blind").beginArray();
    for (const auto& b : a->blind) w.beginObject().key("start_us").value(nsToUs(b.startNs)).key("duration_us").value(nsToUs(b.durationNs)).endObject();
    w.endArray();
    if (!a->spanIds.empty()) {  // span requests: the work the caller did not wait for
        w.key("async").beginArray();
        for (const auto& part : a->async) {
            w.beginObject();
            writeSpan(part.span);
            w.key("start_us").value(nsToUs(part.startNs)).key("duration_us").value(nsToUs(part.endNs - part.startNs)).endObject();
        }
        w.endArray();
    }
    w.endObject();
    return finishStreamed(w);
}

int runSlack(const CommonOptions& o) {
    auto analysed = analysedRequest(o, false, true);
    if (!analysed) return fail(analysed.message());
    const RequestAnalysis* a = &analysed->analysis;
    JsonWriter w(stdout);
    w.beginObject().key("request").value(a->request).key("segments").beginArray();
    for (const auto& s : a->segments) {
        w.beginObject().key("segment");
        writeSegment(w, s);
        w.key("duration_us").value(nsToUs(s.durationNs)).key("slack_us");
        if (s.slackNs == kUnboundedSlack) w.null();  // work nobody waited for (span data)
        else w.value(nsToUs(s.slackNs));
        w.endObject();
    }
    w.endArray().endObject();
    return finishStreamed(w);
}


// The options every analysis command takes: DB, --support-floor, --threads, --json, --quiet; --request ID
// when the command is about one request.
CLI::App* addAnalysisCommand(CLI::App& program, const std::string& name, const std::string& description,
                             const std::string& footer, CommonOptions& o, bool wantsRequest) {
    auto* cmd = program.add_subcommand(name, description);
    addDatabaseArgument(*cmd, o.db);
    if (wantsRequest) cmd->add_option("--request", o.request, "the request's id (default: the only request there is)")->type_name("ID");
    addJsonFlag(*cmd, o.json);
    addAnalysisOptions(*cmd, o.analysis);
    addQuietFlag(*cmd, o.quiet);
    cmd->footer(footer);
    return cmd;
}

void addExcludeNamesOption(CLI::App& cmd, CommonOptions& o) {
    cmd.add_option_function<std::string>("--exclude-names", [&o](const std::string& regex) { o.excludeNames = regex; },
                                         "keep this naming filter in DB: events whose task or event name it finds are left out "
                                         "(test and debug log points; '' clears it)")
        ->type_name("REGEX");
}

} // namespace

Command addAnalyzeCommand(CLI::App& program) {
    auto o = std::make_shared<CommonOptions>();
    auto* cmd = addAnalysisCommand(program, "analyze", "clock skew, causal model, critical paths and slack (cached in the database)",
                                   "Clock-skew correction, causal model inference, critical paths and slack for every request;\n"
                                   "results are cached in DB (replacing earlier ones in one transaction). Prints, per host pair, what\n"
                                   "clock-skew correction did; --json prints {\"requests\", \"corrected_hosts\", \"exclude_names\", \"sql_tables\",\n"
                                   "\"clock_skew\": [{\"client\", "
                                   "\"server\", \"offset_us\", \"rtt_us\", \"round_trips\", \"outside\", \"rule\", \"applied\"}]} with rule one of\n"
                                   "min-rtt (event logs), fits, child-outside-parent, confirmed-pair, inconsistent (span data), and\n"
                                   "\"incremental\", \"inferred_requests\", \"derived_requests\", \"full_because\". Requests added since the last\n"
                                   "analysis refine its model (see docs/concepts/clock-skew-and-causal-model.md); --full analyses all again.\n"
                                   "--exclude-names REGEX keeps a naming filter in DB first: event-log events whose task or event name\n"
                                   "the expression finds (test and debug log points) are left out of every analysis and view ('' clears it).\n"
                                   "--sql-tables on keeps every request's critical path and slack as rows of the tables\n"
                                   "critical_path_segments and slack in DB, rewritten by each analysis, for SQL of your own.",
                                   *o, false);
    cmd->add_flag("--full", o->analysis.full, "analyse every request again instead of refining the last analysis with the new ones");
    addExcludeNamesOption(*cmd, *o);
    cmd->add_option("--sql-tables", o->sqlTables, "keep critical paths and slack as SQL tables in DB (on), or stop (off)")
        ->type_name("on|off")
        ->check(CLI::IsMember({"on", "off"}));
    return {cmd, [o] { return runAnalyze(*o); }};
}

Command addModelCommand(CLI::App& program) {
    auto o = std::make_shared<CommonOptions>();
    auto* cmd = addAnalysisCommand(program, "model", "the inferred causal model",
                                   "Prints {\"requests\": N, \"relations\": [{\"kind\", \"a\", \"b\", \"support\", \"confirmed\"}],\n"
                                   "\"convergence\": [...]}. Analyses DB first when its results are missing or stale. With --period, the\n"
                                   "model inferred from that period's requests alone (the Mystery Machine's model over a window).",
                                   *o, false);
    cmd->add_option("--period", o->period, "infer the model from this period's requests only (not cached)")->type_name("P");
    addExcludeNamesOption(*cmd, *o);
    return {cmd, [o] { return runModel(*o); }};
}

Command addCriticalPathCommand(CLI::App& program) {
    auto o = std::make_shared<CommonOptions>();
    auto* cmd = addAnalysisCommand(program, "critical-path", "one request's critical path",
                                   "Prints {\"request\", \"latency_us\", \"blind_us\", \"path\": [{\"segment\", \"start_us\",\n"
                                   "\"duration_us\"}], \"blind\": [{\"start_us\", \"duration_us\"}]}; times relative to the request's\n"
                                   "first event. For span data each path entry also names its \"span\" (the id as the input wrote\n"
                                   "it) and its \"category\", as the breakdown puts its segment type (a service's work: the service;\n"
                                   "a call's hop: \"caller → callee\"; with category rules, theirs), and \"async\": [{\"span\",\n"
                                   "\"start_us\", \"duration_us\"}] lists the work the caller did not wait for. Analyses DB first when\n"
                                   "its results are missing or stale. DB may be a trace file: span data is read and analysed in memory,\n"
                                   "writing nothing, unless the file's own database (FILE.tldb beside it, or in the cache folder) holds\n"
                                   "its current import; an event log, or spans past 1 GB in memory, are imported into that database.",
                                   *o, true);
    return {cmd, [o] { return runCriticalPath(*o); }};
}

Command addSlackCommand(CLI::App& program) {
    auto o = std::make_shared<CommonOptions>();
    auto* cmd = addAnalysisCommand(program, "slack", "one request's slack per segment",
                                   "Prints {\"request\", \"segments\": [{\"segment\", \"duration_us\", \"slack_us\"}]}: how much each\n"
                                   "segment could grow before the request's latency grows (null: span work nobody waited for).\n"
                                   "Analyses DB first when needed. DB may be a trace file, as for critical-path.",
                                   *o, true);
    return {cmd, [o] { return runSlack(*o); }};
}

} // namespace tracelight::cli
