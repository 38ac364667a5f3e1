// The Compare tab: two periods compared on a worker, the ranked entries with the A/A figure, the chosen
// entry's red edges and requests, live re-ranking, CSV export, and a clear message for every bad choice.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QSortFilterProxyModel>
#include <QFile>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <fstream>

#include "core/GeneratedPeriods.h"
#include "compare/CompareEntryModel.h"
#include "compare/CompareWorkspace.h"
#include "generator/PageLoadGenerator.h"
#include "tracelight/base/Time.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

using namespace tracelight;

namespace {

struct Fixture {
    QTemporaryDir dir;
    std::string db;
    std::shared_ptr<const InMemoryAnalysis> analysis;
};

// A baseline and a problem period whose feed cache-miss fill is 6x slower, imported and analysed.
std::unique_ptr<Fixture> twoPeriods(int periods = 2) {
    auto f = std::make_unique<Fixture>();
    f->db = f->dir.filePath("cmp.tldb").toStdString();
    f->analysis = test::analysedPeriods(f->db, 800, 6.0, periods);
    return f;
}

bool waitReady(widgets::CompareWorkspace& w) { return QTest::qWaitFor([&] { return !w.isComputing(); }, 120000); }

} // namespace

TEST(CompareWorkspace, RanksTheSlowedSegmentFirstWithItsRedEdgeAndTheAaFigure) {
    auto f = twoPeriods();
    widgets::CompareWorkspace w;
    w.resize(1300, 700);
    w.show();
    w.setDatabase(QString::fromStdString(f->db), f->analysis, {"baseline", "problem"});
    w.setPeriods("baseline", "problem");
    ASSERT_TRUE(waitReady(w));
    ASSERT_TRUE(w.comparison()) << w.summaryText().toStdString();
    EXPECT_TRUE(w.summaryText().contains("A/A")) << w.summaryText().toStdString();
    auto* model = qobject_cast<widgets::CompareEntryModel*>(
        qobject_cast<QSortFilterProxyModel*>(w.entryTable()->model())->sourceModel());
    ASSERT_TRUE(model);
    ASSERT_GT(model->rowCount(), 0);
    const CompareEntry* top = model->entryAt(0);
    ASSERT_EQ(top->kind, CompareEntry::Kind::ResponseTime);
    ASSERT_FALSE(top->changedEdges.empty());
    // The detail of the selected (first) entry names the slowed edge in red, and lists its requests.
    QTreeWidget* detail = w.detail();
    ASSERT_GE(detail->topLevelItemCount(), 4);
    const QTreeWidgetItem* red = detail->topLevelItem(1);
    ASSERT_GT(red->childCount(), 0);
    EXPECT_EQ(red->child(0)->text(0), QStringLiteral("fetch-feed:CACHE_MISS → fetch-feed:CACHE_REPLY"));
    EXPECT_GT(detail->topLevelItem(3)->childCount(), 0);

    // Activating a request emits it for the waterfall.
    RequestId activated;
    QObject::connect(&w, &widgets::CompareWorkspace::requestActivated, [&](RequestId id) { activated = id; });
    emit detail->itemActivated(detail->topLevelItem(3)->child(0), 0);
    EXPECT_TRUE(activated.isValid());

    // Re-ranking with an impossible threshold keeps the categories and drops every structural entry.
    const auto* categories = w.comparison()->categories.get();
    w.findChild<QDoubleSpinBox*>("threshold")->setValue(1e8);
    ASSERT_TRUE(waitReady(w));
    EXPECT_EQ(w.comparison()->categories.get(), categories);
    for (const auto& e : w.comparison()->comparison.entries) EXPECT_NE(e.kind, CompareEntry::Kind::Structural);

    // CSV: a header and one line per entry.
    const QString csv = QDir(QString::fromStdString(f->dir.path().toStdString())).filePath("entries.csv");
    ASSERT_TRUE(w.exportCsv(csv));
    QFile file(csv);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
    EXPECT_EQ(lines.size(), model->rowCount() + 1);
    EXPECT_TRUE(lines.first().startsWith("rank,kind,category"));

    if (const QByteArray png = qgetenv("COMPARE_PNG"); !png.isEmpty()) {
        w.setWindowTitle("Compare");
        ASSERT_TRUE(w.grab().save(QString::fromLocal8Bit(png)));
    }
}

TEST(CompareWorkspace, SaysWhyWhenThereIsNothingToCompare) {
    auto f = twoPeriods(1);
    widgets::CompareWorkspace w;
    w.show();
    w.setDatabase(QString::fromStdString(f->db), f->analysis, {"baseline"});
    EXPECT_TRUE(w.summaryText().contains("one period")) << w.summaryText().toStdString();
    EXPECT_FALSE(w.comparison());
    w.setDatabase(QString::fromStdString(f->db), f->analysis, {});
    EXPECT_TRUE(w.summaryText().contains("no periods")) << w.summaryText().toStdString();
    // A period the database does not hold: the core's one-line message.
    w.setDatabase(QString::fromStdString(f->db), f->analysis, {"baseline", "gone"});
    w.setPeriods("baseline", "gone");
    ASSERT_TRUE(waitReady(w));
    EXPECT_TRUE(w.summaryText().contains("no period 'gone'")) << w.summaryText().toStdString();
    EXPECT_FALSE(w.comparison());
    w.setPeriods("baseline", "baseline");
    EXPECT_TRUE(w.summaryText().contains("same period")) << w.summaryText().toStdString();
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    app.setOrganizationName("tracelight-tests");
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
