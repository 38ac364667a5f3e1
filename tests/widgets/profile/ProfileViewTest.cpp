// The Profile tab over a database: the profile of a period computed on a worker, and its diff against
// another period, where the slowed segment leads the table of significant changes.
#include <gtest/gtest.h>

#include <QApplication>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "core/GeneratedPeriods.h"
#include "profile/FlameGraphView.h"
#include "profile/ProfileView.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

using namespace tracelight;

namespace {

std::shared_ptr<const InMemoryAnalysis> analysedTwoPeriods(const QTemporaryDir& dir, std::string& db) {
    db = dir.filePath("p.tldb").toStdString();
    return test::analysedPeriods(db, 600, 6.0);
}

bool waitReady(widgets::ProfileView& v) { return QTest::qWaitFor([&] { return !v.isComputing(); }, 120000); }

} // namespace

TEST(ProfileView, ProfileThenDiffPutsTheSlowedSegmentFirst) {
    QTemporaryDir dir;
    std::string db;
    auto analysis = analysedTwoPeriods(dir, db);
    widgets::ProfileView view;
    view.resize(1300, 600);
    view.show();
    view.setDatabase(QString::fromStdString(db), analysis, {"baseline", "problem"});
    ASSERT_TRUE(waitReady(view));
    EXPECT_TRUE(view.statusText().contains("1,200 requests")) << view.statusText().toStdString();
    EXPECT_FALSE(view.flameGraph()->isDiff());
    EXPECT_FALSE(view.changeTable()->isVisible());

    view.setPeriod("problem");
    view.setDiffBase("baseline");
    ASSERT_TRUE(waitReady(view));
    EXPECT_TRUE(view.flameGraph()->isDiff());
    ASSERT_GT(view.changeTable()->rowCount(), 0) << view.statusText().toStdString();
    EXPECT_EQ(view.changeTable()->item(0, 0)->text(), QStringLiteral("CACHE_MISS->CACHE_REPLY"));
    EXPECT_TRUE(view.changeTable()->item(0, 0)->toolTip().startsWith("cache › fetch-feed › ")) << view.changeTable()->item(0, 0)->toolTip().toStdString();
    EXPECT_TRUE(view.statusText().contains("significant frames")) << view.statusText().toStdString();
    if (const QByteArray png = qgetenv("PROFILE_DIFF_PNG"); !png.isEmpty()) ASSERT_TRUE(view.grab().save(QString::fromLocal8Bit(png)));

    // The same period on both sides is refused with a reason.
    view.setDiffBase("problem");
    EXPECT_TRUE(view.statusText().contains("same period")) << view.statusText().toStdString();
}

// A picture of any database's diff, for the README: PROFILE_DIFF_DB, _BASE, _TARGET, _OUT.
TEST(ProfileView, RendersADiffOfAnyDatabase) {
    const QByteArray file = qgetenv("PROFILE_DIFF_DB");
    if (file.isEmpty()) GTEST_SKIP() << "set PROFILE_DIFF_DB, PROFILE_DIFF_BASE, PROFILE_DIFF_TARGET and PROFILE_DIFF_OUT";
    auto store = TraceStore::open(file.toStdString(), TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store);
    auto analysis = loadAnalysis(*store.value());
    ASSERT_TRUE(analysis);
    QStringList periods;
    auto info = store.value()->info();  // kept: the loop must not walk a temporary's member
    ASSERT_TRUE(info);
    for (const auto& p : info->periods) periods << QString::fromStdString(p.name);
    widgets::ProfileView view;
    view.resize(1400, 700);
    view.show();
    view.setDatabase(QString::fromLocal8Bit(file), std::make_shared<const InMemoryAnalysis>(std::move(analysis.value())), periods);
    view.setPeriod(QString::fromLocal8Bit(qgetenv("PROFILE_DIFF_TARGET")));
    view.setDiffBase(QString::fromLocal8Bit(qgetenv("PROFILE_DIFF_BASE")));
    ASSERT_TRUE(waitReady(view));
    ASSERT_TRUE(view.grab().save(QString::fromLocal8Bit(qgetenv("PROFILE_DIFF_OUT"))));
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
