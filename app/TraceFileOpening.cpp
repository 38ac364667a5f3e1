#include "TraceFileOpening.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include "tracelight/store/TraceStore.h"

namespace tracelight::app {

bool looksLikeDatabase(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return false;
    return file.read(16) == QByteArray("SQLite format 3\0", 16);
}

QString databaseForTraceFile(const QString& trace) {
    const QFileInfo info(trace);
    const QFileInfo folder(info.absolutePath());
    if (folder.isWritable()) return info.absoluteFilePath() + QStringLiteral(".tldb");
    const QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/traces");
    QDir().mkpath(cache);
    const QString hash = QString::fromLatin1(QCryptographicHash::hash(info.absoluteFilePath().toUtf8(), QCryptographicHash::Sha1).toHex().left(10));
    return cache + QLatin1Char('/') + info.completeBaseName() + QLatin1Char('-') + hash + QStringLiteral(".tldb");
}

bool holdsOnlyImportOf(const QString& database, const QString& trace) {
    auto store = TraceStore::open(database.toStdString(), TraceStore::Mode::ReadOnly);
    if (!store) return false;
    const auto imports = store.value()->importedInputs();
    return imports.size() == 1 && imports.front().size() == 1 &&
           QFileInfo(QString::fromStdString(imports.front().front())).absoluteFilePath() == QFileInfo(trace).absoluteFilePath();
}

bool holdsCurrentImportOf(const QString& database, const QString& trace) {
    const QFileInfo db(database), file(trace);
    return db.exists() && db.lastModified() >= file.lastModified() && holdsOnlyImportOf(database, trace);
}

} // namespace tracelight::app
