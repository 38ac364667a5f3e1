// The options several commands share, for tracelight-cli and tracelight-batch alike.
#include <CLI/CLI.hpp>
#include <string>

#include "Commands.h"

namespace tracelight::cli {

CLI::Option* addDatabaseArgument(CLI::App& command, std::string& db) {
    return command.add_option("DB", db, "the trace database")->required()->type_name("");
}

void addAnalysisOptions(CLI::App& command, AnalysisOptions& options) {
    const CLI::Validator nonNegative(
        [](std::string& v) {
            const bool digits = !v.empty() && v.size() < 10 && v.find_first_not_of("0123456789") == std::string::npos;
            return digits ? std::string() : "needs a whole number, 0 or more, not '" + v + "'";
        },
        "", "whole number");
    command.add_option("--support-floor", options.inference.supportFloor,
                       "relations seen in fewer than N requests are unconfirmed (default " +
                           std::to_string(options.inference.supportFloor) + ")")
        ->type_name("N")
        ->check(nonNegative);
    command.add_option("--threads", options.inference.threads, "worker threads (default: one per core)")
        ->type_name("N")
        ->check(nonNegative);
}

CLI::Option* addJsonFlag(CLI::App& command, bool& json, const std::string& help) {
    return command.add_flag("--json", json, help);
}

CLI::Option* addQuietFlag(CLI::App& command, bool& quiet) {
    return command.add_flag("--quiet", quiet, "no progress or summary on stderr");
}

} // namespace tracelight::cli
