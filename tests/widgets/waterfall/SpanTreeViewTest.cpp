#include <filesystem>
#include <gtest/gtest.h>

#include <QApplication>
#include <QImage>
#include <QTableWidget>
#include <QTest>

#include "common/Palette.h"
#include "waterfall/SpanDetailPanel.h"
#include "waterfall/SpanTreePane.h"
#include "waterfall/SpanTreeView.h"
#include "waterfall/WaterfallView.h"
#include "widgets/ViewFixtures.h"
#include "TestUtil.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/SpanReads.h"
#include "tracelight/store/TraceStore.h"
#include "../StoreSources.h"
#include <QSettings>
#include <QStackedWidget>
#include <QToolButton>

using namespace tracelight;
using tracelight::widgets::SpanDetailPanel;
using tracelight::widgets::SpanTreeData;
using tracelight::widgets::SpanTreePane;
using tracelight::widgets::WaterfallView;
using tracelight::widgets::SpanTreeView;

namespace {
SpanRecord span(const char* id, int parent, const char* service, const char* op, const char* host, double startUs, double endUs) {
    SpanRecord s;
    s.spanId = id;
    s.parent = parent;
    s.service = service;
    s.operation = op;
    s.host = host;
    s.kind = parent < 0 ? "server" : "client";
    s.startNs = usToNs(startUs);
    s.endNs = usToNs(endUs);
    return s;
}
// The tree of these records as the loader gives it: their shapes, and each whole record on demand.
std::shared_ptr<SpanTreeData> treeOf(RequestSpans records) {
    auto owned = std::make_shared<const RequestSpans>(std::move(records));
    auto d = std::make_shared<SpanTreeData>();
    d->spans = spanShapes(*owned);
    d->texts = owned;
    d->record = [owned](int i) -> std::optional<SpanRecord> {
        if (i < 0 || static_cast<std::size_t>(i) >= owned->size()) return std::nullopt;
        return (*owned)[static_cast<std::size_t>(i)];
    };
    return d;
}
// frontend GET /  [0,100]
//   cart GetCart [10,40]
//     redis HGET [15,25]
//   currency Convert [50,90] on host b, whose clock runs 1 ms ahead
// a second root: batch flush [200, 210]
std::shared_ptr<SpanTreeData> fixture() {
    RequestSpans records = {span("a", -1, "frontend", "GET /", "host-a", 0, 100), span("b", 0, "cart", "GetCart", "host-a", 10, 40),
                            span("c", 1, "redis", "HGET", "host-a", 15, 25), span("d", 0, "currency", "Convert", "host-b", 1050, 1090),
                            span("e", -1, "batch", "flush", "host-a", 200, 210)};
    records[1].attributes = {{"rpc.system", "grpc"}, {"http.status_code", "200"}};
    records[1].events = {{"retry", usToNs(12)}, {"done", usToNs(39.5)}};
    records[1].links = {"f00d"};
    auto d = treeOf(std::move(records));
    // Self, critical and network time, and the critical parts on the recorded clock.
    d->times.spans = {{usToNs(30), usToNs(30), 0}, {usToNs(20), 0, 0}, {usToNs(10), 0, 0}, {usToNs(40), usToNs(40), 0}, {usToNs(10), 0, 0}};
    d->times.intervals = {{0, usToNs(10)}, {usToNs(40), usToNs(50)}, {usToNs(1050), usToNs(1090)}};
    d->times.intervalBegin = {0, 2, 2, 2, 3, 3};
    d->clockOffsetNs = {0, 0, 0, usToNs(1000), 0};
    return d;
}
QImage render(QWidget& w) {
    QImage image(w.size(), QImage::Format_ARGB32);
    w.render(&image);
    return image;
}
} // namespace

TEST(SpanTreeView, OneRowPerSpanIndentedByDepth) {
    SpanTreeView view;
    view.resize(1000, 400);
    view.setSpans(fixture());
    ASSERT_EQ(view.rowCount(), 5);
    // Depth-first: each span under its parent.
    EXPECT_EQ(view.spanAtRow(0), 0);
    EXPECT_EQ(view.spanAtRow(1), 1);
    EXPECT_EQ(view.spanAtRow(2), 2);
    EXPECT_EQ(view.spanAtRow(3), 3);
    EXPECT_EQ(view.spanAtRow(4), 4);
    EXPECT_EQ(view.depth(2), 2);
    EXPECT_GT(view.triangleRect(2).left(), view.triangleRect(1).left());
    EXPECT_GT(view.triangleRect(1).left(), view.triangleRect(0).left());
}

TEST(SpanTreeView, ClickOnTheTriangleCollapsesAndExpands) {
    SpanTreeView view;
    view.resize(1000, 400);
    view.setSpans(fixture());
    QTest::mouseClick(&view, Qt::LeftButton, {}, view.triangleRect(1).center());
    EXPECT_TRUE(view.isCollapsed(1));
    EXPECT_EQ(view.rowCount(), 4);
    EXPECT_EQ(view.rowOfSpan(2), -1);
    EXPECT_EQ(view.spanAtRow(2), 3);
    QTest::mouseClick(&view, Qt::LeftButton, {}, view.triangleRect(0).center());
    EXPECT_EQ(view.rowCount(), 2);
    QTest::mouseClick(&view, Qt::LeftButton, {}, view.triangleRect(0).center());
    EXPECT_EQ(view.rowCount(), 4) << "span 1 stays collapsed inside its reopened parent";
    QTest::mouseClick(&view, Qt::LeftButton, {}, view.triangleRect(1).center());
    EXPECT_EQ(view.rowCount(), 5);
    // A click on a bar selects, it does not collapse.
    QTest::mouseClick(&view, Qt::LeftButton, {}, view.barRect(3).center().toPoint());
    EXPECT_EQ(view.currentSpan(), 3);
    EXPECT_EQ(view.rowCount(), 5);
}

TEST(SpanTreeView, KeyboardMovesCollapsesAndExpands) {
    SpanTreeView view;
    view.resize(1000, 400);
    view.setSpans(fixture());
    view.setFocus();
    EXPECT_EQ(view.currentSpan(), 0);
    QTest::keyClick(&view, Qt::Key_Down);
    EXPECT_EQ(view.currentSpan(), 1);
    QTest::keyClick(&view, Qt::Key_Left);
    EXPECT_TRUE(view.isCollapsed(1));
    EXPECT_EQ(view.rowCount(), 4);
    QTest::keyClick(&view, Qt::Key_Down);
    EXPECT_EQ(view.currentSpan(), 3) << "the collapsed child is skipped";
    QTest::keyClick(&view, Qt::Key_Up);
    QTest::keyClick(&view, Qt::Key_Right);
    EXPECT_FALSE(view.isCollapsed(1));
    QTest::keyClick(&view, Qt::Key_Right);
    EXPECT_EQ(view.currentSpan(), 2) << "Right on an open span goes to its first child";
    QTest::keyClick(&view, Qt::Key_Left);
    EXPECT_EQ(view.currentSpan(), 1) << "Left on a leaf goes to its parent";
    QTest::keyClick(&view, Qt::Key_Up);
    QTest::keyClick(&view, Qt::Key_Up);
    EXPECT_EQ(view.currentSpan(), 0) << "Up stops at the first row";
}

TEST(SpanTreeView, CollapsingHidesTheCurrentSpanSelectsItsAncestor) {
    SpanTreeView view;
    view.resize(1000, 400);
    view.setSpans(fixture());
    view.setCurrentSpan(2);
    view.setCollapsed(0, true);
    EXPECT_EQ(view.currentSpan(), 0);
    view.setCurrentSpan(2);  // selecting a hidden span opens its parents
    EXPECT_EQ(view.rowOfSpan(2), 2);
}

TEST(SpanTreeView, BarsAtTheirTimesColouredByServiceWithTheCriticalPart) {
    SpanTreeView view;
    view.resize(1000, 400);
    auto data = fixture();
    view.setSpans(data);
    view.setVisibleRange(0, 200);
    const QRectF root = view.barRect(0), cart = view.barRect(1);
    EXPECT_NEAR(cart.left() - root.left(), root.width() * 0.10, 1.0);  // starts 10 us into the 100 us root
    EXPECT_NEAR(cart.width() / root.width(), 0.30, 0.02);
    const QImage image = render(view);
    const QRectF redis = view.barRect(2);
    EXPECT_EQ(QColor(image.pixel(QPoint(static_cast<int>(redis.center().x()), static_cast<int>(redis.top() + 3)))).rgb(),
              widgets::palette::forTask(QStringLiteral("redis")).rgb());
    // The root's critical part [0,10] us is drawn on the lower part of its bar; its middle [10,40] is not critical.
    const int criticalX = static_cast<int>(root.left() + root.width() * 0.05), lowY = static_cast<int>(root.bottom() - 2);
    EXPECT_EQ(QColor(image.pixel(criticalX, lowY)).rgb(), widgets::palette::critical().rgb());
    EXPECT_NE(QColor(image.pixel(static_cast<int>(root.left() + root.width() * 0.25), lowY)).rgb(), widgets::palette::critical().rgb());
}

TEST(SpanTreeView, AdjustedClocksShiftASpanByItsHostOffset) {
    SpanTreeView view;
    view.resize(1000, 400);
    view.setSpans(fixture());
    ASSERT_TRUE(view.localClocks());
    EXPECT_NEAR(view.spanUs(3).first, 1050, 1e-9) << "recorded: host-b's clock runs 1 ms ahead";
    view.setLocalClocks(false);
    EXPECT_NEAR(view.spanUs(3).first, 50, 1e-9);
    EXPECT_NEAR(view.spanUs(3).second - view.spanUs(3).first, 40, 1e-9);
    EXPECT_NEAR(view.spanUs(1).first, 10, 1e-9);
}

TEST(SpanTreeView, LabelColumnResizesByDraggingTheDivider) {
    SpanTreeView view;
    view.resize(1000, 400);
    view.setSpans(fixture());
    const int before = view.labelWidth();
    const double barBefore = view.barRect(0).left();
    const QPoint divider(before + 2, 100);
    QTest::mousePress(&view, Qt::LeftButton, {}, divider);
    QMouseEvent move(QEvent::MouseMove, QPointF(before + 102, 100), view.mapToGlobal(QPointF(before + 102, 100)), Qt::NoButton,
                     Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&view, &move);
    QTest::mouseRelease(&view, Qt::LeftButton, {}, QPoint(before + 102, 100));
    EXPECT_EQ(view.labelWidth(), before + 100);
    EXPECT_NEAR(view.barRect(0).left(), barBefore + 100, 1.0);
    EXPECT_EQ(view.currentSpan(), 0) << "dragging the divider selects nothing";
    view.setLabelWidth(5);
    EXPECT_GE(view.labelWidth(), 80) << "never narrower than a readable column";
    view.setLabelWidth(5000);
    EXPECT_LE(view.labelWidth(), 1000 - 120) << "the bars keep room";
}

TEST(SpanTreeView, TooltipNamesTheSpanAndItsSelfTime) {
    SpanTreeView view;
    view.resize(1000, 400);
    view.setSpans(fixture());
    const QString tip = view.tooltipFor(1);
    EXPECT_TRUE(tip.contains(QStringLiteral("cart"))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("GetCart")));
    EXPECT_TRUE(tip.contains(QStringLiteral("self time 20"))) << tip.toStdString();
}

TEST(SpanTreeView, EmptyAndMalformedInputsDrawWithoutCrashing) {
    SpanTreeView view;
    view.resize(600, 300);
    view.setSpans(std::make_shared<SpanTreeData>());
    EXPECT_EQ(view.rowCount(), 0);
    EXPECT_EQ(view.currentSpan(), -1);
    QTest::keyClick(&view, Qt::Key_Down);
    QTest::keyClick(&view, Qt::Key_Left);
    render(view);
    auto bad = treeOf({span("x", 5, "svc", "op", "h", 0, 10), span("y", 1, "svc", "op", "h", 0, 10)});  // parents not before children
    view.setSpans(bad);
    EXPECT_EQ(view.rowCount(), 2) << "a span whose parent is not before it shows as a root";
    render(view);
}

TEST(SpanDetailPanel, ShowsTheSelectedSpan) {
    SpanTreeView view;
    view.resize(1000, 400);
    view.setSpans(fixture());
    SpanDetailPanel panel;
    QObject::connect(&view, &SpanTreeView::currentSpanChanged, &panel, [&](int s) { panel.showSpan(view, s); });
    view.setCurrentSpan(1);
    const QString summary = panel.summaryText();
    for (const char* part : {"cart", "GetCart", "host-a", "client", "start +10", "duration 30", "self 20", "critical 0"})
        EXPECT_TRUE(summary.contains(QString::fromUtf8(part))) << part << " in " << summary.toStdString();
    ASSERT_EQ(panel.tags()->rowCount(), 2);
    EXPECT_EQ(panel.tags()->item(1, 0)->text(), QStringLiteral("http.status_code"));
    EXPECT_EQ(panel.tags()->item(1, 1)->text(), QStringLiteral("200"));
    ASSERT_EQ(panel.events()->rowCount(), 2);
    EXPECT_TRUE(panel.events()->item(0, 0)->text().startsWith(QStringLiteral("+2"))) << panel.events()->item(0, 0)->text().toStdString();
    EXPECT_EQ(panel.events()->item(1, 1)->text(), QStringLiteral("done"));
    EXPECT_TRUE(panel.linksText().contains(QStringLiteral("f00d")));
    // The currency span on a skewed host: its start offset follows the clock choice.
    view.setCurrentSpan(3);
    EXPECT_TRUE(panel.summaryText().contains(QStringLiteral("start +1.05 ms"))) << panel.summaryText().toStdString();
    view.setLocalClocks(false);
    EXPECT_TRUE(panel.summaryText().contains(QStringLiteral("start +50"))) << panel.summaryText().toStdString();
    EXPECT_TRUE(panel.summaryText().contains(QStringLiteral("applied")));
    EXPECT_EQ(panel.tags()->rowCount(), 0);
}

TEST(SpanTreePane, SpanRequestsShowTheTreeEventLogsKeepTheLanesAndSayWhy) {
    QSettings().remove(QStringLiteral("waterfall/mode"));
    auto* lanes = new WaterfallView;
    SpanTreePane pane(lanes);
    pane.resize(1000, 600);
    EXPECT_EQ(pane.mode(), SpanTreePane::Mode::SpanTree) << "span data opens in the span tree";
    pane.setSpans(fixture());
    EXPECT_EQ(pane.shownMode(), SpanTreePane::Mode::SpanTree);
    QTest::mouseClick(pane.toggleButton(), Qt::LeftButton);
    EXPECT_EQ(pane.shownMode(), SpanTreePane::Mode::HostLanes);
    EXPECT_EQ(QSettings().value(QStringLiteral("waterfall/mode")).toString(), QStringLiteral("lanes")) << "remembered";
    QTest::mouseClick(pane.toggleButton(), Qt::LeftButton);
    EXPECT_EQ(pane.shownMode(), SpanTreePane::Mode::SpanTree);
    EXPECT_EQ(QSettings().value(QStringLiteral("waterfall/mode")).toString(), QStringLiteral("spans"));
    // The detail follows the tree's selection.
    pane.spanTree()->setCurrentSpan(1);
    EXPECT_TRUE(pane.detailPanel()->summaryText().contains(QStringLiteral("GetCart")));
    // An event-log request: no spans, the lanes are shown, the toggle is off and says why; the wish is kept.
    lanes->setRequest(test::makeDetail({"h"}, {{"main", "A", "B", 0, 0, 0, 10}}, {}));
    pane.setSpans(nullptr);
    EXPECT_EQ(pane.shownMode(), SpanTreePane::Mode::HostLanes);
    EXPECT_FALSE(pane.toggleButton()->isEnabled());
    EXPECT_TRUE(pane.toggleButton()->toolTip().contains(QStringLiteral("event log"))) << pane.toggleButton()->toolTip().toStdString();
    EXPECT_EQ(pane.noteText(), QString()) << "event logs are drawn in lanes without a word against it";
    EXPECT_EQ(pane.mode(), SpanTreePane::Mode::SpanTree);
    pane.setSpans(fixture());
    EXPECT_EQ(pane.shownMode(), SpanTreePane::Mode::SpanTree) << "the next span request shows the tree again";
    // While the next request's spans are read (after its lanes), the lanes show and the toggle says so.
    pane.setSpansPending();
    EXPECT_TRUE(pane.spansPending());
    EXPECT_EQ(pane.shownMode(), SpanTreePane::Mode::HostLanes);
    EXPECT_FALSE(pane.spanTree()->spans()) << "not the last request's tree";
    EXPECT_TRUE(pane.toggleButton()->toolTip().contains(QStringLiteral("Reading"))) << pane.toggleButton()->toolTip().toStdString();
    EXPECT_EQ(pane.mode(), SpanTreePane::Mode::SpanTree);
    pane.setSpans(fixture());
    EXPECT_FALSE(pane.spansPending());
    EXPECT_EQ(pane.shownMode(), SpanTreePane::Mode::SpanTree) << "and the tree once they are in";
    // Spans that could not be read: the lanes show and the note gives the reason (not "event log").
    pane.setSpansPending();
    pane.setSpansUnreadable(QStringLiteral("t.tldb: the spans of request 'r1' could not be read"));
    EXPECT_EQ(pane.shownMode(), SpanTreePane::Mode::HostLanes);
    EXPECT_FALSE(pane.spanTree()->spans());
    EXPECT_FALSE(pane.spansPending());
    EXPECT_EQ(pane.toggleButton()->toolTip(), QStringLiteral("t.tldb: the spans of request 'r1' could not be read"));
    EXPECT_EQ(pane.mode(), SpanTreePane::Mode::SpanTree) << "the wish is kept for the next request";
    pane.setSpans(fixture());
    EXPECT_EQ(pane.shownMode(), SpanTreePane::Mode::SpanTree);
    // Spans not read yet are asked for when the tree is the mode: at once when it is the remembered one,
    // else at the toggle; the lanes show until they are in.
    int wanted = 0;
    QObject::connect(&pane, &SpanTreePane::spansWanted, [&] { ++wanted; });
    pane.setSpansOnDemand();
    EXPECT_EQ(wanted, 1);
    EXPECT_TRUE(pane.spansPending());
    EXPECT_FALSE(pane.spanTree()->spans());
    EXPECT_EQ(pane.shownMode(), SpanTreePane::Mode::HostLanes);
    pane.setSpans(fixture());
    pane.setMode(SpanTreePane::Mode::HostLanes);
    pane.setSpansOnDemand();
    EXPECT_EQ(wanted, 1) << "the lanes need no spans";
    EXPECT_TRUE(pane.spansOnDemand());
    EXPECT_FALSE(pane.spanTree()->spans()) << "not the last request's tree";
    EXPECT_TRUE(pane.toggleButton()->isEnabled()) << "the tree is one click away";
    QTest::mouseClick(pane.toggleButton(), Qt::LeftButton);
    EXPECT_EQ(wanted, 2);
    EXPECT_TRUE(pane.spansPending());
    pane.setMode(SpanTreePane::Mode::HostLanes);
    pane.setMode(SpanTreePane::Mode::SpanTree);
    EXPECT_EQ(wanted, 2) << "asked once per request";
    pane.setSpans(fixture());
    EXPECT_EQ(pane.shownMode(), SpanTreePane::Mode::SpanTree);
    // A new pane (the next session) starts in the remembered mode.
    SpanTreePane next(new WaterfallView);
    EXPECT_EQ(next.mode(), SpanTreePane::Mode::SpanTree);
    QSettings().remove(QStringLiteral("waterfall/mode"));
}

// For a person to look at: SPANTREE_PNG=file.png writes the pane with the fixture (nothing is checked).
TEST(SpanTreePane, RendersForALook) {
    const QString file = qEnvironmentVariable("SPANTREE_PNG");
    if (file.isEmpty()) GTEST_SKIP() << "set SPANTREE_PNG to write a picture";
    SpanTreePane pane(new WaterfallView);
    pane.resize(1100, 600);
    auto data = fixture();
    data->spans[0].operation = "GET /product/OLJCESPC7Z with a rather long operation name";
    pane.setSpans(data);
    pane.setMode(SpanTreePane::Mode::SpanTree);
    pane.spanTree()->setCurrentSpan(1);
    pane.show();
    ASSERT_TRUE(pane.grab().save(file));
    QSettings().remove(QStringLiteral("waterfall/mode"));
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TracelightTests"));  // not the user's settings
    QApplication::setApplicationName(QStringLiteral("SpanTreeViewTest"));
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

// The app's loader on a real trace: spans from the store, self and critical time from core's
// spanCriticalPath over the request's cached detail. The GenAI trace keeps its clocks (offsets 0) and
// its critical path runs through invoke_agent's own work (38 s of 44 s).
TEST(SpanTreePane, LoadsARealTraceWithCriticalTimeFromCore) {
    const std::string genai = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/jaeger/TraceTimelineViewer__genaiTestTrace.json";
    if (!std::filesystem::exists(genai)) GTEST_SKIP() << "no " << genai << " beside this checkout";
    tracelight::test::ScratchDir dir;
    auto store = std::move(TraceStore::open(dir.file("genai.tldb"), TraceStore::Mode::Create).value());
    ImportOptions import;
    import.inputs = {genai};
    ASSERT_TRUE(importTraces(*store, import));
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    const auto request = requestByName(*store, "4a1b2c3d4e5f60718293a4b5c6d7e8f9");
    ASSERT_TRUE(request);
    auto detail = loadRequestDetail(*store, *request);
    ASSERT_TRUE(detail);
    auto data = widgets::loadSpanTree(*store, detail.value(), nullptr, test::readerOf(store->path()));
    ASSERT_TRUE(data);
    ASSERT_EQ(data->spans.size(), 57u);
    TimeNs critical = 0, execution = -1;
    for (std::size_t i = 0; i < data->spans.size(); ++i) {
        critical += data->times.spans[i].criticalNs;
        EXPECT_EQ(data->clockOffsetNs[i], 0) << data->spans[i].operation;
        EXPECT_LE(data->times.spans[i].selfNs, data->spans[i].endNs - data->spans[i].startNs);
        if (data->spans[i].operation == "graphql.execution") execution = data->times.spans[i].criticalNs;
        // Critical parts lie within the span's own recorded interval.
        for (const auto& [from, to] : data->times.criticalIntervals(i)) {
            EXPECT_GE(from, data->spans[i].startNs);
            EXPECT_LE(to, data->spans[i].endNs);
        }
    }
    // The child of Query.assistantReply that returned last waited for the agent (it encloses the agent's
    // call): its own millisecond before the call and second after it are on the path; its last millisecond,
    // past its parent's end, was not waited for: hatched over its bar and named in its tooltip.
    EXPECT_EQ(execution, TimeNs{999} * 1000000);
    ASSERT_EQ(data->async.size(), 1u);
    const auto& late = data->async.front();
    EXPECT_EQ(data->spans[static_cast<std::size_t>(late.span)].operation, "graphql.execution");
    EXPECT_EQ(late.endNs - late.startNs, TimeNs{1000000});
    EXPECT_EQ(late.endNs, data->spans[static_cast<std::size_t>(late.span)].endNs);
    SpanTreeView view;
    view.resize(1000, 400);
    view.setSpans(data);
    EXPECT_EQ(view.asyncParts(late.span).size(), 1u);
    EXPECT_TRUE(view.asyncParts(0).empty());
    EXPECT_TRUE(view.tooltipFor(late.span).contains(QStringLiteral("not waited for 1.00 ms"))) << view.tooltipFor(late.span).toStdString();
    // A span's whole record (what the detail panel shows) is read from the store when asked for.
    const RequestSpans records = requestSpans(*store, *request);
    ASSERT_TRUE(data->record);
    for (int i : {0, 1, 56}) {
        const auto whole = data->record(i);
        ASSERT_TRUE(whole) << i;
        EXPECT_EQ(whole->spanId, records[static_cast<std::size_t>(i)].spanId);
        EXPECT_EQ(whole->attributes, records[static_cast<std::size_t>(i)].attributes);
        EXPECT_EQ(whole->operation, data->spans[static_cast<std::size_t>(i)].operation);
    }
    EXPECT_EQ(critical, TimeNs{44} * 1000000000);  // no blind time: every critical ns belongs to a span
}

// Issue 11's remaining navigation: a drag in the rows pans the time axis (and does not select), a click
// still selects; Page Down / Page Up move a page of rows, clamped at the ends.
TEST(SpanTreeView, DragPansAndPageKeysMoveAPage) {
    SpanTreeView view;
    view.resize(1000, 400);
    view.setSpans(fixture());
    view.show();
    const double from = view.visibleFromUs();
    const QPoint start = view.barRect(1).center().toPoint() + QPoint(0, 0);
    QTest::mousePress(&view, Qt::LeftButton, {}, start);
    QMouseEvent move(QEvent::MouseMove, QPointF(start + QPoint(-120, 0)), view.mapToGlobal(QPointF(start + QPoint(-120, 0))),
                     Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&view, &move);
    QTest::mouseRelease(&view, Qt::LeftButton, {}, start + QPoint(-120, 0));
    EXPECT_GT(view.visibleFromUs(), from) << "dragged left: later times come into view";
    EXPECT_EQ(view.currentSpan(), 0) << "a drag does not select";
    QTest::mouseClick(&view, Qt::LeftButton, {}, view.barRect(2).center().toPoint());
    EXPECT_EQ(view.currentSpan(), 2);
    view.setFocus();
    QTest::keyClick(&view, Qt::Key_PageDown);
    EXPECT_EQ(view.currentSpan(), 4) << "a page beyond five rows: the last";
    QTest::keyClick(&view, Qt::Key_PageUp);
    EXPECT_EQ(view.currentSpan(), 0);
}
