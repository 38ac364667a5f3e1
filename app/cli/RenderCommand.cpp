// render: draws a view offscreen into a PNG, as a person would see it.
#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>

#include "Commands.h"
#include "common/PlotExport.h"
#include "graph/GraphView.h"
#include "graph/ServiceMapView.h"
#include "waterfall/WaterfallView.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/RequestTable.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/ServiceMap.h"

namespace tracelight::cli {

namespace {

struct RenderArgs {
    std::string view, db, out, request;
    int width = 1400, height = 800;
    bool local = false;
    bool services = false, operations = false;
    std::vector<std::string> expand;
};

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == b;
           });
}

// render graph --services / --operations: the service map of the spans, as DOT (text), SVG or PNG (drawn
// by the app's view, laid out by the same rule).
int renderServiceMap(const RenderArgs& args, const TraceStore& store) {
    auto map = loadServiceMap(store);
    if (!map) return fail(args.db + ": " + map.message());
    if (map->spans() == 0) return fail(args.db + ": no spans (the service map needs OpenTelemetry, Jaeger or Zipkin data; event logs have a causal model: render graph without --services)");
    std::set<std::string> expanded(args.expand.begin(), args.expand.end());
    for (const auto& s : expanded)
        if (std::find(map->services().begin(), map->services().end(), s) == map->services().end())
            return fail(args.db + ": no service '" + s + "' to expand");
    if (args.operations) expanded.insert(map->services().begin(), map->services().end());
    const auto shared = std::make_shared<const ServiceMap>(std::move(map.value()));
    if (endsWith(args.out, ".dot")) {
        std::ofstream out(args.out, std::ios::binary);
        out << serviceGraphDot(shared->graph(expanded));
        if (!out.flush()) return fail(args.out + ": cannot write");
        std::cerr << "wrote " << args.out << "\n";
        return 0;
    }
    widgets::ServiceMapView view;
    view.resize(args.width, args.height);
    view.setServiceMap(shared);
    for (const auto& s : expanded) view.expandService(QString::fromStdString(s));
    view.waitForLayout();
    std::cerr << view.layoutDescription().toStdString() << "\n";
    if (endsWith(args.out, ".svg")) {
        QSvgGenerator svg;
        svg.setFileName(QString::fromStdString(args.out));
        svg.setSize(view.size());
        svg.setViewBox(QRect(QPoint(0, 0), view.size()));
        svg.setTitle(QStringLiteral("Service map"));
        QPainter painter;
        if (!painter.begin(&svg)) return fail(args.out + ": cannot write");
        view.render(&painter);
        painter.end();
    } else {
        QImage image(args.width, args.height, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        view.render(&image);
        if (!image.save(QString::fromStdString(args.out), "PNG")) return fail(args.out + ": cannot write");
    }
    std::cerr << "wrote " << args.out << "\n";
    return 0;
}

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

    auto store = openDatabase(db, TraceStore::Mode::ReadOnly);
    if (!store) return fail(store.message());
    if (view == "graph" && (args.services || args.operations || !args.expand.empty())) return renderServiceMap(args, *store.value());
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
            if (auto found = requestByName(*store.value(), request)) id = *found;
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
    cmd->add_option("--out", args->out, "the file to write (PNG; graph --services also .dot or .svg)")->required()->type_name("FILE.png");
    cmd->add_option("--request", args->request, "the request to draw (waterfall)")->type_name("ID");
    cmd->add_option("--size", "image size in pixels (default 1400x800)")
        ->type_name("WxH")
        ->each([args](const std::string& size) {
            if (const auto picture = widgets::parsePictureSize(size)) {
                args->width = picture->width();
                args->height = picture->height();
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
