#include "common/TimeFormat.h"

#include <QDateTime>
#include <QTimeZone>
#include <algorithm>
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

QString formatMeanAndSpreadNs(double meanNs, double varianceNs2) {
    return formatDurationNs(static_cast<TimeNs>(meanNs)) + QStringLiteral(" ± ") +
           formatDurationNs(static_cast<TimeNs>(std::sqrt(std::max(0.0, varianceNs2))));
}

QString formatDurationRangeNs(TimeNs from, TimeNs to) {
    if (from == to) return formatDurationNs(from);
    // One unit for both ends, chosen by the larger; digits added until the ends differ.
    const double top = std::max(std::fabs(double(from)), std::fabs(double(to)));
    const double scale = top >= 1e9 ? 1e9 : top >= 1e6 ? 1e6 : top >= 1e3 ? 1e3 : 1.0;
    const QString unit = top >= 1e9 ? QStringLiteral("s") : top >= 1e6 ? QStringLiteral("ms") : top >= 1e3 ? QStringLiteral("µs") : QStringLiteral("ns");
    int digits = scale == 1.0 ? 0 : 1;
    QString a, b;
    for (;; ++digits) {
        a = QString::number(double(from) / scale, 'f', digits);
        b = QString::number(double(to) / scale, 'f', digits);
        if (a != b || digits >= 9) break;
    }
    return QStringLiteral("%1–%2 %3").arg(a, b, unit);
}

QString formatTimestampNs(TimeNs epochNs) {
    if (epochNs == kNoTime) return QStringLiteral("–");
    const qint64 ms = epochNs >= 0 ? epochNs / 1000000 : -((-epochNs + 999999) / 1000000);  // floor
    return QDateTime::fromMSecsSinceEpoch(ms, QTimeZone::utc()).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
}

QString formatTimeRangeNs(TimeNs startEpochNs, TimeNs endEpochNs) {
    const QString start = formatTimestampNs(startEpochNs), end = formatTimestampNs(endEpochNs);
    const bool sameDay = start.size() > 11 && end.size() > 11 && start.left(11) == end.left(11);
    return start + QStringLiteral(" – ") + (sameDay ? end.mid(11) : end);
}

double axisTickStep(double spanUs, double pixels) {
    const double raw = spanUs * 110.0 / std::max(1.0, pixels);
    const double magnitude = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-9))));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * magnitude) return m * magnitude;
    return 10 * magnitude;
}

QString formatAxisTick(double us, double stepUs) {
    const double a = std::max(std::fabs(us), stepUs);
    const char* unit = a >= 1e6 ? "s" : a >= 1e3 ? "ms" : "µs";
    const double scale = a >= 1e6 ? 1e6 : a >= 1e3 ? 1e3 : 1.0;
    // As many decimals as the step needs to be exact (a step of 0.25 s: two), at most three.
    const double step = stepUs / scale;
    int decimals = 0;
    while (decimals < 3 && std::fabs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals))) > 1e-6) ++decimals;
    return QStringLiteral("%1 %2").arg(us / scale, 0, 'f', decimals).arg(QString::fromUtf8(unit));
}

} // namespace tracelight::widgets
