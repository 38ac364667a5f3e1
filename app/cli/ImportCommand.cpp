#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "Commands.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::cli {

namespace {
// A database that did not exist before the import: removed with the -wal and -shm files the import created
// unless keep() was called. A database that existed is never touched.
class NewDatabaseGuard {
public:
    explicit NewDatabaseGuard(const std::string& db) {
        if (absent(db))
            for (const char* suffix : {"", "-wal", "-shm"})
                if (absent(db + suffix)) m_created.push_back(db + suffix);
    }
    ~NewDatabaseGuard() {
        if (m_keep) return;
        for (const auto& path : m_created) {
            std::error_code ec;
            std::filesystem::remove(path, ec);
        }
    }
    void keep() { m_keep = true; }

private:
    static bool absent(const std::string& path) {
        std::error_code ec;
        return !std::filesystem::exists(std::filesystem::symlink_status(path, ec));
    }
    std::vector<std::string> m_created;
    bool m_keep = false;
};

void importHelp(std::ostream& out) {
    out << "Usage: tracelight-cli import [--format FORMAT] [--period NAME] [--map SPEC] --db DB INPUT...\n\n"
           "Adds every INPUT to DB (created if missing) in one transaction: on any error nothing is added\n"
           "and the message names the file and line (or byte offset).\n\n"
           "Options:\n"
           "  --format FORMAT  auto (default: recognised from content), events-csv, events-jsonl,\n"
           "                   otlp-json, jaeger-json, zipkin-json, spans-csv\n"
           "  --map SPEC       spans-csv columns, e.g. trace=TraceID,span=SpanID,parent=ParentID,\n"
           "                   pod=PodName,operation=OperationName,start=StartTimeUnixNano,end=EndTimeUnixNano\n"
           "                   (keys: trace span parent service pod operation start end duration host;\n"
           "                   pod: the service is the pod name without its last two dash-separated parts)\n"
           "  --time-unit U    unit of the spans-csv times: ns, us (default), ms, s\n"
           "  --root-marker V  spans-csv parent value meaning 'no parent' (default: root; empty, 0, null too)\n"
           "  --period NAME    the period these requests belong to (default: first input's file name)\n"
           "  --db DB          the trace database\n"
           "  --quiet          no progress or summary on stderr\n"
           "  -h, --help       this help\n";
}
} // namespace

int importCommand(const Args& args) {
    ImportOptions options;
    std::string db, map, timeUnit, rootMarker;
    bool quiet = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](std::string& out) { return optionValue(args, i, out); };
        if (a == "-h" || a == "--help") {
            importHelp(std::cout);
            return 0;
        } else if (a == "--format") {
            std::string name;
            if (!value(name)) return usageError("import", "--format needs a value");
            auto format = inputFormatFromName(name);
            if (!format) return usageError("import", "unknown format '" + name + "'");
            options.format = *format;
        } else if (a == "--period") {
            if (!value(options.period)) return usageError("import", "--period needs a name");
        } else if (a == "--map") {
            if (!value(map)) return usageError("import", "--map needs key=Column,...");
        } else if (a == "--time-unit") {
            if (!value(timeUnit)) return usageError("import", "--time-unit needs ns, us, ms or s");
        } else if (a == "--root-marker") {
            if (!value(rootMarker)) return usageError("import", "--root-marker needs a value");
        } else if (a == "--db") {
            if (!value(db)) return usageError("import", "--db needs a path");
        } else if (a == "--quiet") {
            quiet = true;
        } else if (!a.empty() && a[0] == '-' && a != "-") {
            return usageError("import", "unknown option '" + a + "'");
        } else {
            options.inputs.push_back(a);
        }
    }
    if (db.empty()) return usageError("import", "--db DB is required");
    if (!map.empty() || !timeUnit.empty() || !rootMarker.empty()) {
        auto mapping = SpanCsvMapping::parse(map, timeUnit);
        if (!mapping) return usageError("import", mapping.message());
        if (!rootMarker.empty()) mapping->rootMarker = rootMarker;
        if (map.empty()) mapping->columns.clear();  // only the unit given: columns are still guessed
        options.spanColumns = mapping.value();
    }
    if (options.inputs.empty()) return usageError("import", "no input files");

    // Inputs that cannot be read are reported before the database is created or opened.
    for (const auto& input : options.inputs) {
        std::error_code ec;
        if (std::filesystem::is_directory(input, ec))
            return fail(input + ": is a directory, not a trace file (name the files in it)");
        if (!std::filesystem::is_regular_file(input, ec)) return fail(input + ": no such file");
    }
    // A failed import into a new path removes the files it created (never one that existed before).
    NewDatabaseGuard guard(db);
    auto store = TraceStore::open(db, TraceStore::Mode::Create);
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
        std::fprintf(stderr, "imported %lld requests, %lld events into period '%s' in %.2f s (%.0f events/s)\n",
                     static_cast<long long>(summary->requests), static_cast<long long>(summary->events),
                     summary->period.c_str(), seconds, seconds > 0 ? double(summary->events) / seconds : 0.0);
        if (summary->spans)
            std::fprintf(stderr, "read %lld spans; %lld traces had warnings\n", static_cast<long long>(summary->spans),
                         static_cast<long long>(summary->tracesWithWarnings));
        if (summary->renamedEvents)
            std::fprintf(stderr, "numbered %lld repeated <task, event> pairs (EVENT#2, ...)\n",
                         static_cast<long long>(summary->renamedEvents));
        if (summary->warnings) {
            std::fprintf(stderr, "%lld warnings, the first:\n", static_cast<long long>(summary->warnings));
            for (const auto& w : summary->warningSamples) std::fprintf(stderr, "  %s\n", w.c_str());
        }
    }
    return 0;
}

} // namespace tracelight::cli
