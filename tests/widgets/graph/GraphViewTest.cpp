#include <gtest/gtest.h>

#include <QApplication>
#include <QImage>
#include <qcustomplot.h>

#include "graph/GraphView.h"
#include "widgets/ViewFixtures.h"

using namespace tracelight;
using tracelight::widgets::GraphView;

TEST(GraphView, LaysOutHappensBeforeLeftToRight) {
    GraphView view;
    view.resize(1200, 700);
    view.setGraph(test::makeGraph(30));
    ASSERT_TRUE(view.layoutError().isEmpty()) << view.layoutError().toStdString();
    for (int i = 1; i < 10; ++i) EXPECT_LT(view.nodeRect(i - 1).center().x(), view.nodeRect(i).center().x()) << i;
    EXPECT_LT(view.nodeRect(0).center().x(), view.nodeRect(10).center().x());
    for (int n : {0, 5, 17}) EXPECT_EQ(view.nodeAt(view.nodeRect(n).center().toPoint()), n);
}

TEST(GraphView, SupportSliderAndUnconfirmedToggleHideEdges) {
    GraphView view;
    view.resize(1200, 700);
    view.setGraph(test::makeGraph(30));
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
    EXPECT_EQ(view.findAndFocus(QStringLiteral("task-2:")), 10);
    EXPECT_EQ(view.findAndFocus(QStringLiteral("E7->E8")), 1);
    EXPECT_EQ(view.findAndFocus(QStringLiteral("nothing")), 0);
    view.selectNode(3);
    EXPECT_EQ(view.selectedNode(), 3);
    QImage image(view.size(), QImage::Format_ARGB32);
    view.render(&image);  // paints without a layout error message
    EXPECT_NE(image.pixel(view.nodeRect(3).center().toPoint()), QColor(Qt::white).rgb());
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
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
