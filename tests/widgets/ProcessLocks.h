#pragma once
// The POSIX locks this process holds on a file, from /proc/locks: SQLite's locks on an open database, which
// closing any other descriptor of the file in this process would drop.
#include <QFile>
#include <QString>
#include <QStringList>
#include <sys/stat.h>
#include <unistd.h>

namespace tracelight::test {

// How many locks this process holds on the file (by its inode); -1 when /proc/locks or the file is missing.
inline int locksHeldOn(const QString& path) {
    struct stat st {};
    if (::stat(path.toLocal8Bit().constData(), &st) != 0) return -1;
    QFile locks(QStringLiteral("/proc/locks"));
    if (!locks.open(QIODevice::ReadOnly)) return -1;
    const QString pid = QString::number(::getpid());
    const QString inode = QStringLiteral(":%1").arg(static_cast<qulonglong>(st.st_ino));
    int held = 0;
    for (const QByteArray& line : locks.readAll().split('\n')) {
        // "1: POSIX  ADVISORY  READ 7945 fe:00:11452427 128 128"
        const QStringList f = QString::fromLatin1(line).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        if (f.size() >= 6 && f[1] == QLatin1String("POSIX") && f[4] == pid && f[5].endsWith(inode)) ++held;
    }
    return held;
}

} // namespace tracelight::test
