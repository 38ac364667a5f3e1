#pragma once
// tracelight-cli sub-commands. Each returns the process exit status: 0 ok, 1 failed, 2 usage error.
#include <memory>
#include <string>
#include <vector>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::cli {

using Args = std::vector<std::string>;

int importCommand(const Args& args);
int infoCommand(const Args& args);
int analyzeCommand(const Args& args);
int modelCommand(const Args& args);
int criticalPathCommand(const Args& args);
int slackCommand(const Args& args);
int breakdownCommand(const Args& args);
int renderCommand(const Args& args);

// The value after option i (advancing i), or false when the option is the last argument.
inline bool optionValue(const Args& args, std::size_t& i, std::string& out) {
    if (i + 1 >= args.size()) return false;
    out = args[++i];
    return true;
}

// Opens a database for writing with current analysis results, analysing it first when they are
// missing or stale (saying so on stderr unless quiet).
Result<std::unique_ptr<TraceStore>> openAnalysed(const std::string& db, const AnalysisOptions& options, bool quiet);

// Prints "tracelight-cli: <message>" to stderr and returns 1.
int fail(const std::string& message);
// Prints a usage error and the command's help hint; returns 2.
int usageError(const std::string& command, const std::string& message);

} // namespace tracelight::cli
