// analyze, model, critical-path, slack: the analysis engine from the command line.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "Commands.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/base/Json.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::cli {

namespace {

struct CommonOptions {
    std::string db;
    std::string request;
    bool json = false;
    bool quiet = false;
    AnalysisOptions analysis;
};

// Parses the options shared by the analysis commands; returns -1 to go on, else an exit status.
int parseCommon(const std::string& command, const Args& args, CommonOptions& o, bool wantsRequest, const char* help) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto number = [&](std::int64_t& out) {
            if (i + 1 >= args.size()) return false;
            try {
                out = std::stoll(args[++i]);
                return out >= 0;
            } catch (...) {
                return false;
            }
        };
        if (a == "-h" || a == "--help") {
            std::cout << help;
            return 0;
        } else if (a == "--json") {
            o.json = true;
        } else if (a == "--quiet") {
            o.quiet = true;
        } else if (a == "--support-floor") {
            if (!number(o.analysis.inference.supportFloor)) return usageError(command, "--support-floor needs a whole number");
        } else if (a == "--threads") {
            std::int64_t t = 0;
            if (!number(t)) return usageError(command, "--threads needs a whole number");
            o.analysis.inference.threads = static_cast<unsigned>(t);
        } else if (a == "--request" && wantsRequest) {
            if (i + 1 >= args.size()) return usageError(command, "--request needs an id");
            o.request = args[++i];
        } else if (!a.empty() && a[0] == '-') {
            return usageError(command, "unknown option '" + a + "'");
        } else if (o.db.empty()) {
            o.db = a;
        } else {
            return usageError(command, "more than one database given");
        }
    }
    if (o.db.empty()) return usageError(command, "no database given");
    if (wantsRequest && o.request.empty()) return usageError(command, "--request ID is required");
    return -1;
}

const char* kAnalysisOptionsHelp =
    "  --support-floor N  relations seen in fewer than N requests are unconfirmed (default 10)\n"
    "  --threads N        worker threads (default: one per core)\n";

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
        for (const auto& s : summary->stages) std::fprintf(stderr, "  %-28s %8.2f s\n", s.stage.c_str(), s.seconds);
    }
    return 0;
}

// One request's cached critical path and slack, analysing the database first when needed.
Result<RequestAnalysis> analysedRequest(const CommonOptions& o) {
    auto store = openAnalysed(o.db, o.analysis, o.quiet);
    if (!store) return store.status();
    return loadRequestAnalysis(*store.value(), o.request);
}

void writeSegment(JsonWriter& w, const RequestSegment& s) {
    w.beginObject().key("task").value(s.task).key("start").value(s.startEvent).key("end").value(s.endEvent).endObject();
}

} // namespace

Result<std::unique_ptr<TraceStore>> openAnalysed(const std::string& db, const AnalysisOptions& options, bool quiet) {
    auto store = TraceStore::open(db, TraceStore::Mode::ReadWrite);
    if (!store) return store;
    if (!analysisIsCurrent(*store.value(), options)) {
        if (!quiet) std::fprintf(stderr, "tracelight-cli: %s has no current analysis; analysing it now\n", db.c_str());
        auto analysed = analyzeStore(*store.value(), options);
        if (!analysed) return analysed.status();
    }
    return store;
}

int analyzeCommand(const Args& args) {
    CommonOptions o;
    const std::string help = std::string("Usage: tracelight-cli analyze DB [options]\n\n"
                                         "Clock-skew correction, causal model inference, critical paths and slack for every\n"
                                         "request; results are cached in DB (replacing earlier ones in one transaction).\n\n"
                                         "Options:\n") + kAnalysisOptionsHelp +
                             "  --quiet            no progress or timings on stderr\n  -h, --help         this help\n";
    if (int r = parseCommon("analyze", args, o, false, help.c_str()); r >= 0) return r;
    auto store = TraceStore::open(o.db, TraceStore::Mode::ReadWrite);
    if (!store) return fail(store.message());
    return runAnalysis(*store.value(), o);
}

int modelCommand(const Args& args) {
    CommonOptions o;
    const std::string help = std::string("Usage: tracelight-cli model DB --json [options]\n\n"
                                         "The inferred causal model: {\"requests\": N, \"relations\": [{\"kind\", \"a\", \"b\", \"support\",\n"
                                         "\"confirmed\"}], \"convergence\": [...]}. Analyses DB first when needed.\n\nOptions:\n") +
                             kAnalysisOptionsHelp + "  --json             JSON output (the only output for now)\n";
    if (int r = parseCommon("model", args, o, false, help.c_str()); r >= 0) return r;
    auto store = openAnalysed(o.db, o.analysis, o.quiet);
    if (!store) return fail(store.message());
    auto json = cachedModelJson(*store.value(), o.analysis);
    if (!json) return fail(json.message());
    std::cout << json.value() << "\n";
    return 0;
}

int criticalPathCommand(const Args& args) {
    CommonOptions o;
    const std::string help = std::string("Usage: tracelight-cli critical-path DB --request ID --json\n\n"
                                         "{\"request\", \"latency_us\", \"blind_us\", \"path\": [{\"segment\", \"start_us\", \"duration_us\"}],\n"
                                         "\"blind\": [{\"start_us\", \"duration_us\"}]}; times relative to the request's first event.\n\nOptions:\n") +
                             kAnalysisOptionsHelp;
    if (int r = parseCommon("critical-path", args, o, true, help.c_str()); r >= 0) return r;
    auto a = analysedRequest(o);
    if (!a) return fail(a.message());
    JsonWriter w;
    w.beginObject().key("request").value(a->request).key("latency_us").value(nsToUs(a->latencyNs)).key("blind_us").value(nsToUs(a->blindNs));
    w.key("path").beginArray();
    for (auto v : a->criticalPath) {
        const auto& s = a->segments[v];
        w.beginObject().key("segment");
        writeSegment(w, s);
        w.key("start_us").value(nsToUs(s.startNs)).key("duration_us").value(nsToUs(s.durationNs)).endObject();
    }
    w.endArray().key("blind").beginArray();
    for (const auto& b : a->blind) w.beginObject().key("start_us").value(nsToUs(b.startNs)).key("duration_us").value(nsToUs(b.durationNs)).endObject();
    w.endArray().endObject();
    std::cout << w.text() << "\n";
    return 0;
}

int slackCommand(const Args& args) {
    CommonOptions o;
    const std::string help = std::string("Usage: tracelight-cli slack DB --request ID --json\n\n"
                                         "{\"request\", \"segments\": [{\"segment\", \"duration_us\", \"slack_us\"}]}: how much each segment\n"
                                         "could grow before the request's latency grows.\n\nOptions:\n") + kAnalysisOptionsHelp;
    if (int r = parseCommon("slack", args, o, true, help.c_str()); r >= 0) return r;
    auto a = analysedRequest(o);
    if (!a) return fail(a.message());
    JsonWriter w;
    w.beginObject().key("request").value(a->request).key("segments").beginArray();
    for (const auto& s : a->segments) {
        w.beginObject().key("segment");
        writeSegment(w, s);
        w.key("duration_us").value(nsToUs(s.durationNs)).key("slack_us").value(nsToUs(s.slackNs)).endObject();
    }
    w.endArray().endObject();
    std::cout << w.text() << "\n";
    return 0;
}

} // namespace tracelight::cli
