// The app's file dialogs list a folder without opening the files in it: the open database in that folder keeps
// its POSIX locks (closing any descriptor of a file drops them all), so no other process can take it over.
#include <gtest/gtest.h>

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include "common/FileDialogs.h"
#include "tracelight/store/TraceStore.h"
#include "../ProcessLocks.h"

namespace tracelight {
namespace {

TEST(FileDialogs, ListingTheOpenDatabasesFolderKeepsItsLocks) {
    if (!QFileInfo::exists(QStringLiteral("/proc/locks"))) GTEST_SKIP() << "no /proc/locks";
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("open.tldb"));
    auto store = TraceStore::open(db.toStdString(), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    ASSERT_EQ(store.value()->requestCount(), 0u);
    const QString shm = db + QStringLiteral("-shm");
    ASSERT_TRUE(QFileInfo::exists(shm)) << "the database is not in WAL mode";
    const int before = test::locksHeldOn(shm) + test::locksHeldOn(db);
    ASSERT_GT(before, 0);
    QFile(dir.filePath(QStringLiteral("trace.csv"))).open(QIODevice::WriteOnly);
    std::unique_ptr<QFileDialog> dialog(widgets::newFileDialog(nullptr, QStringLiteral("Import traces"), dir.path(), QStringLiteral("All files (*)")));
    dialog->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(dialog.get()));
    QTest::qWait(1500);  // the dialog's file-info thread has been through the folder
    EXPECT_EQ(test::locksHeldOn(shm) + test::locksHeldOn(db), before);
}

} // namespace
} // namespace tracelight
