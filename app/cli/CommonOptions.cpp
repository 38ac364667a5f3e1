// The options several commands share, for tracelight-cli and tracelight-batch alike.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iterator>
#include <string>
#include <thread>

#include "Commands.h"
#include "tracelight/store/Periods.h"

namespace tracelight::cli {

namespace {
unsigned maxAnalysisThreads() { return 4 * std::max(1u, std::thread::hardware_concurrency()); }
} // namespace

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
    // Bounded by the machine: each thread holds its own shard of the analysis, so 100,000 threads on two
    // cores cost minutes and gigabytes for nothing.
    const unsigned maxThreads = maxAnalysisThreads();
    const CLI::Validator boundedByCores(
        [maxThreads](std::string& v) {
            const bool digits = !v.empty() && v.find_first_not_of("0123456789") == std::string::npos;
            if (!digits) return "needs a whole number, 0 or more, not '" + v + "'";
            if (v.size() > 9 || std::stoul(v) > maxThreads)
                return "at most " + std::to_string(maxThreads) + " (4 per core on this machine), not " + v;
            return std::string();
        },
        "", "thread count");
    command.add_option("--threads", options.inference.threads,
                       "worker threads (default: one per core; at most 4 per core)")
        ->type_name("N")
        ->check(boundedByCores);
}

Result<std::vector<std::uint32_t>> selectedRows(const TraceStore& store, const std::string& db, const std::vector<RequestId>& ids,
                                                const std::string& period, const std::string& where) {
    if (!period.empty())
        if (auto size = periodSize(store, period); !size) return size.status();
    std::vector<std::uint32_t> rows = periodRows(store, ids, period);  // an empty name: every row
    if (!where.empty()) {
        auto matching = requestsWhere(store, where);
        if (!matching) return Status::error(db + ": --where: " + matching.message());
        const std::vector<std::uint32_t> whereRows = rowsOfRequests(ids, matching.value());
        std::vector<std::uint32_t> both;
        std::set_intersection(rows.begin(), rows.end(), whereRows.begin(), whereRows.end(), std::back_inserter(both));
        rows = std::move(both);
    }
    if ((!period.empty() || !where.empty()) && rows.empty()) return Status::error(db + ": no analysed requests in the selection");
    return rows;
}

CLI::Option* addJsonFlag(CLI::App& command, bool& json, const std::string& help) {
    return command.add_flag("--json", json, help);
}

CLI::Option* addQuietFlag(CLI::App& command, bool& quiet) {
    return command.add_flag("--quiet", quiet, "no progress or summary on stderr");
}

} // namespace tracelight::cli
