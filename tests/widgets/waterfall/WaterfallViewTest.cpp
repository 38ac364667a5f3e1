#include <gtest/gtest.h>

#include <random>

#include <QApplication>
#include <QImage>
#include <QScrollBar>
#include <QHelpEvent>
#include <QToolTip>

#include "common/Palette.h"
#include "widgets/ViewFixtures.h"
#include "widgets/waterfall/LayoutStarts.h"
#include "waterfall/TemporalContextStrip.h"
#include "waterfall/WaterfallLayout.h"
#include "waterfall/WaterfallView.h"

using namespace tracelight;
using tracelight::widgets::WaterfallView;

namespace {
// client: main A->B [0,10]; network B->C to server [10,20]; server: main C->D [20,50]; w S->E [25,35].
std::shared_ptr<RequestDetail> smallRequest() {
    return test::makeDetail({"client", "server"},
                            {{"main", "A", "B", 0, 0, 0, 10}, {"main", "B", "C", 0, 1, 10, 20}, {"main", "C", "D", 1, 1, 20, 50},
                             {"w", "S", "E", 1, 1, 25, 35}},
                            {{0, 1}, {1, 2}, {1, 3}});
}

QImage render(WaterfallView& view) {
    QImage image(view.size(), QImage::Format_ARGB32);
    view.render(&image);
    return image;
}
} // namespace

TEST(WaterfallView, BarsSitAtTheirTimesInTheirLanes) {
    WaterfallView view;
    view.resize(1000, 400);
    view.setRequest(smallRequest());
    view.setVisibleRange(0, 100);
    const auto& layout = view.layout();
    // Rows: critical path, client, client/main, server, server/main, server/w.
    ASSERT_EQ(layout.rows.size(), 6u);
    EXPECT_EQ(widgets::WaterfallLayout::label(*view.request(), layout.rows[1]), QStringLiteral("client"));
    EXPECT_EQ(widgets::WaterfallLayout::label(*view.request(), layout.rows[5]), QStringLiteral("w"));
    const double plotWidth = 1000 - 8 - 190;
    const QRectF a = view.segmentRect(0), c = view.segmentRect(2), w = view.segmentRect(3);
    EXPECT_NEAR(a.left(), 190, 0.5);
    EXPECT_NEAR(a.width(), plotWidth * 0.10, 0.5);
    EXPECT_NEAR(c.left(), 190 + plotWidth * 0.20, 0.5);
    EXPECT_NEAR(w.width(), plotWidth * 0.10, 0.5);
    EXPECT_GT(w.top(), c.top()) << "the w task has its own sub-lane under the server";
    EXPECT_EQ(layout.fromRow[1], 2);  // the network segment leaves client/main ...
    EXPECT_EQ(layout.toRow[1], 4);    // ... and reaches server/main
}

TEST(WaterfallView, CriticalPathIsHighlightedAndSlackShown) {
    WaterfallView view;
    view.resize(1000, 400);
    auto detail = smallRequest();
    view.setRequest(detail);
    view.setVisibleRange(0, 100);
    ASSERT_EQ(detail->criticalPath.segments, (std::vector<std::uint32_t>{0, 1, 2}));
    EXPECT_EQ(detail->slackNs[3], 15000);  // w may grow until the request ends at 50 us
    const QImage image = render(view);
    const QColor critical = widgets::palette::critical();
    EXPECT_EQ(QColor(image.pixel(view.segmentRect(2).center().toPoint())).rgb(), critical.rgb());
    EXPECT_NE(QColor(image.pixel(view.segmentRect(3).center().toPoint())).rgb(), critical.rgb());
    // Slack: the faint band right after w's bar, up to 15 us later.
    const QRectF w = view.segmentRect(3);
    const QColor band = QColor(image.pixel(QPoint(static_cast<int>(w.right() + 20), static_cast<int>(w.center().y()))));
    EXPECT_NE(band.rgb(), QColor(Qt::white).rgb());
    EXPECT_GT(band.green(), band.red());
}

// A span child cut at its parent's end: only its part on the path is drawn as critical.
TEST(WaterfallView, OnlyTheCriticalPartOfAClippedSegmentIsDrawnAsCritical) {
    WaterfallView view;
    view.resize(1000, 400);
    auto detail = smallRequest();
    const SegmentInstance& w = detail->dag.segments[3];
    const TimeNs middle = w.startNs + (w.endNs - w.startNs) / 2;
    detail->criticalPath.clips.push_back({static_cast<std::uint32_t>(detail->criticalPath.segments.size()), w.startNs, middle});
    detail->criticalPath.segments.push_back(3);
    detail->critical[3] = true;
    view.setRequest(detail);
    view.setVisibleRange(0, 100);
    ASSERT_EQ(view.layout().criticalPart.count(3), 1u);
    const QImage image = render(view);
    const QRectF bar = view.segmentRect(3);
    const int y = static_cast<int>(bar.bottom()) - 3;  // below the bar's label
    const QRgb critical = widgets::palette::critical().rgb();
    EXPECT_EQ(QColor(image.pixel(static_cast<int>(bar.left() + bar.width() * 0.25), y)).rgb(), critical);
    EXPECT_NE(QColor(image.pixel(static_cast<int>(bar.left() + bar.width() * 0.75), y)).rgb(), critical);
}

TEST(WaterfallView, HitTestingReturnsTheSegmentUnderTheMouse) {
    WaterfallView view;
    view.resize(1000, 400);
    view.setRequest(smallRequest());
    view.setVisibleRange(0, 100);
    for (int s : {0, 2, 3}) EXPECT_EQ(view.segmentAt(view.segmentRect(s).center().toPoint()), s);
    // The network connector, halfway between its two lanes.
    const double x = 190 + (1000 - 8 - 190) * 0.15;
    const double y = (view.rowTop(2) + 10 + view.rowTop(4) + 10) / 2.0;
    EXPECT_EQ(view.segmentAt(QPoint(static_cast<int>(x), static_cast<int>(y))), 1);
    EXPECT_EQ(view.segmentAt(QPoint(980, 380)), -1);
    EXPECT_EQ(view.segmentAt(QPoint(50, 100)), -1);  // the label gutter
}

TEST(WaterfallView, FoldsFiftyThousandSegmentsIntoCountedMarks) {
    WaterfallView view;
    view.resize(1200, 300);
    view.setRequest(test::makeLongRequest(50000));
    render(view);
    const auto stats = view.lastPaintStats();
    EXPECT_GT(stats.foldedMarks, 0);
    EXPECT_GT(stats.foldedSegments, 40000);
    EXPECT_LT(stats.bars + stats.foldedMarks, 2 * 1200) << "no more marks than pixels";
    // Zoomed in on 100 us, every segment is its own bar again.
    view.setVisibleRange(1000, 1100);
    render(view);
    EXPECT_EQ(view.lastPaintStats().foldedMarks, 0);
    EXPECT_GE(view.lastPaintStats().bars, 100);
}

TEST(WaterfallView, LocalClocksShowTheSkew) {
    WaterfallView view;
    view.resize(1000, 400);
    view.setRequest(smallRequest());
    view.setLocalClocks(true);
    // The server's clock runs 1 ms ahead in the fixture: its segments move right by 1000 us.
    EXPECT_NEAR(view.layout().startUs(*view.request(), 2) - view.layout().startUs(*view.request(), 0), 1020, 1e-9);
    view.setLocalClocks(false);
    EXPECT_NEAR(view.layout().startUs(*view.request(), 2) - view.layout().startUs(*view.request(), 0), 20, 1e-9);
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

// A root with a hundred thousand children on one host (issue 15's shape): one lane per task under the host,
// each segment in its task's lane. Laying out searched the host's task list per segment (quadratic: a
// million children kept the GUI thread busy for minutes).
TEST(WaterfallLayout, ATaskPerChildOnOneHost) {
    constexpr int kTasks = 100000;
    RequestDetail d;
    d.analysed = true;
    d.hosts = {"front"};
    for (int k = 0; k < kTasks; ++k) {
        d.addTask("child#" + std::to_string(k + 1));
        d.dag.segments.push_back({SegmentTypeId(0), TimeNs(k) * 1000, TimeNs(k + 1) * 1000, static_cast<std::uint32_t>(k), false});
        d.nameSegmentEvents("start", "end");
        d.segmentTask.push_back(static_cast<std::uint32_t>(k));
        d.segmentStartHost.push_back(0);
        d.segmentEndHost.push_back(0);
        d.localStartNs.push_back(TimeNs(k) * 1000);
        d.localEndNs.push_back(TimeNs(k + 1) * 1000);
    }
    d.dag.endNs = TimeNs(kTasks) * 1000;
    RequestDagBuilder::finish(d.dag, {});
    d.criticalPath = computeCriticalPath(d.dag);
    const widgets::WaterfallLayout layout = widgets::WaterfallLayout::build(d, false);
    ASSERT_EQ(layout.rows.size(), 2u + kTasks);  // the critical path, the host, a lane per task
    EXPECT_EQ(layout.rows[1].kind, widgets::WaterfallRow::Host);
    for (int k : {0, 1, kTasks / 2, kTasks - 1}) {
        const auto r = static_cast<std::size_t>(layout.fromRow[static_cast<std::size_t>(k)]);
        const auto& row = layout.rows[r];
        EXPECT_EQ(row.kind, widgets::WaterfallRow::Task);
        EXPECT_EQ(row.task, k);
        EXPECT_EQ(std::vector<int>(layout.segments(r).begin(), layout.segments(r).end()), std::vector<int>{k});
    }
}

// The temporal-context strip under the waterfall: a cell per host and slice, found again from its middle,
// offering the requests core listed for it; drawn without a crash; room asked for every host's row (up to
// six); cleared with a message.
TEST(TemporalContextStrip, CellsFindTheirRequests) {
    auto strip = std::make_shared<ContextStrip>();
    strip->request = RequestId(1);
    strip->startNs = 0;
    strip->endNs = 1'000'000;
    strip->buckets = 4;
    strip->hosts.push_back({"web-1", {2, 0, 1, 3}, {2, 0, 1, 3}, {{RequestId(5), RequestId(9)}, {}, {RequestId(5)}, {RequestId(2), RequestId(5), RequestId(9)}}});
    strip->hosts.push_back({"db-1", {0, 1, 0, 0}, {0, 1, 0, 0}, {{}, {RequestId(7)}, {}, {}}});
    widgets::TemporalContextStrip view;
    view.resize(800, 120);
    view.setStrip(strip, {});
    for (int h = 0; h < 2; ++h)
        for (int b = 0; b < 4; ++b) {
            EXPECT_EQ(view.cellAt(view.cellRect(h, b).center()), std::make_pair(h, b));
            EXPECT_EQ(view.requestsIn(h, b), strip->hosts[static_cast<std::size_t>(h)].listed[static_cast<std::size_t>(b)]);
        }
    EXPECT_EQ(view.cellAt(QPoint(5, 5)), std::make_pair(-1, -1));
    EXPECT_TRUE(view.requestsIn(1, 7).empty());
    QImage image(view.size(), QImage::Format_ARGB32);
    view.render(&image);
    // A request on five hosts: the strip asks for room for all five rows and the footer under them.
    auto wide = std::make_shared<ContextStrip>(*strip);
    for (const char* host : {"cache-1", "queue-1", "auth-1"}) wide->hosts.push_back({host, {0, 0, 0, 0}, {0, 0, 0, 0}, {{}, {}, {}, {}}});
    view.setStrip(wide, {});
    EXPECT_GE(view.minimumHeight(), view.cellRect(4, 0).bottom() + view.fontMetrics().height());
    view.clear(QStringLiteral("nothing"));
    EXPECT_EQ(view.strip(), nullptr);
}

// With host activity: a band under each cell, orange where the host's non-traced work ran in that slice (deeper
// the busier), the base colour where none did; the request's own marked work a purple bar at its time in a last
// row; the cells still found from their middles, and room asked for the extra row.
TEST(TemporalContextStrip, HostActivityBandsAndOwnWork) {
    auto strip = std::make_shared<ContextStrip>();
    strip->request = RequestId(1);
    strip->startNs = 0;
    strip->endNs = 4'000'000;
    strip->buckets = 4;
    strip->withActivity = true;
    ContextStripHost web{"web-1", {1, 0, 0, 2}, {1, 0, 0, 2}, {{RequestId(5)}, {}, {}, {RequestId(2), RequestId(5)}}};
    web.activityRecords = {1, 0, 1, 1};
    web.activityNs = {1'000'000, 0, 100'000, 1'000'000};  // slices of 1 ms: full, none, a tenth, full
    web.activity = {{{"gc", 1, 1'000'000}}, {}, {{"cron", 1, 100'000}}, {{"compaction", 1, 1'000'000}}};
    strip->hosts.push_back(web);
    strip->own.push_back({"web-1", "syscall:read", "t", 2'000'000, 3'000'000});  // the third quarter
    widgets::TemporalContextStrip view;
    view.resize(800, 140);
    view.setStrip(strip, {});
    for (int b = 0; b < 4; ++b) EXPECT_EQ(view.cellAt(view.cellRect(0, b).center()), std::make_pair(0, b));
    QImage image(view.size(), QImage::Format_ARGB32);
    image.fill(Qt::white);
    view.render(&image);
    const auto orange = [](QColor c) { return c.red() > 200 && c.green() < 200 && c.blue() < 150; };
    const QColor full = image.pixelColor(view.activityRect(0, 0).center()), none = image.pixelColor(view.activityRect(0, 1).center()),
                 little = image.pixelColor(view.activityRect(0, 2).center());
    EXPECT_TRUE(orange(full)) << full.name().toStdString();
    EXPECT_FALSE(orange(none)) << none.name().toStdString();
    EXPECT_GT(little.green(), full.green()) << "a tenth of the slice is paler than all of it";
    const QRect own = view.ownRect(0);
    EXPECT_NEAR(own.left(), view.cellRect(0, 2).left(), 2);
    EXPECT_NEAR(own.right(), view.cellRect(0, 2).right(), 3);
    EXPECT_GT(own.top(), view.activityRect(0, 0).bottom());
    const QColor purple = image.pixelColor(QPoint(own.left() + 2, own.center().y()));  // beside its centred label
    EXPECT_GT(purple.blue(), purple.green() + 50) << purple.name().toStdString();
    EXPECT_GE(view.minimumHeight(), own.bottom() + view.fontMetrics().height());
    EXPECT_EQ(view.activityRect(0, 0).top(), view.cellRect(0, 0).bottom() + 1);
}

// Scrolled into the middle of many lanes, a network line from a lane above the view to one below it
// crosses the view and is drawn; one between two lanes below the view is not.
TEST(WaterfallView, NetworkLinesAreCulledByTheirLanesNotLost) {
    static std::vector<std::string> names;
    names.clear();
    for (int k = 0; k < 60; ++k) names.push_back("t" + std::to_string(k));
    std::vector<test::SegmentSpec> specs;
    for (int k = 0; k < 60; ++k) specs.push_back({names[k].c_str(), "s", "e", 0, 0, k * 10.0, k * 10.0 + 5});
    specs.push_back({"t0", "call", "serve", 0, 1, 600, 700});   // t0 on a (top lanes) to t0 on b (bottom lanes)
    specs.push_back({"t59", "call", "serve", 0, 1, 650, 660});  // t59 on a and on b: both at the bottom
    const auto detail = test::makeDetail({"a", "b"}, specs, {});
    // What is drawn up to 700 us minus what is drawn up to 599 us: the lines (every bar ends by 595 us).
    auto drawnUpTo = [&](double toUs) {
        WaterfallView view;
        view.resize(800, 300);
        view.setRequest(detail);
        view.setVisibleRange(0, toUs);
        auto* bar = view.findChild<QScrollBar*>();
        EXPECT_TRUE(bar && bar->maximum() > 0);
        if (bar) bar->setValue(bar->maximum() / 2);
        render(view);
        return view.lastPaintStats().bars;
    };
    EXPECT_EQ(drawnUpTo(700) - drawnUpTo(599), 1);
}

// A detail loaded with its dependencies to follow draws at once; a selection's edges appear when they
// arrive for that request, and not when they arrive for another.
TEST(WaterfallView, DependenciesThatFollowAreDrawnForTheirRequestOnly) {
    const auto complete = smallRequest();
    auto first = std::make_shared<RequestDetail>(*complete);
    first->dag.edges.clear();
    first->dag.firstEdgeTo.clear();
    first->dependenciesFollow = true;
    WaterfallView view;
    view.resize(1000, 400);
    view.setRequest(first);
    view.setVisibleRange(0, 100);
    view.selectSegment(1);
    EXPECT_FALSE(view.dependenciesKnown());
    EXPECT_TRUE(view.dependencies().empty());
    const QImage before = render(view);

    auto dependencies = std::make_shared<RequestDependencies>(RequestDependencies{complete->dag.edges, complete->dag.firstEdgeTo});
    view.setDependencies(complete.get(), dependencies);  // another request's: dropped
    EXPECT_FALSE(view.dependenciesKnown());
    view.setDependencies(first.get(), dependencies);
    ASSERT_TRUE(view.dependenciesKnown());
    ASSERT_EQ(view.dependencies().size(), complete->dag.edges.size());
    EXPECT_EQ(view.dependencies().data(), dependencies->edges.data());
    EXPECT_NE(render(view), before) << "the selection's edges are drawn once they are known";

    view.setRequest(complete);  // a complete detail brings its own edges
    EXPECT_TRUE(view.dependenciesKnown());
    EXPECT_EQ(view.dependencies().data(), complete->dag.edges.data());
    view.setRequest(first);  // and a new detail forgets what followed for the last
    EXPECT_FALSE(view.dependenciesKnown());
}

// Whole blocks of narrow, close segments join a fold at once; the marks and counts must be those of the
// rule applied one segment at a time (here by brute force), with wide bars and wide gaps anywhere in a block.
TEST(WaterfallView, FoldingBlocksGivesTheMarksOfFoldingSegmentByOne) {
    std::vector<test::SegmentSpec> specs;
    std::vector<std::pair<int, int>> deps;
    std::mt19937 rng(9);
    double t = 0;
    for (int i = 0; i < 30000; ++i) {
        const double gap = rng() % 509 == 0 ? 5000 : (rng() % 3) * 0.5;  // now and then a gap that breaks a fold
        const double length = rng() % 701 == 0 ? 3000 : 1;              // now and then a bar of its own
        t += gap;
        specs.push_back({"loop", "A", "B", 0, 0, t, t + length});
        if (i > 0) deps.emplace_back(i - 1, i);
        t += length;
    }
    WaterfallView view;
    view.resize(1000, 300);
    view.setRequest(test::makeDetail({"host"}, specs, deps));
    const auto& layout = view.layout();
    for (const auto& [from, to] : {std::pair{0.0, t}, std::pair{0.0, t / 7}, std::pair{t / 3, t / 3 + 40000}, std::pair{1234.5, t - 99.0}}) {
        view.setVisibleRange(from, to);
        render(view);
        // The rule, one segment at a time, over the lanes that draw bars.
        const double left = 190, plotWidth = 1000 - 8 - 190;
        auto xAt = [&](double us) { return left + (us - from) / (to - from) * plotWidth; };
        widgets::WaterfallView::PaintStats truth;
        for (std::size_t r = 0; r < layout.rows.size(); ++r) {
            if (layout.rows[r].kind == widgets::WaterfallRow::Host) continue;
            double foldEnd = 0;
            int count = 0;
            auto flush = [&] {
                if (count > 1) ++truth.foldedMarks, truth.foldedSegments += count;
                else if (count == 1) ++truth.bars;
                count = 0;
            };
            for (int s : layout.segments(r)) {
                const auto k = static_cast<std::size_t>(s);
                const double startUs = layout.startUs(*view.request(), k), endUs = layout.endUs(*view.request(), k);
                if (endUs < from) continue;
                if (startUs > to) break;
                const double x0 = xAt(startUs), x1 = xAt(endUs);
                if (x1 - x0 < 3) {
                    if (count > 0 && x0 - foldEnd > 3) flush();
                    foldEnd = count == 0 ? x1 : std::max(foldEnd, x1);
                    ++count;
                } else {
                    flush();
                    ++truth.bars;
                }
            }
            flush();
        }
        const auto stats = view.lastPaintStats();
        EXPECT_GT(truth.foldedSegments, 1000) << "the view folds long runs here";
        EXPECT_EQ(stats.bars, truth.bars) << from << ".." << to << " us";
        EXPECT_EQ(stats.foldedMarks, truth.foldedMarks) << from << ".." << to << " us";
        EXPECT_EQ(stats.foldedSegments, truth.foldedSegments) << from << ".." << to << " us";
    }
}

// The app builds the layout on the detail's worker: given to the view, it draws what the view's own layout
// draws; built for the other clocks than the view shows by then, or for another request, the view builds
// its own.
TEST(WaterfallView, ALayoutBuiltBeforehandDrawsAsTheViewsOwn) {
    const auto detail = smallRequest();
    WaterfallView own, given;
    for (WaterfallView* v : {&own, &given}) v->resize(1000, 400);
    own.setRequest(detail);
    given.setRequest(detail, widgets::WaterfallLayout::build(*detail, false));
    EXPECT_EQ(render(given), render(own));
    EXPECT_EQ(given.layout().rowSegments, own.layout().rowSegments);

    own.setLocalClocks(true);
    given.setLocalClocks(true);
    given.setRequest(detail, widgets::WaterfallLayout::build(*detail, false));  // stale: built for adjusted clocks
    own.setRequest(detail);
    EXPECT_EQ(test::startsUs(given.layout(), *detail), test::startsUs(own.layout(), *detail));
    EXPECT_EQ(render(given), render(own));
    EXPECT_NE(test::startsUs(widgets::WaterfallLayout::build(*detail, false), *detail), test::startsUs(own.layout(), *detail)) << "the two clocks differ here";

    // A layout of another request's segments is not drawn over this one's: the view builds its own.
    const auto other = test::makeDetail({"host"}, {{"loop", "A", "B", 0, 0, 0, 10}}, {});
    ASSERT_NE(other->dag.segments.size(), detail->dag.segments.size());
    given.setRequest(detail, widgets::WaterfallLayout::build(*other, true));
    EXPECT_EQ(given.layout().segmentCount(), detail->dag.segments.size());
    EXPECT_EQ(render(given), render(own));
}

// A lane name longer than the gutter is shortened in the middle, and hovering it shows it whole.
TEST(WaterfallView, HoveringALaneNameShowsItWhole) {
    const std::string task = "frontend:hipstershop.CurrencyService/GetSupportedCurrencies";
    WaterfallView view;
    view.resize(900, 400);
    view.show();
    view.setRequest(test::makeDetail({"frontend-579b9bff58-t2dbm"}, {{task.c_str(), "A", "B", 0, 0, 0, 10}}, {}));
    int taskRow = -1;
    for (std::size_t r = 0; r < view.layout().rows.size(); ++r)
        if (widgets::WaterfallLayout::label(*view.request(), view.layout().rows[r]) == QString::fromStdString(task)) taskRow = static_cast<int>(r);
    ASSERT_GE(taskRow, 0);
    const QPoint at(30, view.rowTop(taskRow) + 4);
    QHelpEvent hover(QEvent::ToolTip, at, view.mapToGlobal(at));
    QApplication::sendEvent(&view, &hover);
    EXPECT_EQ(QToolTip::text(), QString::fromStdString(task));
}
