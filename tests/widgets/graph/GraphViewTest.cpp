#include <gtest/gtest.h>

#include <QSignalSpy>

#include <QApplication>
#include <QThreadPool>
#include <QImage>
#include <algorithm>
#include <map>
#include <qcustomplot.h>
#include <QComboBox>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include "graph/GraphView.h"
#include "graph/ServiceMapView.h"
#include "widgets/ViewFixtures.h"

using namespace tracelight;
using tracelight::widgets::GraphView;

TEST(GraphView, LaysOutHappensBeforeLeftToRight) {
    GraphView view;
    view.resize(1200, 700);
    view.setGraph(test::makeGraph(30));
    view.waitForLayout();
    ASSERT_TRUE(view.layoutError().isEmpty()) << view.layoutError().toStdString();
    for (int i = 1; i < 10; ++i) EXPECT_LT(view.nodeRect(i - 1).center().x(), view.nodeRect(i).center().x()) << i;
    EXPECT_LT(view.nodeRect(0).center().x(), view.nodeRect(10).center().x());
    for (int n : {0, 5, 17}) EXPECT_EQ(view.nodeAt(view.nodeRect(n).center().toPoint()), n);
}

TEST(GraphView, SupportSliderAndUnconfirmedToggleHideEdges) {
    GraphView view;
    view.resize(1200, 700);
    view.setGraph(test::makeGraph(30));
    view.waitForLayout();
    EXPECT_EQ(view.visibleEdgeCount(), 29);
    view.setShowUnconfirmed(false);
    EXPECT_EQ(view.visibleEdgeCount(), 27);  // the two weak joins (support 5) are unconfirmed
    view.setShowUnconfirmed(true);
    view.setMinimumSupport(980);
    EXPECT_EQ(view.visibleEdgeCount(), 18);  // chain edges 1..19 carry support 999..981
}

TEST(GraphView, SearchHighlightsMatchesAndClickSelects) {
    GraphView view;
    view.resize(1200, 700);
    view.setGraph(test::makeGraph(30));
    view.waitForLayout();
    EXPECT_EQ(view.findAndFocus(QStringLiteral("task-2:")), 10);
    EXPECT_EQ(view.findAndFocus(QStringLiteral("E7->E8")), 1);
    EXPECT_EQ(view.findAndFocus(QStringLiteral("nothing")), 0);
    view.selectNode(3);
    EXPECT_EQ(view.selectedNode(), 3);
    QImage image(view.size(), QImage::Format_ARGB32);
    view.render(&image);  // paints without a layout error message
    EXPECT_NE(image.pixel(view.nodeRect(3).center().toPoint()), QColor(Qt::white).rgb());
}

namespace {
// A model far beyond what dot lays out promptly: thousands of types, each with edges to a few later ones.
std::shared_ptr<ModelGraph> makeHugeGraph(int n) {
    auto g = std::make_shared<ModelGraph>();
    g->requests = 100;
    for (int i = 0; i < n; ++i) {
        SegmentTypeStats t;
        t.task = "svc-" + std::to_string(i % 40);
        t.startEvent = "op" + std::to_string(i);
        t.endEvent = "op" + std::to_string(i + 1);
        g->types.push_back(t);
        for (int k : {1, 7, 31})
            if (i + k < n) g->happensBefore.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i + k), 50, true});
    }
    return g;
}
} // namespace

TEST(GraphLayout, HugeModelGoesStraightToTheLayeredLayout) {
    // 4000 nodes and ~12000 edges: Graphviz would run for many minutes; the size rule never starts it.
    widgets::GraphLayoutInput input;
    const auto g = makeHugeGraph(4000);
    for (std::size_t i = 0; i < g->types.size(); ++i) input.nodes.push_back({80, 40});
    for (const auto& e : g->happensBefore) input.edges.push_back({static_cast<int>(e.from), static_cast<int>(e.to), 1});
    const auto layout = widgets::layoutWithBudget(input);
    EXPECT_EQ(layout.method, widgets::GraphLayoutMethod::Layered);
    EXPECT_TRUE(layout.description.contains(QStringLiteral("layered"))) << layout.description.toStdString();
    ASSERT_EQ(layout.centers.size(), input.nodes.size());
    ASSERT_EQ(layout.edgePaths.size(), input.edges.size());
    // Every edge points left to right (longest-path layers), and nodes of one layer do not overlap.
    for (std::size_t e = 0; e < input.edges.size(); ++e) {
        const auto& edge = input.edges[e];
        ASSERT_LT(layout.centers[edge.from].x(), layout.centers[edge.to].x()) << e;
        ASSERT_EQ(layout.edgePaths[e].size(), 4u);
    }
    std::map<double, std::vector<double>> ys;
    for (const auto& c : layout.centers) ys[c.x()].push_back(c.y());
    for (auto& [x, column] : ys) {
        std::sort(column.begin(), column.end());
        for (std::size_t k = 1; k < column.size(); ++k) ASSERT_GE(column[k] - column[k - 1], 40.0) << x;
    }
    EXPECT_TRUE(layout.bounds.contains(layout.centers.front()));
}

TEST(GraphLayout, LayeredLayoutSurvivesCyclesAndBadEdges) {
    widgets::GraphLayoutInput input;
    for (int i = 0; i < 5; ++i) input.nodes.push_back({50, 20});
    input.edges = {{0, 1, 1}, {1, 2, 1}, {2, 0, 1}, {3, 3, 1}, {4, 9, 1}, {2, 4, 1}};
    const auto layout = widgets::layoutLayered(input);
    ASSERT_EQ(layout.centers.size(), 5u);
    EXPECT_LT(layout.centers[0].x(), layout.centers[1].x());
    EXPECT_LT(layout.centers[1].x(), layout.centers[2].x());
    EXPECT_LT(layout.centers[2].x(), layout.centers[4].x());
    EXPECT_TRUE(layout.edgePaths[4].empty());  // to a node that does not exist
}

TEST(GraphLayout, GraphvizPastItsTimeBudgetIsAbandonedForTheLayeredLayout) {
    // Within the size limits, but given no time at all: the answer is the layered layout, and says why.
    widgets::GraphLayoutInput input;
    const auto g = test::makeGraph(250);
    for (std::size_t i = 0; i < g->types.size(); ++i) input.nodes.push_back({80, 40});
    for (const auto& e : g->happensBefore) input.edges.push_back({static_cast<int>(e.from), static_cast<int>(e.to), 1});
    widgets::GraphLayoutBudget budget;
    budget.graphvizMs = 0;
    const auto layout = widgets::layoutWithBudget(input, budget);
    EXPECT_EQ(layout.method, widgets::GraphLayoutMethod::Layered);
    EXPECT_TRUE(layout.description.contains(QStringLiteral("longer than"))) << layout.description.toStdString();
    ASSERT_EQ(layout.centers.size(), input.nodes.size());
    // The abandoned dot finishes on its own, and the process can wait for it before it ends (it may not even have
    // started yet: a later layout taking the Graphviz lock first says nothing of it).
    EXPECT_TRUE(widgets::waitForAbandonedLayouts(std::chrono::seconds(60)));
    widgets::GraphLayoutInput tiny;
    tiny.nodes = {{10, 10}};
    EXPECT_EQ(widgets::layoutGraph(tiny).method, widgets::GraphLayoutMethod::Graphviz);
}

TEST(GraphLayout, SmallModelStillGetsGraphviz) {
    GraphView view;
    view.resize(1200, 700);
    view.setGraph(test::makeGraph(30));
    view.waitForLayout();
    EXPECT_EQ(view.layoutMethod(), widgets::GraphLayoutMethod::Graphviz);
    EXPECT_EQ(view.layoutDescription(), QStringLiteral("layout: Graphviz dot"));
}

TEST(GraphView, LaysOutOffTheGuiThreadAndSaysWhichLayout) {
    // setGraph returns before any layout is made (the GUI thread never runs Graphviz); the view says it is
    // laying out, then shows the layout that arrives, and says which one it is.
    GraphView view;
    view.resize(1200, 700);
    view.setGraph(makeHugeGraph(3000));
    EXPECT_TRUE(view.isLayoutPending());
    EXPECT_EQ(view.nodeAt(QPoint(600, 350)), -1);
    QImage pending(view.size(), QImage::Format_ARGB32);
    view.render(&pending);  // the placeholder, without a layout
    ASSERT_TRUE(view.waitForLayout());
    EXPECT_FALSE(view.isLayoutPending());
    EXPECT_EQ(view.layoutMethod(), widgets::GraphLayoutMethod::Layered);
    EXPECT_TRUE(view.layoutDescription().contains(QStringLiteral("3000 nodes"))) << view.layoutDescription().toStdString();
    EXPECT_FALSE(view.nodeRect(0).isEmpty());
    EXPECT_FALSE(view.relationsOfSelectionOnly());  // no mutual exclusion or pipelines in this model
    QImage image(view.size(), QImage::Format_ARGB32);
    view.render(&image);
    EXPECT_NE(image, pending);
}

TEST(GraphView, LegendCoversNoNodeAtTheDefaultZoom) {
    // A model whose fitted layout fills the view's height: the legend used to sit over the lowest nodes.
    for (int n : {6, 30, 120}) {
        GraphView view;
        view.resize(1000, 600);
        view.setGraph(test::makeGraph(n));
        view.waitForLayout();
        const QRect legend = view.legendRect();
        ASSERT_FALSE(legend.isEmpty());
        EXPECT_FALSE(view.graphArea().intersects(legend));  // the graph is drawn (and clicked) only above it
        for (int i = 0; i < n; ++i) {
            if (n <= 30) {
                ASSERT_FALSE(view.nodeRect(i).intersects(legend)) << n << " types, node " << i;  // fitted whole
            }
            const QRectF under = view.nodeRect(i).intersected(legend);
            if (!under.isEmpty()) {
                EXPECT_EQ(view.nodeAt(under.center().toPoint()), -1) << i;
            }
        }
    }
}

namespace {
SpanRecord sp(int parent, std::string service, std::string op, std::string kind, TimeNs start, TimeNs end) {
    SpanRecord s;
    s.parent = parent;
    s.service = std::move(service);
    s.operation = std::move(op);
    s.kind = std::move(kind);
    s.startNs = start * 1'000'000;
    s.endNs = end * 1'000'000;
    return s;
}
std::shared_ptr<ServiceMap> makeServiceMap() {
    auto map = std::make_shared<ServiceMap>();
    RequestSpans r = {sp(-1, "frontend", "GET /", "server", 0, 100), sp(0, "frontend", "GetCart", "client", 1, 11),
                      sp(1, "cartservice", "GetCart", "server", 2, 10), sp(0, "frontend", "GetAds", "client", 20, 40),
                      sp(3, "adservice", "GetAds", "server", 21, 39), sp(0, "frontend", "Convert", "client", 50, 54),
                      sp(5, "currencyservice", "Convert", "server", 51, 53),
                      sp(0, "frontend", "a-very-long-operation-name-that-would-never-fit-into-a-node-of-the-map/" + std::string(60, 'x'),
                         "internal", 60, 70)};
    for (int i = 0; i < 5; ++i) map->add(r);
    return map;
}
} // namespace

TEST(ServiceMapView, ExpandsAServiceIntoItsOperationsAndCollapsesIt) {
    widgets::ServiceMapView view;
    view.resize(1200, 700);
    view.setServiceMap(makeServiceMap());
    EXPECT_TRUE(view.isLayoutPending());  // laid out on a worker, never here
    ASSERT_TRUE(view.waitForLayout());
    ASSERT_EQ(view.graph().nodes.size(), 4u);
    const int frontend = view.nodeIndex(QStringLiteral("frontend"));
    ASSERT_GE(frontend, 0);
    EXPECT_EQ(view.nodeAt(view.nodeRect(frontend).center().toPoint()), frontend);
    EXPECT_TRUE(view.clusterRect(QStringLiteral("frontend")).isNull());

    // Double-click on frontend: its five operations replace it, inside a box named after it.
    QTest::mouseDClick(&view, Qt::LeftButton, Qt::NoModifier, view.nodeRect(frontend).center().toPoint());
    EXPECT_TRUE(view.isExpanded(QStringLiteral("frontend")));
    ASSERT_TRUE(view.waitForLayout());
    EXPECT_EQ(view.graph().nodes.size(), 3u + 5u);
    EXPECT_EQ(view.nodeIndex(QStringLiteral("frontend")), -1);
    const int getCart = view.nodeIndex(QStringLiteral("frontend:GetCart"));
    ASSERT_GE(getCart, 0);
    const QRectF box = view.clusterRect(QStringLiteral("frontend"));
    for (const auto& n : view.graph().nodes) {
        if (n.service != "frontend") continue;
        EXPECT_TRUE(box.contains(view.nodeRect(view.nodeIndex(QString::fromStdString(n.label())))));
    }
    // Calls from an expanded operation to a collapsed service keep their count.
    const int cart = view.nodeIndex(QStringLiteral("cartservice"));
    bool found = false;
    for (const auto& e : view.graph().edges)
        if (static_cast<int>(e.from) == getCart && static_cast<int>(e.to) == cart) {
            found = true;
            EXPECT_EQ(e.calls, 5);
        }
    EXPECT_TRUE(found);

    // Double-click on any of its operations collapses the service again.
    QTest::mouseDClick(&view, Qt::LeftButton, Qt::NoModifier, view.nodeRect(getCart).center().toPoint());
    EXPECT_FALSE(view.isExpanded(QStringLiteral("frontend")));
    ASSERT_TRUE(view.waitForLayout());
    EXPECT_EQ(view.graph().nodes.size(), 4u);

    view.setAllExpanded(true);
    ASSERT_TRUE(view.waitForLayout());
    EXPECT_EQ(view.expandedCount(), 4);
    EXPECT_EQ(view.graph().nodes.size(), 8u);
}

// Edges have tooltips (issue 11): the middle of each drawn edge finds that edge, and its tooltip names both
// ends, the calls and what the caller waited, the callee's work and the hop; away from every line, none.
TEST(ServiceMapView, EdgesHaveTooltips) {
    widgets::ServiceMapView view;
    view.resize(1200, 700);
    view.setServiceMap(makeServiceMap());
    ASSERT_TRUE(view.waitForLayout());
    ASSERT_FALSE(view.graph().edges.empty());
    for (int i = 0; i < static_cast<int>(view.graph().edges.size()); ++i) {
        const auto& e = view.graph().edges[static_cast<std::size_t>(i)];
        const QPoint middle = view.edgePath(i).pointAtPercent(0.5).toPoint();
        if (view.nodeAt(middle) >= 0) continue;  // a short edge under a node: the node's tooltip wins there
        EXPECT_EQ(view.edgeAt(middle), i) << i;
        const QString tip = view.edgeToolTip(i);
        EXPECT_TRUE(tip.contains(QString::fromStdString(view.graph().nodes[e.from].label()).toHtmlEscaped())) << tip.toStdString();
        EXPECT_TRUE(tip.contains(QString::fromStdString(view.graph().nodes[e.to].label()).toHtmlEscaped())) << tip.toStdString();
        if (!e.nesting) { EXPECT_TRUE(tip.contains("5 calls") && tip.contains("p99") && tip.contains("the callee's work")) << tip.toStdString(); }
        if (e.hopCalls > 0) { EXPECT_TRUE(tip.contains("the hop between them")) << tip.toStdString(); }
    }
    EXPECT_EQ(view.edgeAt(QPoint(2, 2)), -1);
}

TEST(ServiceMapView, LegendCoversNoNodeAndLongNamesAreElidedWithTheFullNameOnHover) {
    widgets::ServiceMapView view;
    view.resize(900, 500);
    view.setServiceMap(makeServiceMap());
    view.setAllExpanded(true);
    ASSERT_TRUE(view.waitForLayout());
    const QRect legend = view.legendRect();
    for (int i = 0; i < static_cast<int>(view.graph().nodes.size()); ++i) {
        EXPECT_FALSE(view.nodeRect(i).intersects(legend)) << i;
        EXPECT_LE(view.nodeRect(i).width(), widgets::ServiceMapView::kMaxNodeWidthPx * 1.5 + 1) << i;
    }
    int longest = -1;
    for (int i = 0; i < static_cast<int>(view.graph().nodes.size()); ++i)
        if (view.graph().nodes[static_cast<std::size_t>(i)].operation.size() > 100) longest = i;
    ASSERT_GE(longest, 0);
    EXPECT_TRUE(view.nodeToolTip(longest).contains(QStringLiteral("x").repeated(60)));
    QImage image(view.size(), QImage::Format_ARGB32);
    view.render(&image);
    EXPECT_NE(image.pixel(view.nodeRect(longest).center().toPoint()), QColor(Qt::white).rgb());
}

// A map too wide to show whole at a legible size opens legible from its callers' end; its note then says how
// many services are outside the view and how to reach them (the GenAI trace's chain of ten services showed
// four, with nothing to say there were more).
TEST(ServiceMapView, SaysWhenServicesAreOutsideTheView) {
    auto map = std::make_shared<ServiceMap>();
    RequestSpans chain = {sp(-1, "s0", "op", "server", 0, 100)};
    for (int i = 1; i < 10; ++i) {
        const int parent = static_cast<int>(chain.size()) - 1;
        chain.push_back(sp(parent, "s" + std::to_string(i - 1), "call", "client", i, 100 - i));
        chain.push_back(sp(parent + 1, "s" + std::to_string(i), "op", "server", i, 100 - i));
    }
    map->add(chain);
    widgets::ServiceMapView view;
    view.resize(700, 400);
    view.show();
    view.setServiceMap(map);
    ASSERT_TRUE(view.waitForLayout());
    int outside = 0;
    for (int i = 0; i < static_cast<int>(view.graph().nodes.size()); ++i) outside += !view.rect().contains(view.nodeRect(i).toRect());
    ASSERT_GT(outside, 0);
    EXPECT_TRUE(view.noteText().contains(QStringLiteral("%1 services outside the view").arg(outside))) << view.noteText().toStdString();
    EXPECT_TRUE(view.noteText().contains(QStringLiteral("operations, 1 request ·"))) << view.noteText().toStdString();  // one, not "1 requests"
    view.resize(4000, 400);  // wide enough for all of them
    EXPECT_FALSE(view.noteText().contains(QStringLiteral("outside the view"))) << view.noteText().toStdString();
}

TEST(ServiceMapView, EventLogsWithoutSpansSayWhy) {
    widgets::ServiceMapView view;
    view.resize(600, 400);
    view.setServiceMap(std::make_shared<ServiceMap>());
    EXPECT_FALSE(view.isLayoutPending());
    EXPECT_TRUE(view.graph().nodes.empty());
    QImage image(view.size(), QImage::Format_ARGB32);
    view.render(&image);  // a message, not a crash
}

TEST(ModelOverview, ServiceModesNeedSpansAndTheChoiceIsRemembered) {
    QSettings().remove(QStringLiteral("graph/mode"));
    {
        widgets::ModelOverview overview;
        overview.resize(1200, 700);
        overview.setGraph(test::makeGraph(10));
        EXPECT_EQ(overview.mode(), widgets::ModelOverview::Mode::CausalModel);  // no spans: the causal model
        overview.setServiceMap(makeServiceMap());
        EXPECT_EQ(overview.mode(), widgets::ModelOverview::Mode::ServiceMap);  // spans: the service map first
        EXPECT_EQ(overview.serviceMapView()->expandedCount(), 0);
        // The user picks the operation graph: every service expanded, and the choice kept.
        overview.modeBox()->setCurrentIndex(2);
        emit overview.modeBox()->activated(2);
        EXPECT_EQ(overview.mode(), widgets::ModelOverview::Mode::Operations);
        EXPECT_EQ(overview.serviceMapView()->expandedCount(), 4);
        EXPECT_TRUE(overview.isLayoutPending());  // the service map's layout, at least
        overview.serviceMapView()->waitForLayout();
        overview.graphView()->waitForLayout();
        EXPECT_FALSE(overview.isLayoutPending());
    }
    widgets::ModelOverview again;
    again.setServiceMap(makeServiceMap());
    EXPECT_EQ(again.mode(), widgets::ModelOverview::Mode::Operations);
    again.setServiceMap(nullptr);  // event logs opened next
    EXPECT_EQ(again.mode(), widgets::ModelOverview::Mode::CausalModel);
    again.serviceMapView()->waitForLayout();
    QSettings().remove(QStringLiteral("graph/mode"));
}

TEST(ModelOverview, ThePeriodChosenStaysWhileItExists) {
    widgets::ModelOverview overview;
    QSignalSpy chosen(&overview, &widgets::ModelOverview::periodChosen);
    overview.setPeriods({QStringLiteral("a"), QStringLiteral("b")});
    EXPECT_EQ(overview.period(), QString());
    EXPECT_EQ(chosen.count(), 0);
    overview.setPeriod(QStringLiteral("b"));
    ASSERT_EQ(chosen.count(), 1);
    EXPECT_EQ(chosen.takeFirst().at(0).toString(), QStringLiteral("b"));
    overview.setPeriod(QStringLiteral("nope"));  // no such period: nothing changes
    EXPECT_EQ(chosen.count(), 0);
    overview.setPeriods({QStringLiteral("b"), QStringLiteral("c")});  // still there: kept, nothing to infer again
    EXPECT_EQ(overview.period(), QStringLiteral("b"));
    EXPECT_EQ(chosen.count(), 0);
    overview.setPeriods({QStringLiteral("c")});  // gone: every request again
    EXPECT_EQ(overview.period(), QString());
    ASSERT_EQ(chosen.count(), 1);
    EXPECT_EQ(chosen.takeFirst().at(0).toString(), QString());
}

TEST(GraphView, TasksCollapseIntoOneNodeWithMergedEdgesAndExpandAgain) {
    GraphView view;
    view.resize(1200, 700);
    view.setGraph(test::makeGraph(30));  // three tasks of ten types: chains, joined by 0 -> 10 and 0 -> 20
    view.waitForLayout();
    ASSERT_EQ(view.graph()->types.size(), 30u);
    // Double-click a node of task-1: the task becomes one node, its chain's edges gone, the join kept.
    QTest::mouseDClick(&view, Qt::LeftButton, Qt::NoModifier, view.nodeRect(15).center().toPoint());
    EXPECT_TRUE(view.isTaskCollapsed(QStringLiteral("task-1")));
    ASSERT_TRUE(view.waitForLayout());
    ASSERT_EQ(view.graph()->types.size(), 21u);
    const int collapsed = view.nodeForType(15);
    EXPECT_EQ(view.nodeForType(10), collapsed);
    EXPECT_EQ(view.collapsedMembers(collapsed), 10);
    EXPECT_EQ(view.graph()->types[static_cast<std::size_t>(collapsed)].task, "task-1");
    EXPECT_EQ(view.graph()->happensBefore.size(), 20u);
    EXPECT_EQ(view.visibleEdgeCount(), 20);
    bool join = false;
    for (const auto& e : view.graph()->happensBefore)
        if (e.from == 0 && static_cast<int>(e.to) == collapsed) join = e.support == 5 && !e.confirmed;
    EXPECT_TRUE(join);
    EXPECT_FALSE(view.nodeRect(collapsed).isEmpty());
    QImage image(view.size(), QImage::Format_ARGB32);
    view.render(&image);

    view.setAllTasksCollapsed(true);
    ASSERT_TRUE(view.waitForLayout());
    EXPECT_EQ(view.graph()->types.size(), 3u);
    EXPECT_EQ(view.graph()->happensBefore.size(), 2u);

    // Double-click the collapsed node: the task's ten types are back.
    view.setTaskCollapsed(QStringLiteral("task-0"), false);
    view.setTaskCollapsed(QStringLiteral("task-2"), false);
    ASSERT_TRUE(view.waitForLayout());
    QTest::mouseDClick(&view, Qt::LeftButton, Qt::NoModifier, view.nodeRect(view.nodeForType(12)).center().toPoint());
    ASSERT_TRUE(view.waitForLayout());
    EXPECT_EQ(view.graph()->types.size(), 30u);
    EXPECT_EQ(view.graph(), view.sourceGraph());
}

TEST(GraphView, DefaultZoomKeepsLabelsLegibleAndFitWholeShowsEverything) {
    GraphView view;
    view.resize(1200, 700);
    view.setGraph(makeHugeGraph(600));
    ASSERT_TRUE(view.waitForLayout());
    // Labels legible: the zoom is at least the legible one, the sources on screen, names capped in width.
    EXPECT_GE(view.scale(), GraphView::kLegibleScale);
    EXPECT_TRUE(view.nodeRect(0).intersects(QRectF(view.rect()))) << view.nodeRect(0).x();
    for (int i = 0; i < 600; i += 37) EXPECT_LE(view.nodeRect(i).width(), GraphView::kMaxNodeWidthPx * view.scale() + 1) << i;
    view.fitWhole();
    EXPECT_LT(view.scale(), GraphView::kLegibleScale);
    for (int i = 0; i < 600; i += 37) EXPECT_TRUE(QRectF(view.rect()).contains(view.nodeRect(i))) << i;
    // A small model fits whole at the default zoom.
    view.setGraph(test::makeGraph(6));
    ASSERT_TRUE(view.waitForLayout());
    for (int i = 0; i < 6; ++i) EXPECT_TRUE(QRectF(view.rect()).contains(view.nodeRect(i))) << i;
}

TEST(GraphView, TheGuiThreadNeverRunsGraphviz) {
    const int before = widgets::graphvizRunsOnGuiThread();
    widgets::ModelOverview overview;
    overview.resize(1200, 700);
    overview.setGraph(test::makeGraph(40));
    overview.setServiceMap(makeServiceMap());
    overview.graphView()->waitForLayout();
    overview.serviceMapView()->waitForLayout();
    EXPECT_EQ(overview.graphView()->layoutMethod(), widgets::GraphLayoutMethod::Graphviz);
    overview.serviceMapView()->setAllExpanded(true);
    overview.serviceMapView()->waitForLayout();
    overview.graphView()->setAllTasksCollapsed(true);
    overview.graphView()->waitForLayout();
    EXPECT_EQ(overview.serviceMapView()->layoutMethod(), widgets::GraphLayoutMethod::Graphviz);
    EXPECT_EQ(widgets::graphvizRunsOnGuiThread(), before);
    // The counter does count: a direct call here is on the GUI thread.
    widgets::GraphLayoutInput tiny;
    tiny.nodes = {{10, 10}};
    widgets::layoutGraph(tiny);
    EXPECT_EQ(widgets::graphvizRunsOnGuiThread(), before + 1);
}

TEST(ConvergencePlot, PlotsBothCurvesWithAxisTitles) {
    widgets::ConvergencePlot plot;
    auto g = test::makeGraph(10);
    plot.setGraph(g.get());
    ASSERT_EQ(plot.plot()->graphCount(), 2);
    EXPECT_EQ(plot.plot()->graph(0)->dataCount(), 3);
    EXPECT_FALSE(plot.plot()->xAxis->label().isEmpty());
    EXPECT_FALSE(plot.plot()->yAxis->label().isEmpty());
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    // Never the user's settings, nor another test process's (CTest runs them side by side).
    QTemporaryDir config;
    qputenv("XDG_CONFIG_HOME", config.path().toUtf8());
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TracelightTests"));
    QApplication::setApplicationName(QStringLiteral("GraphViewTest"));
    ::testing::InitGoogleTest(&argc, argv);
    const int failed = RUN_ALL_TESTS();
    // Layouts a test superseded may still run on the pool: they end before the application does.
    QThreadPool::globalInstance()->waitForDone();
    return failed;
}
