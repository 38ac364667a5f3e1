// tracelight-cli: the headless face of the core. JSON output is a stable interface (DESIGN.md).
#include <cstring>
#include <iostream>
#include <string>

#include "Commands.h"

namespace tracelight::cli {

int fail(const std::string& message) {
    std::cerr << "tracelight-cli: " << message << "\n";
    return 1;
}

int usageError(const std::string& command, const std::string& message) {
    std::cerr << "tracelight-cli " << command << ": " << message << "\n"
              << "Try 'tracelight-cli " << command << " --help'.\n";
    return 2;
}

} // namespace tracelight::cli

namespace {

void usage(std::ostream& out) {
    out << "Usage: tracelight-cli COMMAND [options]\n\n"
           "Commands:\n"
           "  import         add trace files to a database (creating it)\n"
           "  info           counts of requests, events, segments, hosts and periods\n"
           "  analyze        clock skew, causal model, critical paths and slack (cached in the database)\n"
           "  model          the inferred causal model\n"
           "  critical-path  one request's critical path\n"
           "  slack          one request's slack per segment\n"
           "  breakdown      per-category delay vs critical path, strata, outliers\n"
           "  render         draw a view (waterfall, graph) offscreen to PNG\n\n"
           "Run 'tracelight-cli COMMAND --help' for a command's options.\n";
}

} // namespace

int main(int argc, char** argv) {
    using namespace tracelight::cli;
    if (argc < 2) {
        usage(std::cerr);
        return 2;
    }
    const std::string command = argv[1];
    Args args(argv + 2, argv + argc);
    if (command == "-h" || command == "--help" || command == "help") {
        usage(std::cout);
        return 0;
    }
    if (command == "--version") {
        std::cout << "tracelight-cli 0.1.0\n";
        return 0;
    }
    if (command == "import") return importCommand(args);
    if (command == "info") return infoCommand(args);
    if (command == "analyze") return analyzeCommand(args);
    if (command == "model") return modelCommand(args);
    if (command == "critical-path") return criticalPathCommand(args);
    if (command == "slack") return slackCommand(args);
    if (command == "breakdown") return breakdownCommand(args);
#ifdef TRACELIGHT_WITH_RENDER
    if (command == "render") return renderCommand(args);
#else
    if (command == "render") return fail("this build has no GUI libraries: render is not available");
#endif
    std::cerr << "tracelight-cli: unknown command '" << command << "'\n";
    usage(std::cerr);
    return 2;
}
