// Paint time of the views (not run by CTest): the waterfall at 50,000 segments, the graph at 300 nodes,
// the flame graph at 100,000 frames (beside a bare QPainter filling as many rectangles). With
// TRACELIGHT_BENCH_TRACE_DB set to an analysed database, the waterfall of its slowest request: opened
// (detail, layout, first frame) and one frame, beside a bare SQLite scan of that request's events. With
// TRACELIGHT_BENCH_TRACE_FILE set to a span file, its first waterfall from memory, stage by stage.
// Run: tracelight_paint_bench
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QImage>

#include "../widgets/ViewFixtures.h"
#include <QPainter>
#include <chrono>
#include <cstdlib>
#include <random>
#include <sqlite3.h>

#include "graph/GraphView.h"
#include "profile/FlameGraphView.h"
#include "plots/SlackScatter.h"
#include "waterfall/SpanTreePane.h"
#include "waterfall/WaterfallView.h"
#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/import/TraceFileContents.h"
#include "tracelight/store/RequestTable.h"
#include "tracelight/store/TraceStore.h"

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

// The slowest request of TRACELIGHT_BENCH_TRACE_DB (a million-span trace: issue 15's waterfall in 2 s).
struct BenchTrace {
    std::unique_ptr<TraceStore> store;
    RequestId request;
};

BenchTrace benchTrace(benchmark::State& state) {
    const char* path = std::getenv("TRACELIGHT_BENCH_TRACE_DB");
    if (!path) {
        state.SkipWithError("set TRACELIGHT_BENCH_TRACE_DB to an analysed database");
        return {};
    }
    auto store = TraceStore::open(path, TraceStore::Mode::ReadOnly);
    if (!store) {
        state.SkipWithError(store.message().c_str());
        return {};
    }
    auto table = loadRequestTable(*store.value());
    if (!table || table->size() == 0) {
        state.SkipWithError("no requests");
        return {};
    }
    const RequestId id = table->ids[sortedOrder(table.value(), RequestColumn::Latency, true)[0]];
    return {std::move(store.value()), id};
}

void BM_BareRequestEventScan(benchmark::State& state) {
    auto trace = benchTrace(state);
    if (!trace.store) return;
    std::int64_t rows = 0;
    for (auto _ : state) {
        sqlite3* db = nullptr;
        sqlite3_open_v2(trace.store->path().c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
        sqlite3_stmt* q = nullptr;
        sqlite3_prepare_v2(db, "SELECT task_id, ord, event_id, host_id, ts_ns FROM events WHERE request_id=?1 ORDER BY task_id, ord", -1,
                           &q, nullptr);
        sqlite3_bind_int64(q, 1, trace.request.value);
        std::int64_t sum = 0;
        rows = 0;
        while (sqlite3_step(q) == SQLITE_ROW) {
            sum += sqlite3_column_int64(q, 0) + sqlite3_column_int64(q, 1) + sqlite3_column_int64(q, 2) +
                   sqlite3_column_int64(q, 3) + sqlite3_column_int64(q, 4);
            ++rows;
        }
        benchmark::DoNotOptimize(sum);
        sqlite3_finalize(q);
        sqlite3_close(db);
    }
    state.counters["events"] = static_cast<double>(rows);
}
BENCHMARK(BM_BareRequestEventScan)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// As the app opens it: the detail with the graph's edges to follow (an analysed request), its layout and
// first frame; the edges are BM_WaterfallDependencies.
void BM_WaterfallOpen(benchmark::State& state) {
    auto trace = benchTrace(state);
    if (!trace.store) return;
    QImage image(QSize(1400, 800), QImage::Format_ARGB32_Premultiplied);
    std::size_t segments = 0;
    std::vector<std::unique_ptr<widgets::WaterfallView>> opened;  // freed after timing: freeing is not opening
    std::vector<DependencyWork> left;
    for (auto _ : state) {
        auto detail = loadRequestDetail(*trace.store, trace.request, nullptr, &left.emplace_back());
        if (!detail) {
            state.SkipWithError(detail.message().c_str());
            return;
        }
        segments = detail->dag.segments.size();
        auto& view = opened.emplace_back(std::make_unique<widgets::WaterfallView>());
        view->resize(image.size());
        view->setRequest(std::make_shared<const RequestDetail>(std::move(detail.value())));
        view->render(&image);
    }
    state.counters["segments"] = static_cast<double>(segments);
}
BENCHMARK(BM_WaterfallOpen)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// A trace file opened without its database, as the app first shows it: the file read into memory, the first
// request's detail from the one pass, its layout, and the first frame; each stage's seconds as a counter.
// Set TRACELIGHT_BENCH_TRACE_FILE to a span file (make_single_trace.py).
void BM_WaterfallFromFile(benchmark::State& state) {
    const char* file = std::getenv("TRACELIGHT_BENCH_TRACE_FILE");
    if (!file) {
        state.SkipWithError("set TRACELIGHT_BENCH_TRACE_FILE to a span file (make_single_trace.py)");
        return;
    }
    using Clock = std::chrono::steady_clock;
    auto seconds = [](Clock::time_point from, Clock::time_point to) { return std::chrono::duration<double>(to - from).count(); };
    QImage image(QSize(1400, 800), QImage::Format_ARGB32_Premultiplied);
    double read = 0, detailed = 0, laidOut = 0, drawn = 0;
    std::size_t segments = 0;
    std::vector<std::unique_ptr<widgets::WaterfallView>> opened;  // freed after timing: freeing is not opening
    std::vector<std::shared_ptr<const TraceFileContents>> kept;
    for (auto _ : state) {
        const auto start = Clock::now();
        ImportOptions options;
        options.inputs = {file};
        auto contents = readSpanFiles(options);
        if (!contents || contents->data.requestCount() == 0) {
            state.SkipWithError(contents ? "no requests" : contents.message().c_str());
            return;
        }
        const auto afterRead = Clock::now();
        auto detail = requestDetailFromData(contents->data, 0, contents->requestNames[0]);
        if (!detail) {
            state.SkipWithError(detail.message().c_str());
            return;
        }
        const auto afterDetail = Clock::now();
        segments = detail->dag.segments.size();
        auto shown = std::make_shared<const RequestDetail>(std::move(detail.value()));
        widgets::WaterfallLayout layout = widgets::WaterfallLayout::build(*shown, false);
        const auto afterLayout = Clock::now();
        auto& view = opened.emplace_back(std::make_unique<widgets::WaterfallView>());
        view->resize(image.size());
        view->setRequest(shown, std::move(layout));
        view->render(&image);
        const auto afterFrame = Clock::now();
        kept.push_back(std::make_shared<const TraceFileContents>(std::move(contents.value())));
        read += seconds(start, afterRead);
        detailed += seconds(afterRead, afterDetail);
        laidOut += seconds(afterDetail, afterLayout);
        drawn += seconds(afterLayout, afterFrame);
    }
    const double runs = static_cast<double>(state.iterations());
    state.counters["read_s"] = read / runs;
    state.counters["detail_s"] = detailed / runs;
    state.counters["layout_s"] = laidOut / runs;
    state.counters["frame_s"] = drawn / runs;
    state.counters["segments"] = static_cast<double>(segments);
}
BENCHMARK(BM_WaterfallFromFile)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// The span tree's data (span data only), which the app reads on a worker of its own after the lanes are shown.
void BM_SpanTreeLoad(benchmark::State& state) {
    auto trace = benchTrace(state);
    if (!trace.store) return;
    DependencyWork later;
    auto detail = loadRequestDetail(*trace.store, trace.request, nullptr, &later);
    if (!detail) {
        state.SkipWithError(detail.message().c_str());
        return;
    }
    std::size_t spans = 0;
    std::vector<std::shared_ptr<const widgets::SpanTreeData>> loaded;  // freed after timing
    for (auto _ : state) {
        loaded.push_back(widgets::loadSpanTree(*trace.store, detail.value()));
        spans = loaded.back() ? loaded.back()->spans.size() : 0;
    }
    state.counters["spans"] = static_cast<double>(spans);
}
BENCHMARK(BM_SpanTreeLoad)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// What follows the open on a worker: the request graph's edges (only a selection draws them).
void BM_WaterfallDependencies(benchmark::State& state) {
    auto trace = benchTrace(state);
    if (!trace.store) return;
    std::size_t edges = 0;
    std::vector<RequestDependencies> found;  // freed after timing
    for (auto _ : state) {
        state.PauseTiming();
        DependencyWork later;
        auto detail = loadRequestDetail(*trace.store, trace.request, nullptr, &later);
        if (!detail || !later) {
            state.SkipWithError(detail ? "the request is not analysed: its edges come with the detail" : detail.message().c_str());
            return;
        }
        state.ResumeTiming();
        edges = found.emplace_back(later(detail->dag.segments)).edges.size();
    }
    state.counters["edges"] = static_cast<double>(edges);
}
BENCHMARK(BM_WaterfallDependencies)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_WaterfallFrame(benchmark::State& state) {
    auto trace = benchTrace(state);
    if (!trace.store) return;
    auto detail = loadRequestDetail(*trace.store, trace.request);
    if (!detail) {
        state.SkipWithError(detail.message().c_str());
        return;
    }
    widgets::WaterfallView view;
    view.resize(1400, 800);
    view.setRequest(std::make_shared<const RequestDetail>(std::move(detail.value())));
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    for (auto _ : state) view.render(&image);
    state.counters["marks"] = view.lastPaintStats().bars + view.lastPaintStats().foldedMarks;
}
BENCHMARK(BM_WaterfallFrame)->Unit(benchmark::kMillisecond)->UseRealTime();

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
