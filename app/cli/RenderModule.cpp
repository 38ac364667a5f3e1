// render's drawing, the module libtracelight_render.so: a view drawn offscreen into a PNG, as a person would see it.
#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>

#include "RenderArgs.h"
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

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == b;
           });
}

// render graph --services / --operations: the service map of the spans, as DOT (text), SVG or PNG (drawn
// by the app's view, laid out by the same rule).
Status renderServiceMap(const RenderArgs& args, const TraceStore& store) {
    auto map = loadServiceMap(store);
    if (!map) return Status::error(args.db + ": " + map.message());
    if (map->spans() == 0) return Status::error(args.db + ": no spans (the service map needs OpenTelemetry, Jaeger or Zipkin data; event logs have a causal model: render graph without --services)");
    std::set<std::string> expanded(args.expand.begin(), args.expand.end());
    for (const auto& s : expanded)
        if (std::find(map->services().begin(), map->services().end(), s) == map->services().end())
            return Status::error(args.db + ": no service '" + s + "' to expand");
    if (args.operations) expanded.insert(map->services().begin(), map->services().end());
    const auto shared = std::make_shared<const ServiceMap>(std::move(map.value()));
    if (endsWith(args.out, ".dot")) {
        std::ofstream out(args.out, std::ios::binary);
        out << serviceGraphDot(shared->graph(expanded));
        if (!out.flush()) return Status::error(args.out + ": cannot write");
        std::cerr << "wrote " << args.out << "\n";
        return Status::ok();
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
        if (!painter.begin(&svg)) return Status::error(args.out + ": cannot write");
        view.render(&painter);
        painter.end();
    } else {
        QImage image(args.width, args.height, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        view.render(&image);
        if (!image.save(QString::fromStdString(args.out), "PNG")) return Status::error(args.out + ": cannot write");
    }
    std::cerr << "wrote " << args.out << "\n";
    return Status::ok();
}

Status render(const RenderArgs& args, const TraceStore& store) {
    const std::string &view = args.view, &db = args.db, &out = args.out, &request = args.request;
    const int width = args.width, height = args.height;
    const bool local = args.local;
    if (!std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY") && !std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    int argc = 1;
    char name[] = "tracelight-cli";
    char* argv[] = {name, nullptr};
    QApplication app(argc, argv);

    if (view == "graph" && (args.services || args.operations || !args.expand.empty())) return renderServiceMap(args, store);
    QImage image(width, height, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    if (view == "waterfall") {
        RequestId id;
        if (request.empty()) {
            auto table = loadRequestTable(store);
            if (!table || table->size() == 0) return Status::error(db + ": no requests");
            const auto order = sortedOrder(table.value(), RequestColumn::Latency, true);
            id = table->ids[order[0]];
        } else {
            if (auto found = requestByName(store, request)) id = *found;
            if (!id.isValid()) return Status::error(db + ": no request '" + request + "'");
        }
        auto detail = loadRequestDetail(store, id);
        if (!detail) return Status::error(detail.message());
        widgets::WaterfallView w;
        w.resize(width, height);
        w.setLocalClocks(local);
        w.setRequest(std::make_shared<const RequestDetail>(std::move(detail.value())));
        w.render(&image);
    } else {
        auto graph = loadModelGraph(store);
        if (!graph) return Status::error(graph.message());
        widgets::ModelOverview w;
        w.resize(width, height);
        w.setGraph(std::make_shared<const ModelGraph>(std::move(graph.value())));
        // The same layout rule as the app: Graphviz within its budget, else the layered layout.
        w.graphView()->waitForLayout();
        std::cerr << w.graphView()->layoutDescription().toStdString() << "\n";
        w.render(&image);
    }
    if (!image.save(QString::fromStdString(out), "PNG")) return Status::error(out + ": cannot write");
    std::cerr << "wrote " << out << "\n";
    return Status::ok();
}

} // namespace

} // namespace tracelight::cli

extern "C" void tracelight_render(const tracelight::cli::RenderArgs& args, const tracelight::TraceStore& store, tracelight::Status& out) {
    out = tracelight::cli::render(args, store);
}
