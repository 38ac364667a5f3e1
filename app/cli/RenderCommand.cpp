// render: draws a view offscreen into a PNG, as a person would see it. The drawing is the module
// libtracelight_render.so (RenderModule.cpp), loaded only here: Qt's widget libraries are not loaded and bound
// at the start of every other command.
#include <CLI/CLI.hpp>

#include "Commands.h"
#include "RenderArgs.h"
#include "common/PictureSize.h"
#include "tracelight/base/LoadableModule.h"

namespace tracelight::cli {

namespace {

int runRender(const RenderArgs& args) {
    auto entry = moduleSymbol("tracelight_render", "tracelight_render");
    if (!entry) return fail("render needs the GUI libraries, which this build has not: " + entry.message());
    auto store = openDatabase(args.db, TraceStore::Mode::ReadOnly);
    if (!store) return fail(store.message());
    Status drawn = Status::ok();
    reinterpret_cast<RenderEntry>(entry.value())(args, *store.value(), drawn);
    return drawn ? 0 : fail(drawn.message());
}

} // namespace

Command addRenderCommand(CLI::App& program) {
    auto args = std::make_shared<RenderArgs>();
    auto* cmd = program.add_subcommand("render", "draw a view (waterfall, graph) offscreen to PNG");
    cmd->add_option("VIEW", args->view, "waterfall: one request's swim lanes (default: the slowest request);\n"
                                        "graph: the inferred dependency graph with its convergence plot")
        ->required()
        ->type_name("")
        ->check(CLI::IsMember({"waterfall", "graph"}));
    addDatabaseArgument(*cmd, args->db);
    cmd->add_option("--out", args->out, "the file to write (PNG; graph --services also .dot or .svg)")->required()->type_name("FILE.png");
    cmd->add_option("--request", args->request, "the request to draw (waterfall)")->type_name("ID");
    cmd->add_option("--size", "image size in pixels (default 1400x800)")
        ->type_name("WxH")
        ->each([args](const std::string& size) {
            if (const auto picture = widgets::parsePictureSize(size)) {
                args->width = picture->width;
                args->height = picture->height;
            }
        })
        ->check(CLI::Validator(
            [](std::string& size) {
                return widgets::parsePictureSize(size) ? std::string()
                                                       : "needs WxH from 200x150 to 10000x10000, e.g. 1400x800, not '" + size + "'";
            },
            "", "size"));
    cmd->add_flag("--local", args->local, "waterfall on local clocks instead of corrected ones");
    cmd->add_flag("--services", args->services,
                  "graph: the service map of span data (services, calls with counts and p50/p99) instead of the causal model;\n"
                  "--out FILE.dot writes Graphviz DOT, FILE.svg an SVG, else a PNG");
    cmd->add_flag("--operations", args->operations, "graph: the service map with every service expanded into its operations");
    cmd->add_option("--expand", args->expand, "graph: expand this service into its operations (implies --services; repeatable)")
        ->type_name("SERVICE");
    cmd->footer("Draws a view offscreen (no display needed) and writes it as PNG.");
    return {cmd, [args] { return runRender(*args); }};
}

} // namespace tracelight::cli
