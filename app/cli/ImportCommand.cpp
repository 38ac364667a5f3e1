#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
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

// Ctrl-C, SIGTERM and SIGHUP cancel the import as the app's Cancel does: the transaction is rolled back and
// a new database removed again (the default action would leave the partial file and its journal behind).
// The handler only sets the token and remembers the signal (both lock-free atomics, safe in a handler).
CancelToken g_interrupt;
std::atomic<int> g_signal{0};

class CancelOnSignals {
public:
    CancelOnSignals() {
        struct sigaction action {};
        action.sa_handler = [](int signal) {
            g_signal.store(signal);
            g_interrupt.cancel();
        };
        sigemptyset(&action.sa_mask);
        action.sa_flags = 0;  // no SA_RESTART: a read that waits on a pipe returns, and the token is looked at
        for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &action, &m_previous[i]);
    }
    ~CancelOnSignals() {
        for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &m_previous[i], nullptr);
    }
    CancelOnSignals(const CancelOnSignals&) = delete;
    CancelOnSignals& operator=(const CancelOnSignals&) = delete;
    // 128 + the signal, as a shell reports a process it ended; 0 when none came.
    static int exitStatus() { return g_signal.load() ? 128 + g_signal.load() : 0; }

private:
    static constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};
    std::array<struct sigaction, 3> m_previous{};
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

    // Inputs that cannot be read are reported before the database is created or opened. "-" is standard input;
    // a pipe (a FIFO, /dev/stdin, a process substitution) is read as it comes.
    for (const auto& input : options.inputs) {
        std::error_code ec;
        if (std::filesystem::is_directory(input, ec))
            return fail(input + ": is a directory, not a trace file (name the files in it)");
        if (input != "-" && !std::filesystem::exists(input, ec)) return fail(input + ": no such file");
    }
    if (std::count(options.inputs.begin(), options.inputs.end(), "-") > 1) return fail("-: standard input given twice");
    // A failed or interrupted import into a new path removes the files it created (never one that existed before).
    CancelOnSignals interruptible;
    std::error_code ec;
    const bool newDatabase = !std::filesystem::exists(db, ec);
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
    auto summary = importTraces(*store.value(), options, showProgress ? &progress : nullptr, &g_interrupt);
    if (showProgress) std::fprintf(stderr, "\r%70s\r", "");
    if (!summary) {
        store.value().reset();  // closed before its files are removed
        if (const int interrupted = CancelOnSignals::exitStatus(); interrupted && g_interrupt.isCancelled()) {
            const int signal = interrupted - 128;
            fail(std::string("import cancelled by ") + (signal == SIGINT ? "SIGINT (Ctrl-C)" : signal == SIGTERM ? "SIGTERM" : "SIGHUP") +
                 ": nothing was added" + (newDatabase ? " and the new database " + db + " was removed" : ""));
            return interrupted;
        }
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
                    "auto (default: recognised from content), events-csv, events-jsonl, otlp-json, otlp-protobuf,\n"
                    "jaeger-json, zipkin-json, spans-csv")
        ->type_name("FORMAT")
        ->check(CLI::Validator(
            [](std::string& name) {
                return inputFormatFromName(name) ? std::string()
                                                 : "unknown format '" + name + "' (auto, events-csv, events-jsonl, otlp-json, "
                                                   "otlp-protobuf, jaeger-json, zipkin-json, spans-csv)";
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
    cmd->add_option("INPUT", args->inputs, "trace files; - for standard input (a pipe, a FIFO or /dev/stdin is read as it comes)")
        ->required()
        ->type_name("");
    cmd->footer("Adds every INPUT to DB in one transaction: on any error nothing is added and the message names\n"
                "the file and line (or byte offset). A new DB is removed again when the import fails or is\n"
                "interrupted (Ctrl-C, SIGTERM, SIGHUP; exit status 128 + the signal).");
    return {cmd, [args] { return runImport(*args); }};
}

} // namespace tracelight::cli
