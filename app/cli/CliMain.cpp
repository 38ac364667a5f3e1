// tracelight-cli: the headless face of the core. JSON output is a stable interface (docs/reference/json.md).
#include <CLI/CLI.hpp>
#include <climits>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "Commands.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tracelight::cli {

int fail(const std::string& message) {
    std::cerr << "tracelight-cli: " << message << "\n";
    return 1;
}

int usageError(const std::string& command, const std::string& message) {
    std::cerr << "tracelight-cli " << command << ": " << message << " (see 'tracelight-cli " << command << " --help')\n";
    return 2;
}

} // namespace tracelight::cli

namespace {

// The sub-command a parse error belongs to ("" for the program itself).
std::string commandOf(const CLI::App& program) {
    std::string name;
    for (const CLI::App* app = &program; !app->get_subcommands().empty();) {
        app = app->get_subcommands().front();
        name += (name.empty() ? "" : " ") + app->get_name();
    }
    return name;
}

} // namespace

int main(int argc, char** argv) {
    using namespace tracelight::cli;
#if defined(__GLIBC__)
    // The one-request commands, which read a trace file into memory, run once and exit: their big arrays (a million
    // spans, their events) come from the heap and stay there for the next, instead of each being mapped, zero-filled
    // page by page and unmapped again. Not for the others: serve lives on and gives memory back, and analyze's peak
    // on the 60 M-event corpus grew by a twentieth with it.
    const auto readsTraceFiles = [&] {
        for (const char* command : {"critical-path", "slack", "profile"})
            if (argc >= 2 && std::strcmp(argv[1], command) == 0) return true;
        return false;
    };
    if (readsTraceFiles()) {
        mallopt(M_MMAP_THRESHOLD, INT_MAX);
        mallopt(M_TRIM_THRESHOLD, INT_MAX);
        mallopt(M_TOP_PAD, 256 << 20);
    }
#endif
    CLI::App program{"Tracelight: why was this request slow? Imports event logs and spans into a trace database,\n"
                     "infers the causal model, and reports critical paths, slack and aggregate studies.",
                     "tracelight-cli"};
    program.set_version_flag("--version", "tracelight-cli 0.1.0");
    program.require_subcommand(1);
    program.formatter(std::make_shared<CLI::Formatter>());
    program.get_formatter()->label("SUBCOMMAND", "COMMAND");
    program.get_formatter()->column_width(30);
    program.footer("Run 'tracelight-cli COMMAND --help' for a command's options.");

    std::vector<Command> commands{addImportCommand(program),       addServeCommand(program),       addInfoCommand(program),  addAnalyzeCommand(program),
                                  addModelCommand(program),        addCriticalPathCommand(program),
                                  addSlackCommand(program),        addBreakdownCommand(program),  addSlackStudyCommand(program),  addWhatIfCommand(program),
                                  addBottlenecksCommand(program),
                                  addCompareCommand(program),      addPeriodCommand(program),
                                  addProfileCommand(program),      addAaCommand(program),           addContextCommand(program),       addBurstsCommand(program),      addHostActivityCommand(program),
                                  addRenderCommand(program)};
    for (const auto& c : commands) c.app->group("Commands");
    if (argc < 2) {
        std::cerr << program.help();
        return 2;
    }
    if (std::string(argv[1]) == "help") {
        std::cout << program.help();
        return 0;
    }
    try {
        program.parse(argc, argv);
    } catch (const CLI::Success& e) {  // --help, --version
        return program.exit(e);
    } catch (const CLI::ParseError& e) {
        // One line naming the command and what is wrong; 2 for every usage error (CLI11's own codes vary).
        const std::string command = commandOf(program);
        std::string what = e.what();
        if (command.empty() && argv[1][0] != '-')
            what = std::string("unknown command '") + argv[1] + "'";
        if (command.empty()) std::cerr << "tracelight-cli: " << what << " (see 'tracelight-cli --help')\n";
        else usageError(command, what);
        return 2;
    }
    for (const auto& c : commands)
        if (c.app->parsed()) return c.run();
    return usageError("", "no command given");
}
