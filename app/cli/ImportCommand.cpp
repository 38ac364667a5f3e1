#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "Commands.h"
#include "tracelight/store/NewDatabaseGuard.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::cli {

namespace {
struct ImportArgs {
    std::string db, format, map, timeUnit, rootMarker, period;
    std::vector<std::string> inputs;
    bool quiet = false;
};

int runImport(const ImportArgs& args) {
    ImportOptions options;
    options.inputs = args.inputs;
    options.period = args.period;
    if (!args.format.empty()) options.format = *inputFormatFromName(args.format);  // checked while parsing
    if (!args.map.empty() || !args.timeUnit.empty() || !args.rootMarker.empty()) {
        auto mapping = SpanCsvMapping::parse(args.map, args.timeUnit);
        if (!mapping) return usageError("import", mapping.message());
        if (!args.rootMarker.empty()) mapping->rootMarker = args.rootMarker;
        if (args.map.empty()) mapping->columns.clear();  // only the unit given: columns are still guessed
        options.spanColumns = mapping.value();
    }
    const std::string& db = args.db;
    const bool quiet = args.quiet;

    // Inputs that cannot be read are reported before the database is created or opened.
    for (const auto& input : options.inputs) {
        std::error_code ec;
        if (std::filesystem::is_directory(input, ec))
            return fail(input + ": is a directory, not a trace file (name the files in it)");
        if (!std::filesystem::is_regular_file(input, ec)) return fail(input + ": no such file");
    }
    // A failed import into a new path removes the files it created (never one that existed before).
    NewDatabaseGuard guard(db);
    auto store = openDatabase(db, TraceStore::Mode::Create);
    if (!store) return fail(store.message());

    const bool showProgress = !quiet && isatty(STDERR_FILENO);
    ProgressSink progress = [&](double fraction, std::string_view stage) {
        std::fprintf(stderr, "\r%3d%%  %-60.*s", static_cast<int>(fraction * 100), static_cast<int>(stage.size()),
                     stage.data());
        std::fflush(stderr);
    };
    const auto started = std::chrono::steady_clock::now();
    auto summary = importTraces(*store.value(), options, showProgress ? &progress : nullptr);
    if (showProgress) std::fprintf(stderr, "\r%70s\r", "");
    if (!summary) {
        store.value().reset();  // closed before its files are removed
        return fail(summary.message());
    }
    guard.keep();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!quiet) {
        std::fprintf(stderr, "imported %lld %s, %lld events into period '%s' in %.2f s (%.0f events/s)\n",
                     static_cast<long long>(summary->requests), summary->requests == 1 ? "request" : "requests",
                     static_cast<long long>(summary->events),
                     summary->period.c_str(), seconds, seconds > 0 ? double(summary->events) / seconds : 0.0);
        if (summary->spans)
            std::fprintf(stderr, "read %lld spans; %lld traces had warnings\n", static_cast<long long>(summary->spans),
                         static_cast<long long>(summary->tracesWithWarnings));
        if (summary->renamedEvents)
            std::fprintf(stderr, "numbered %lld repeated <task, event> pairs (EVENT#2, ...)\n",
                         static_cast<long long>(summary->renamedEvents));
        if (summary->warnings) {
            // The samples, each distinct one once with how often it came (they used to repeat line for line).
            std::vector<std::pair<std::string, int>> distinct;
            for (const auto& w : summary->warningSamples) {
                auto it = std::find_if(distinct.begin(), distinct.end(), [&](const auto& d) { return d.first == w; });
                if (it == distinct.end()) distinct.emplace_back(w, 1);
                else ++it->second;
            }
            if (summary->warnings == 1) std::fprintf(stderr, "1 warning:\n");
            else if (static_cast<std::size_t>(summary->warnings) == summary->warningSamples.size())
                std::fprintf(stderr, "%lld warnings:\n", static_cast<long long>(summary->warnings));
            else
                std::fprintf(stderr, "%lld warnings, for example:\n", static_cast<long long>(summary->warnings));
            for (const auto& [w, n] : distinct) {
                if (n > 1) std::fprintf(stderr, "  %s (%d times)\n", w.c_str(), n);
                else std::fprintf(stderr, "  %s\n", w.c_str());
            }
        }
    }
    return 0;
}

} // namespace

Command addImportCommand(CLI::App& program) {
    auto args = std::make_shared<ImportArgs>();
    auto* cmd = program.add_subcommand("import", "add trace files to a database (creating it)");
    cmd->add_option("--format", args->format,
                    "auto (default: recognised from content), events-csv, events-jsonl, otlp-json, jaeger-json,\n"
                    "zipkin-json, spans-csv")
        ->type_name("FORMAT")
        ->check(CLI::Validator(
            [](std::string& name) {
                return inputFormatFromName(name) ? std::string()
                                                 : "unknown format '" + name + "' (auto, events-csv, events-jsonl, otlp-json, "
                                                   "jaeger-json, zipkin-json, spans-csv)";
            },
            "", "format"));
    cmd->add_option("--map", args->map,
                    "spans-csv columns, e.g. trace=TraceID,span=SpanID,parent=ParentID,pod=PodName,\n"
                    "operation=OperationName,start=StartTimeUnixNano,end=EndTimeUnixNano (keys: trace span\n"
                    "parent service pod operation start end duration host; pod: the service is the pod\n"
                    "name without its last two dash-separated parts)")
        ->type_name("SPEC");
    cmd->add_option("--time-unit", args->timeUnit, "unit of the spans-csv times: ns, us (default), ms, s")->type_name("U");
    cmd->add_option("--root-marker", args->rootMarker, "spans-csv parent value meaning 'no parent' (default: root; empty,\n"
                                                       "0, null too)")
        ->type_name("V");
    cmd->add_option("--period", args->period, "the period these requests belong to (default: first input's file name)")
        ->type_name("NAME");
    cmd->add_option("--db", args->db, "the trace database (created if missing)")->required()->type_name("DB");
    addQuietFlag(*cmd, args->quiet);
    cmd->add_option("INPUT", args->inputs, "trace files")->required()->type_name("");
    cmd->footer("Adds every INPUT to DB in one transaction: on any error nothing is added and the message names\n"
                "the file and line (or byte offset). A new DB is removed again when the import fails.");
    return {cmd, [args] { return runImport(*args); }};
}

} // namespace tracelight::cli
