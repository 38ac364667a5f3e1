#pragma once
// A count of requests with its noun in the right number: "1 request", "1,290 requests".
#include <QCoreApplication>
#include <QString>

namespace tracelight::widgets {

inline QString requestCount(qint64 n) {
    return n == 1 ? QCoreApplication::translate("Counts", "1 request") : QCoreApplication::translate("Counts", "%L1 requests").arg(n);
}

} // namespace tracelight::widgets
