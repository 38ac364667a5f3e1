#pragma once
// A plot axis whose coordinates are milliseconds, its ticks labelled with the unit that fits the step:
// "250 µs", "500 ms", "1.5 s", "40 s" — so that a 44-second request does not read as "40000" ms.
#include <qcustomplot.h>

namespace tracelight::widgets {

class DurationTicker : public QCPAxisTicker {
protected:
    QVector<QString> createLabelVector(const QVector<double>& ticks, const QLocale& locale, QChar formatChar, int precision) override;
};

// Puts a DurationTicker on the axis.
void useDurationTicks(QCPAxis* axis);

} // namespace tracelight::widgets
