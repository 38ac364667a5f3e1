// Paint time of the views (not run by CTest): the waterfall at 50,000 segments, the graph at 300 nodes,
// the flame graph at 100,000 frames (beside a bare QPainter filling as many rectangles).
// Run: tracelight_paint_bench
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QImage>

#include "../widgets/ViewFixtures.h"
#include <QPainter>
#include <random>

#include "graph/GraphView.h"
#include "profile/FlameGraphView.h"
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

// A profile of 100,000 frames: 100 top frames of 999 children each, random times (children within their parent).
std::shared_ptr<const ProfileSet> makeProfile(std::size_t tops, std::size_t children) {
    auto set = std::make_shared<ProfileSet>();
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(1e3, 1e6);
    ProfileGroup g;
    g.requests = 1;
    for (std::size_t t = 0; t < tops; ++t) {
        const auto top = static_cast<std::int32_t>(set->frames.size());
        set->frames.push_back({-1, "top " + std::to_string(t), FrameKind::Span, {"svc" + std::to_string(t % 12)}});
        g.frames.push_back({});
        double sum = 0;
        for (std::size_t c = 0; c < children; ++c) {
            set->frames.push_back({top, "child " + std::to_string(c), FrameKind::Span, {"svc" + std::to_string(c % 12)}});
            FrameStats s;
            s.totalSum = s.selfSum = u(rng);
            sum += s.totalSum;
            g.frames.push_back(s);
        }
        g.frames[static_cast<std::size_t>(top)].totalSum = sum * 1.1;
        g.frames[static_cast<std::size_t>(top)].selfSum = sum * 0.1;
        g.latencySumNs += sum * 1.1;
    }
    set->groups = {g};
    return set;
}

void BM_FlameGraphPaint100k(benchmark::State& state) {
    widgets::FlameGraphView view;
    view.resize(1400, 800);
    view.setProfile(makeProfile(100, 999));
    if (state.range(0) == 1) view.zoomTo(0);  // zoomed into a top frame: its 999 children are all over a pixel
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    for (auto _ : state) view.render(&image);
}
BENCHMARK(BM_FlameGraphPaint100k)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The bare baseline: one QPainter filling 100,000 one-pixel-wide rectangles on the same image.
void BM_BareFill100kRects(benchmark::State& state) {
    QImage image(1400, 800, QImage::Format_ARGB32_Premultiplied);
    for (auto _ : state) {
        QPainter p(&image);
        for (int i = 0; i < 100000; ++i) p.fillRect(QRectF(i % 1400, 2 + (i / 1400 % 3) * 20, 1, 18), QColor(0x74, 0xc0, 0xfc));
    }
}
BENCHMARK(BM_BareFill100kRects)->Unit(benchmark::kMillisecond);

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
