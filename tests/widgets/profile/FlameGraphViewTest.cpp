// The flame graph draws core's profile: widths proportional to mean critical time, zoom with a breadcrumb,
// search with the matched share (a match inside a match counted once), frames found under the mouse.
#include <gtest/gtest.h>

#include <QApplication>
#include <QTest>

#include "profile/FlameGraphView.h"

using namespace tracelight;

namespace {

// all = 100 ns per request: A 100 (self 0) > B 60 (> D 20), C 40.
std::shared_ptr<ProfileSet> handMade() {
    auto p = std::make_shared<ProfileSet>();
    p->frames = {{-1, "svc:A", FrameKind::Span, {"svc"}}, {0, "svc:B", FrameKind::Span, {"svc"}},
                 {0, "db:C", FrameKind::Span, {"db"}},    {1, "svc:B-inner", FrameKind::Span, {"svc"}}};
    ProfileGroup g;
    g.requests = 1;
    g.latencySumNs = 100;
    g.frames.resize(4);
    const double totals[] = {100, 60, 40, 20}, selfs[] = {0, 40, 40, 20};
    for (int f = 0; f < 4; ++f) {
        g.frames[f].totalSum = totals[f];
        g.frames[f].selfSum = selfs[f];
        g.frames[f].criticalRequests = 1;
    }
    p->groups.push_back(g);
    return p;
}

} // namespace

TEST(FlameGraphView, WidthsFollowTheMeanCriticalTimeAndZoomKeepsTheAncestors) {
    widgets::FlameGraphView view;
    view.resize(1000, 200);
    view.setProfile(handMade());
    constexpr int row = 20, top = 2;
    auto at = [&](int x, int depth) { return view.frameAt(QPoint(x, top + depth * row + row / 2)); };
    EXPECT_EQ(at(500, 0), -2);  // "all"
    EXPECT_EQ(at(500, 1), 0);   // A: the whole width
    EXPECT_EQ(at(590, 2), 1);   // B: [0, 600)
    EXPECT_EQ(at(610, 2), 2);   // C: [600, 1000)
    EXPECT_EQ(at(190, 3), 3);   // B-inner: [0, 200)
    EXPECT_EQ(at(210, 3), -1);
    view.zoomTo(1);
    EXPECT_EQ(view.breadcrumb(), QStringLiteral("all › svc:A › svc:B"));
    EXPECT_EQ(at(500, 2), 1);   // B now spans the width, under its ancestors
    EXPECT_EQ(at(320, 3), 3);   // B-inner: a third of B
    EXPECT_EQ(at(340, 3), -1);
    EXPECT_EQ(at(990, 2), 1);   // C is out of view: B holds the whole row
    view.zoomTo(-1);
    EXPECT_EQ(view.breadcrumb(), QStringLiteral("all"));
}

TEST(FlameGraphView, SearchSaysTheMatchedShareOnce) {
    widgets::FlameGraphView view;
    view.setProfile(handMade());
    view.setSearch("svc:B");
    EXPECT_DOUBLE_EQ(view.matchedShare(), 0.6);  // B and B-inner: B-inner is inside B, counted once
    view.setSearch("db:");
    EXPECT_DOUBLE_EQ(view.matchedShare(), 0.4);
    view.setSearch("");
    EXPECT_DOUBLE_EQ(view.matchedShare(), 0.0);
    if (const QByteArray png = qgetenv("FLAME_PNG"); !png.isEmpty()) {
        view.resize(800, 120);
        view.setSearch("svc:B");
        ASSERT_TRUE(view.grab().save(QString::fromLocal8Bit(png)));
    }
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
