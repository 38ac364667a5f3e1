#include "common/TimeFormat.h"

#include <QDateTime>
#include <QTimeZone>
#include <cmath>

namespace tracelight::widgets {

QString formatDuration(double us) {
    if (!std::isfinite(us)) return QStringLiteral("–");
    const double a = std::fabs(us);
    if (a < 1000) return QStringLiteral("%1 µs").arg(us, 0, 'f', 0);
    if (a < 1e6) return QStringLiteral("%1 ms").arg(us / 1e3, 0, 'f', a < 1e4 ? 2 : 1);
    return QStringLiteral("%1 s").arg(us / 1e6, 0, 'f', 2);
}

QString formatTimestamp(double epochUs) {
    if (!std::isfinite(epochUs)) return QStringLiteral("–");
    const auto ms = static_cast<qint64>(std::floor(epochUs / 1000.0));
    return QDateTime::fromMSecsSinceEpoch(ms, QTimeZone::utc()).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
}

} // namespace tracelight::widgets
