// Paint time of the views (not run by CTest): the waterfall at 50,000 segments, the graph at 300 nodes.
// Run: tracelight_paint_bench
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QImage>

#include "../widgets/ViewFixtures.h"
#include "GraphView.h"
#include "WaterfallView.h"

using namespace tracelight;

namespace {

void BM_WaterfallPaint50k(benchmark::State& state) {
    widgets::WaterfallView view;
    view.resize(1400, 800);
    view.setRequest(test::makeLongRequest(50000));
    if (state.range(0) == 1) view.setVisibleRange(20000, 20400);  // zoomed in: 400 bars
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    for (auto _ : state) view.render(&image);
    state.counters["marks"] = view.lastPaintStats().bars + view.lastPaintStats().foldedMarks;
}
BENCHMARK(BM_WaterfallPaint50k)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_WaterfallLayout50k(benchmark::State& state) {
    auto detail = test::makeLongRequest(50000);
    for (auto _ : state) benchmark::DoNotOptimize(widgets::WaterfallLayout::build(*detail, false));
}
BENCHMARK(BM_WaterfallLayout50k)->Unit(benchmark::kMillisecond);

void BM_GraphPaint300(benchmark::State& state) {
    widgets::GraphView view;
    view.resize(1400, 800);
    view.setGraph(test::makeGraph(300));
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    for (auto _ : state) view.render(&image);
}
BENCHMARK(BM_GraphPaint300)->Unit(benchmark::kMillisecond);

void BM_GraphLayout300(benchmark::State& state) {
    widgets::GraphView view;
    view.resize(1400, 800);
    auto graph = test::makeGraph(300);
    for (auto _ : state) view.setGraph(graph);  // Graphviz dot layout
}
BENCHMARK(BM_GraphLayout300)->Unit(benchmark::kMillisecond)->Iterations(3);

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    return 0;
}
