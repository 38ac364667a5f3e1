// tracelight-batch: the analysis as one distributed MPI run.
//   mpirun -np N tracelight-batch analyze DB [--support-floor N] [--threads N] [--quiet]
// Every rank opens DB, reads its run of requests (request ids cut into N runs of equal count), and the
// ranks merge clock estimates, hypotheses (bitwise-AND all-reduce) and aggregates (sums); rank 0 writes
// the results into DB, the same rows `tracelight-cli analyze DB` writes. Exit status: 0 ok, 1 failed,
// 2 usage error; every rank exits with the same status.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "../cli/Commands.h"
#include "MpiCollective.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

namespace {

// Every rank's error (empty: none), printed by rank 0 only, each distinct message once in rank order, so
// that N ranks failing alike make one line. True on every rank when any failed.
bool reportFailures(batch::MpiCollective& group, const std::string& error) {
    const auto all = group.allGather(error);
    std::vector<std::string> printed;
    bool any = false;
    for (std::size_t r = 0; r < all.size(); ++r) {
        if (all[r].empty()) continue;
        any = true;
        if (!group.isFirst() || std::find(printed.begin(), printed.end(), all[r]) != printed.end()) continue;
        std::cerr << "tracelight-batch: " << all[r] << (all.size() > 1 && r > 0 ? " (rank " + std::to_string(r) + ")" : "") << "\n";
        printed.push_back(all[r]);
    }
    return any;
}

int run(batch::MpiCollective& group, int argc, char** argv) {
    CLI::App program{"Tracelight's analysis as a distributed MPI run: mpirun -np N tracelight-batch analyze DB"};
    program.require_subcommand(1);
    auto* analyze = program.add_subcommand("analyze", "clock skew, causal model, critical paths and slack, shared out across the MPI ranks");
    std::string db;
    bool quiet = false;
    AnalysisOptions options;
    cli::addDatabaseArgument(*analyze, db);
    cli::addAnalysisOptions(*analyze, options);
    cli::addQuietFlag(*analyze, quiet);
    analyze->footer("Results go into DB as with 'tracelight-cli analyze DB'; the app opens it like any other. --threads is per rank.");
    try {
        program.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (group.isFirst()) program.exit(e);  // help on stdout, errors on stderr
        return e.get_exit_code() == 0 ? 0 : 2;
    }

    // Rank 0 writes; the others only read.
    // The writer's file is checked while the ranks read it (rank 0 writes only at the end). Alone, it reads
    // every event itself, which checks them; one rank reads only its part, so the whole file is checked.
    auto store = cli::openDatabase(db, group.isFirst() ? TraceStore::Mode::ReadWrite : TraceStore::Mode::ReadOnly,
                                  group.size() > 1 ? TraceStore::WriteCheck::InBackground : TraceStore::WriteCheck::BesideFullRead);
    if (reportFailures(group, store ? std::string() : store.message())) return 1;
    const bool showProgress = !quiet && group.isFirst() && isatty(STDERR_FILENO);
    ProgressSink progress = [](double fraction, std::string_view stage) {
        std::fprintf(stderr, "\r%3d%%  %-50.*s", static_cast<int>(fraction * 100), static_cast<int>(stage.size()), stage.data());
        std::fflush(stderr);
    };
    auto summary = analyzeStore(*store.value(), options, showProgress ? &progress : nullptr, nullptr, &group);
    if (showProgress) std::fprintf(stderr, "\r%60s\r", "");
    if (reportFailures(group, summary ? std::string() : summary.message())) return 1;
    if (!quiet && group.isFirst()) {
        std::fprintf(stderr,
                     "analysed %lld requests on %d ranks: %lld segment types, %lld happens-before, %lld mutual-exclusion, "
                     "%lld pipeline relations; %lld hosts skew-corrected\n",
                     static_cast<long long>(summary->requests), group.size(), static_cast<long long>(summary->segmentTypes),
                     static_cast<long long>(summary->happensBefore), static_cast<long long>(summary->mutualExclusion),
                     static_cast<long long>(summary->pipelines), static_cast<long long>(summary->correctedHosts));
        for (const auto& s : summary->stages) std::fprintf(stderr, "  %-28s %8.2f s (rank 0)\n", s.stage.c_str(), s.seconds);
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    // Worker threads never call MPI; only the main thread does.
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int status = 0;
    {
        batch::MpiCollective group(MPI_COMM_WORLD);
        status = run(group, argc, argv);
        // One exit status for the whole run.
        std::int64_t worst = status;
        MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
        status = static_cast<int>(worst);
    }
    MPI_Finalize();
    return status;
}
