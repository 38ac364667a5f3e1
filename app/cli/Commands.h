#pragma once
// tracelight-cli sub-commands, parsed with CLI11. Each add*Command registers its sub-command (options, help)
// on the program and returns how to run it. Exit status: 0 ok, 1 failed, 2 usage error.
#include <functional>
#include <memory>
#include <string>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

namespace CLI {
class App;
class Option;
} // namespace CLI

namespace tracelight::cli {

struct Command {
    CLI::App* app = nullptr;      // the sub-command; run() when it was given
    std::function<int()> run;
};

Command addImportCommand(CLI::App& program);
Command addInfoCommand(CLI::App& program);
Command addAnalyzeCommand(CLI::App& program);
Command addModelCommand(CLI::App& program);
Command addCriticalPathCommand(CLI::App& program);
Command addSlackCommand(CLI::App& program);
Command addBreakdownCommand(CLI::App& program);
Command addSlackStudyCommand(CLI::App& program);
Command addWhatIfCommand(CLI::App& program);
Command addBottlenecksCommand(CLI::App& program);
Command addCompareCommand(CLI::App& program);
Command addRenderCommand(CLI::App& program);
Command addPeriodCommand(CLI::App& program);
Command addProfileCommand(CLI::App& program);
Command addAaCommand(CLI::App& program);
Command addContextCommand(CLI::App& program);
Command addBurstsCommand(CLI::App& program);
Command addServeCommand(CLI::App& program);
Command addHostActivityCommand(CLI::App& program);

// Option helpers shared by the commands, so one option has one spelling and one help text everywhere.
// The positional DB argument (required).
CLI::Option* addDatabaseArgument(CLI::App& command, std::string& db);
// --support-floor N and --threads N.
void addAnalysisOptions(CLI::App& command, AnalysisOptions& options);
// --json (JSON output; for commands whose only output is JSON it is accepted and changes nothing).
CLI::Option* addJsonFlag(CLI::App& command, bool& json, const std::string& help = "write JSON (docs/reference/json.md)");
// --quiet: no progress or summary on stderr.
CLI::Option* addQuietFlag(CLI::App& command, bool& quiet);

// Opens a database: every command's way in (the store's modes and integrity checks).
Result<std::unique_ptr<TraceStore>> openDatabase(const std::string& db, TraceStore::Mode mode,
                                                 TraceStore::WriteCheck check = TraceStore::WriteCheck::OnOpen);
// A trace file's own database (import/TraceFileDatabase.h: beside it, or in the cache folder), imported now unless
// it holds the file's current import; any other path as it is (a database, or what opening will refuse).
Result<std::string> databaseOrTraceFile(const std::string& path, bool quiet);
// A trace file (not a database) whose own database is missing or stale: a command may read it into memory
// instead of importing it.
bool isTraceFileWithoutCurrentDatabase(const std::string& path);
// Opens a database with current analysis results: read-only when they are current (so read-only files
// work), else for writing, analysing it first (saying so on stderr unless quiet).
Result<std::unique_ptr<TraceStore>> openAnalysed(const std::string& db, const AnalysisOptions& options, bool quiet);
// An analysed database with its analysis in memory and its per-request aggregates (analyze's cached paths and
// slack read, not computed again): what the aggregate studies start from. Errors name the database.
struct AnalysedAggregates {
    std::unique_ptr<TraceStore> store;
    InMemoryAnalysis analysis;
    RequestAggregates aggregates;
};
Result<AnalysedAggregates> openAggregates(const std::string& db);

// The analysis rows (indices into ids) a --period and a --where select, sorted: those in both when both are given,
// every row when neither is. Errors: an unknown period, a --where that does not parse or names no attribute, an
// empty selection; each names the database.
Result<std::vector<std::uint32_t>> selectedRows(const TraceStore& store, const std::string& db, const std::vector<RequestId>& ids,
                                                const std::string& period, const std::string& where);

// Prints "tracelight-cli: <message>" to stderr and returns 1.
int fail(const std::string& message);
// Prints "tracelight-cli COMMAND: <message> (see 'tracelight-cli COMMAND --help')" to stderr; returns 2.
int usageError(const std::string& command, const std::string& message);

} // namespace tracelight::cli
