// The command line's one way to open a database, as app/Session is the app's: every command goes through here,
// so the modes, the integrity checks and the "analysing it now" notice are the same everywhere.
#include <cstdio>

#include "Commands.h"

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

} // namespace tracelight::cli
