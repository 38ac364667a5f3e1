#include "plots/DurationTicker.h"

#include "common/TimeFormat.h"

namespace tracelight::widgets {

QVector<QString> DurationTicker::createLabelVector(const QVector<double>& ticks, const QLocale&, QChar, int) {
    // The step between ticks decides the unit and the decimals, as on the waterfall's time axis.
    const double stepMs = ticks.size() > 1 ? ticks[1] - ticks[0] : (ticks.isEmpty() ? 1.0 : std::max(1e-3, std::fabs(ticks[0])));
    QVector<QString> labels;
    labels.reserve(ticks.size());
    for (double t : ticks) labels << formatAxisTick(t * 1000.0, stepMs * 1000.0);
    return labels;
}

void useDurationTicks(QCPAxis* axis) { axis->setTicker(QSharedPointer<QCPAxisTicker>(new DurationTicker)); }

} // namespace tracelight::widgets
