#pragma once
// How times read in every view: durations with a unit that fits, timestamps as UTC wall-clock time.
#include <QString>

namespace tracelight::widgets {

QString formatDuration(double microseconds);  // "850 µs", "12.4 ms", "3.20 s"
QString formatTimestamp(double epochMicroseconds);  // "2026-11-01 00:00:01.234"

} // namespace tracelight::widgets
