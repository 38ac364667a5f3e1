// Paint time of the views (not run by CTest): the waterfall at 50,000 segments, the graph at 300 nodes.
// Run: tracelight_paint_bench
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QImage>

#include "../widgets/ViewFixtures.h"
#include "graph/GraphView.h"
#include "plots/SlackScatter.h"
#include "waterfall/WaterfallView.h"

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

// The slack scatter at a million requests (heat-map mode): building the map and replotting.
std::shared_ptr<RequestAggregates> syntheticAggregates(std::size_t n) { return test::makeAggregates(n, true); }

void BM_ScatterSetData1M(benchmark::State& state) {
    widgets::SlackScatter scatter;
    scatter.resize(1400, 800);
    auto a = syntheticAggregates(1000000);
    for (auto _ : state) scatter.setData(a, 0);
}
BENCHMARK(BM_ScatterSetData1M)->Unit(benchmark::kMillisecond);

void BM_ScatterRedraw1M(benchmark::State& state) {
    widgets::SlackScatter scatter;
    scatter.resize(1400, 800);
    scatter.setData(syntheticAggregates(1000000), 0);
    QImage image(scatter.size(), QImage::Format_ARGB32_Premultiplied);
    for (auto _ : state) scatter.render(&image);
}
BENCHMARK(BM_ScatterRedraw1M)->Unit(benchmark::kMillisecond);

void BM_Studies1M(benchmark::State& state) {
    auto a = syntheticAggregates(1000000);
    std::vector<std::string> users(a->requests());
    for (std::size_t r = 0; r < users.size(); ++r) users[r] = "u" + std::to_string(r % 150000);
    for (auto _ : state) {
        benchmark::DoNotOptimize(breakdown(*a));
        benchmark::DoNotOptimize(outliers(*a, 0.05));
        benchmark::DoNotOptimize(slackBuckets(*a, 0, 5));
        benchmark::DoNotOptimize(criticalShareCdf(*a, 0));
        benchmark::DoNotOptimize(predictSlack(*a, 0, 50000, users));
    }
}
BENCHMARK(BM_Studies1M)->Unit(benchmark::kMillisecond);

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    return 0;
}
