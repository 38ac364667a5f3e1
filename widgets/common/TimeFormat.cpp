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

QString formatDurationNs(TimeNs ns) {
    if (ns == kNoTime) return QStringLiteral("–");
    if (ns > -1000 && ns < 1000 && ns != 0) return QStringLiteral("%1 ns").arg(ns);
    return formatDuration(nsToUs(ns));
}

QString formatTimestampNs(TimeNs epochNs) {
    if (epochNs == kNoTime) return QStringLiteral("–");
    const qint64 ms = epochNs >= 0 ? epochNs / 1000000 : -((-epochNs + 999999) / 1000000);  // floor
    return QDateTime::fromMSecsSinceEpoch(ms, QTimeZone::utc()).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
}

} // namespace tracelight::widgets
