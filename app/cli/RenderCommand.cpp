// render: draws a view offscreen into a PNG, as a person would see it.
#include <QApplication>
#include <QImage>
#include <QPainter>
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "Commands.h"
#include "graph/GraphView.h"
#include "waterfall/WaterfallView.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/store/RequestTable.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::cli {

namespace {

struct RenderArgs {
    std::string view, db, out, request;
    int width = 1400, height = 800;
    bool local = false;
};

int runRender(const RenderArgs& args) {
    const std::string &view = args.view, &db = args.db, &out = args.out, &request = args.request;
    const int width = args.width, height = args.height;
    const bool local = args.local;
    if (!std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY") && !std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    int argc = 1;
    char name[] = "tracelight-cli";
    char* argv[] = {name, nullptr};
    QApplication app(argc, argv);

    auto store = TraceStore::open(db, TraceStore::Mode::ReadOnly);
    if (!store) return fail(store.message());
    QImage image(width, height, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    if (view == "waterfall") {
        RequestId id;
        if (request.empty()) {
            auto table = loadRequestTable(*store.value());
            if (!table || table->size() == 0) return fail(db + ": no requests");
            const auto order = sortedOrder(table.value(), RequestColumn::Latency, true);
            id = table->ids[order[0]];
        } else {
            if (auto found = store.value()->requestByName(request)) id = *found;
            if (!id.isValid()) return fail(db + ": no request '" + request + "'");
        }
        auto detail = loadRequestDetail(*store.value(), id);
        if (!detail) return fail(detail.message());
        widgets::WaterfallView w;
        w.resize(width, height);
        w.setLocalClocks(local);
        w.setRequest(std::make_shared<const RequestDetail>(std::move(detail.value())));
        w.render(&image);
    } else {
        auto graph = loadModelGraph(*store.value());
        if (!graph) return fail(graph.message());
        widgets::ModelOverview w;
        w.resize(width, height);
        w.setGraph(std::make_shared<const ModelGraph>(std::move(graph.value())));
        // The same layout rule as the app: Graphviz within its budget, else the layered layout.
        w.graphView()->waitForLayout();
        std::cerr << w.graphView()->layoutDescription().toStdString() << "\n";
        w.render(&image);
    }
    if (!image.save(QString::fromStdString(out), "PNG")) return fail(out + ": cannot write");
    std::cerr << "wrote " << out << "\n";
    return 0;
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
    cmd->add_option("--out", args->out, "the PNG file to write")->required()->type_name("FILE.png");
    cmd->add_option("--request", args->request, "the request to draw (waterfall)")->type_name("ID");
    cmd->add_option("--size", "image size in pixels (default 1400x800)")
        ->type_name("WxH")
        ->each([args](const std::string& size) { std::sscanf(size.c_str(), "%dx%d", &args->width, &args->height); })
        ->check(CLI::Validator(
            [](std::string& size) {
                int w = 0, h = 0;
                char extra = 0;
                return std::sscanf(size.c_str(), "%dx%d%c", &w, &h, &extra) == 2 && w >= 200 && h >= 150 && w <= 10000 &&
                               h <= 10000
                           ? std::string()
                           : "needs WxH from 200x150 to 10000x10000, e.g. 1400x800, not '" + size + "'";
            },
            "", "size"));
    cmd->add_flag("--local", args->local, "waterfall on local clocks instead of corrected ones");
    cmd->footer("Draws a view offscreen (no display needed) and writes it as PNG.");
    return {cmd, [args] { return runRender(*args); }};
}

} // namespace tracelight::cli
