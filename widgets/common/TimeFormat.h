#pragma once
// How times read in every view: durations with a unit that fits, timestamps as UTC wall-clock time.
#include <QString>

#include "tracelight/base/Time.h"

namespace tracelight::widgets {

QString formatDuration(double microseconds);  // "850 µs", "12.4 ms", "3.20 s" (a view's own µs axis)
QString formatDurationNs(TimeNs nanoseconds);  // the same for a time from core; kNoTime shows "–"
// "2.0–5.5 ms": a range whose two ends read differently whenever they differ (more digits as needed); one
// value when they are equal.
QString formatDurationRangeNs(TimeNs from, TimeNs to);
// "1.2 ms ± 0.3 ms": a mean and the standard deviation (the square root of the variance, ns²) of the same values.
QString formatMeanAndSpreadNs(double meanNs, double varianceNs2);
QString formatTimestampNs(TimeNs epochNanoseconds);  // "2026-11-01 00:00:01.234"
// "2026-11-01 05:26:12.736 – 05:30:34.880": the end's time of day, or its date too when it is another day.
QString formatTimeRangeNs(TimeNs startEpochNs, TimeNs endEpochNs);

// Time axes (µs): a tick step of 1, 2 or 5 times a power of ten, about every 110 pixels, and a tick label
// with just the decimals its step needs: "500 ms", "1.5 s", "250 µs".
double axisTickStep(double spanUs, double pixels);
QString formatAxisTick(double us, double stepUs);

} // namespace tracelight::widgets
