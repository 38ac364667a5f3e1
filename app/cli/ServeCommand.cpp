// tracelight-cli serve: the live capture. Applications send OpenTelemetry spans over OTLP/HTTP or OTLP/gRPC; each trace is
// stored as a request once it has been quiet for a while (core/include/tracelight/capture/).
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <ctime>
#include <iostream>
#include <mutex>
#include <thread>

#include <CLI/CLI.hpp>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/base/UtcNow.h"
#include "Commands.h"
#include "tracelight/capture/OtlpReceiver.h"
#include "tracelight/store/NewDatabaseGuard.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::cli {

namespace {

struct ServeArgs {
    std::string db, http = "127.0.0.1:4318", grpc = "127.0.0.1:4317", period;
    double quietSeconds = 5, readTimeoutSeconds = 30, analyzeEverySeconds = 0;
    std::size_t maxBodyMib = 20;
    bool quiet = false;
};

int runServe(const ServeArgs& args) {
    NewDatabaseGuard created(args.db);  // a database made for a serve that could not start is removed again
    auto store = openDatabase(args.db, TraceStore::Mode::Create);
    if (!store) return fail(store.message());
    ReceiverOptions options;
    options.httpAddress = args.http;
    if (args.grpc != "off") options.grpcAddress = args.grpc;
    options.maxBodyBytes = args.maxBodyMib << 20;
    options.readTimeout = std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(args.readTimeoutSeconds * 1000)));
    options.capture.quietNs = static_cast<TimeNs>(std::llround(args.quietSeconds * 1e9));
    options.handleSignals = true;
    options.capture.period = args.period.empty() ? "capture-" + utcNow() : args.period;
    const bool quiet = args.quiet;
    auto receiver = OtlpReceiver::start(*store.value(), options, [quiet](const std::string& line) {
        if (!quiet) std::cerr << "tracelight-cli serve: " << line << std::endl;
    });
    if (!receiver) return fail(receiver.message());
    created.keep();
    // Always said, even with --quiet: a script that asked for port 0 learns the port here.
    const std::string grpc = receiver.value()->grpcEndpoint();
    std::cerr << "tracelight-cli serve: OTLP/HTTP on http://" << receiver.value()->httpEndpoint() << "/v1/traces"
              << (grpc.empty() ? "" : ", OTLP/gRPC on " + grpc) << ", into " << args.db << " (period " << options.capture.period
              << "); Ctrl-C stops" << std::endl;
    // --analyze-every: a thread of its own, on its own connection, analyses what arrived (incrementally, so each
    // round costs what the new requests cost) while the receiver goes on committing spans; once more at the stop.
    std::mutex analysing;
    std::condition_variable wake;
    bool stopping = false;
    std::thread analyser;
    if (args.analyzeEverySeconds > 0)
        analyser = std::thread([&, every = std::chrono::milliseconds(std::llround(args.analyzeEverySeconds * 1000))] {
            auto own = openDatabase(args.db, TraceStore::Mode::ReadWrite);
            if (!own) {
                std::cerr << "tracelight-cli serve: cannot analyse: " << own.message() << std::endl;
                return;
            }
            AnalysisOptions analysis;
            analysis.writeAtEnd = true;
            auto analyse = [&] {
                if (analysisIsCurrent(*own.value(), analysis)) return;
                auto summary = analyzeStore(*own.value(), analysis);
                if (quiet) return;
                if (!summary) std::cerr << "tracelight-cli serve: analysis: " << summary.message() << std::endl;
                else if (summary->incremental)
                    std::cerr << "tracelight-cli serve: analysed " << summary->requests << " requests: the model refined with "
                              << summary->inferredRequests << " new, " << summary->derivedRequests << " critical paths derived" << std::endl;
                else
                    std::cerr << "tracelight-cli serve: analysed " << summary->requests << " requests in full (" << summary->fullBecause << ")"
                              << std::endl;
            };
            std::unique_lock lock(analysing);
            while (!wake.wait_for(lock, every, [&] { return stopping; })) {
                lock.unlock();
                analyse();
                lock.lock();
            }
            lock.unlock();
            analyse();
        });
    const Status served = receiver.value()->run();
    {
        std::lock_guard lock(analysing);
        stopping = true;
    }
    wake.notify_all();
    if (analyser.joinable()) analyser.join();
    if (!served) return fail(served.message());
    const auto counts = receiver.value()->counts();
    if (!quiet)
        std::cerr << "tracelight-cli serve: stopped: " << counts.spans << " spans received (" << counts.rejectedSpans
                  << " rejected), " << counts.traces << " traces stored" << std::endl;
    return 0;
}

} // namespace

Command addServeCommand(CLI::App& program) {
    auto args = std::make_shared<ServeArgs>();
    auto* cmd = program.add_subcommand("serve", "receive OpenTelemetry spans live (OTLP/HTTP and OTLP/gRPC) and store them in DB");
    cmd->add_option("--db", args->db, "the trace database (created when missing)")->required()->type_name("DB");
    cmd->add_option("--otlp-http", args->http, "where to listen for OTLP/HTTP: HOST:PORT or [IPV6]:PORT; port 0 picks a free one "
                                               "(default 127.0.0.1:4318, this machine only)")
        ->type_name("ADDR");
    cmd->add_option("--otlp-grpc", args->grpc, "where to listen for OTLP/gRPC, as --otlp-http (default 127.0.0.1:4317); off: not at all")
        ->type_name("ADDR");
    cmd->add_option("--quiet-time", args->quietSeconds,
                    "a trace is stored once no span of it arrived for this long (default 5; decimals allowed)")
        ->type_name("SECONDS")
        ->check(CLI::Range(0.01, 86400.0));
    cmd->add_option("--max-body", args->maxBodyMib, "largest request body, and what a gzip body may unpack to (default 20)")
        ->type_name("MIB")
        ->check(CLI::Range(std::size_t(1), std::size_t(64)));
    cmd->add_option("--read-timeout", args->readTimeoutSeconds, "a request not read in full within this is answered 408 (default 30)")
        ->type_name("SECONDS")
        ->check(CLI::Range(0.1, 3600.0));
    cmd->add_option("--analyze-every", args->analyzeEverySeconds,
                    "analyse what arrived this often, incrementally, and once more at the stop (default 0: never)")
        ->type_name("SECONDS")
        ->check(CLI::Range(0.0, 86400.0));
    cmd->add_option("--period", args->period, "the period the captured requests join (default capture-<UTC start time>)")->type_name("NAME");
    addQuietFlag(*cmd, args->quiet);
    cmd->footer("Spans are committed before they are acknowledged. SIGINT or SIGTERM stops cleanly: the requests in flight are\n"
                "answered and every open trace is stored. See docs/user/live-capture.md.");
    return {cmd, [args] { return runServe(*args); }};
}

} // namespace tracelight::cli
