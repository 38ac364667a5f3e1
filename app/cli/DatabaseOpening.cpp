// The command line's one way to open a database, as app/Session is the app's: every command goes through here,
// so the modes, the integrity checks and the "analysing it now" notice are the same everywhere.
#include <cstdio>
#include <filesystem>

#include "Commands.h"
#include "tracelight/import/Import.h"
#include "tracelight/import/TraceFileDatabase.h"
#include "tracelight/store/NewDatabaseGuard.h"

namespace tracelight::cli {

Result<std::unique_ptr<TraceStore>> openDatabase(const std::string& db, TraceStore::Mode mode, TraceStore::WriteCheck check) {
    return TraceStore::open(db, mode, check);
}

Result<std::unique_ptr<TraceStore>> openAnalysed(const std::string& db, const AnalysisOptions& options, bool quiet) {
    // Current results need no writing (nor PRAGMA quick_check): read-only, so read-only files work too.
    if (auto reader = openDatabase(db, TraceStore::Mode::ReadOnly); reader && analysisIsCurrent(*reader.value(), options))
        return reader;
    // The file is checked while the analysis reads it, the events by that read (it writes only after it).
    auto store = openDatabase(db, TraceStore::Mode::ReadWrite, TraceStore::WriteCheck::BesideFullRead);
    if (!store) return store;
    if (!analysisIsCurrent(*store.value(), options)) {
        if (!quiet) std::fprintf(stderr, "tracelight-cli: %s has no current analysis; analysing it now\n", db.c_str());
        auto analysed = analyzeStore(*store.value(), options);
        if (!analysed) return analysed.status();
    }
    return store;
}

Result<AnalysedAggregates> openAggregates(const std::string& db) {
    auto store = openAnalysed(db, AnalysisOptions{}, true);
    if (!store) return store.status();
    auto analysis = loadAnalysis(*store.value());
    if (!analysis) return analysis.status();
    auto aggregates = computeAggregates(analysis.value(), loadCategoryRules(*store.value()), 0, nullptr, nullptr, store.value().get());
    if (!aggregates) return Status::error(db + ": " + aggregates.message());
    return AnalysedAggregates{std::move(store.value()), std::move(analysis.value()), std::move(aggregates.value())};
}

bool isTraceFileWithoutCurrentDatabase(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec) || looksLikeDatabase(path)) return false;
    const std::string trace = std::filesystem::absolute(path, ec).lexically_normal().string();
    const std::string own = databaseForTraceFile(trace, traceCacheFolder());
    return !std::filesystem::exists(own, ec) || !holdsCurrentImportOf(own, trace);
}

Result<std::string> databaseOrTraceFile(const std::string& path, bool quiet) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec) || looksLikeDatabase(path)) return path;  // opening says what is wrong
    const std::string trace = std::filesystem::absolute(path, ec).lexically_normal().string();
    auto target = traceFileDatabase(trace, traceCacheFolder());
    if (!target) return Status::error(target.message() + ": import it with 'tracelight-cli import --db DB " + path + "'");
    if (target->current) return target->path;
    NewDatabaseGuard created(target->path);  // a failed import leaves nothing behind
    {
        auto store = openDatabase(target->path, TraceStore::Mode::Create);
        if (!store) return store.status();
        ImportOptions options;
        options.inputs = {trace};
        auto summary = importTraces(*store.value(), options);
        if (!summary) return Status::error(path + ": " + summary.message());
        if (!quiet)
            std::fprintf(stderr, "tracelight-cli: imported %s into %s (%lld request%s)\n", path.c_str(), target->path.c_str(),
                         static_cast<long long>(summary->requests), summary->requests == 1 ? "" : "s");
    }
    created.keep();
    return target->path;
}

} // namespace tracelight::cli
