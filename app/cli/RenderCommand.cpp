// render: draws a view offscreen into a PNG, as a person would see it.
#include <QApplication>
#include <QImage>
#include <QPainter>
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
const char* kRenderHelp =
    "Usage: tracelight-cli render waterfall|graph DB --out FILE.png [--request ID] [--size WxH]\n\n"
    "Draws a view offscreen (no display needed) and writes it as PNG.\n"
    "  waterfall   one request's swim lanes (default: the slowest request)\n"
    "  graph       the inferred dependency graph with its convergence plot\n"
    "  --request ID  the request to draw (waterfall)\n"
    "  --size WxH    image size in pixels (default 1400x800)\n"
    "  --local       waterfall on local clocks instead of corrected ones\n";
}

int renderCommand(const Args& args) {
    std::string view, db, out, request;
    int width = 1400, height = 800;
    bool local = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](std::string& out) { return optionValue(args, i, out); };
        if (a == "-h" || a == "--help") {
            std::cout << kRenderHelp;
            return 0;
        } else if (a == "--out") {
            if (!value(out)) return usageError("render", "--out needs a file");
        } else if (a == "--request") {
            if (!value(request)) return usageError("render", "--request needs an id");
        } else if (a == "--size") {
            std::string size;
            if (!value(size) || std::sscanf(size.c_str(), "%dx%d", &width, &height) != 2 || width < 200 || height < 150 ||
                width > 10000 || height > 10000)
                return usageError("render", "--size needs WxH, e.g. 1400x800");
        } else if (a == "--local") {
            local = true;
        } else if (!a.empty() && a[0] == '-') {
            return usageError("render", "unknown option '" + a + "'");
        } else if (view.empty()) {
            view = a;
        } else if (db.empty()) {
            db = a;
        } else {
            return usageError("render", "unexpected argument '" + a + "'");
        }
    }
    if (view != "waterfall" && view != "graph") return usageError("render", "the view is 'waterfall' or 'graph'");
    if (db.empty() || out.empty()) return usageError("render", "DB and --out FILE.png are required");

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
        w.render(&image);
    }
    if (!image.save(QString::fromStdString(out), "PNG")) return fail(out + ": cannot write");
    std::cerr << "wrote " << out << "\n";
    return 0;
}

} // namespace tracelight::cli
