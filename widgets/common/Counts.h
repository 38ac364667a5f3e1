#pragma once
// A count with its noun in the right number: "1 request", "1,290 requests"; "1 record", "3 records"; "1 host".
#include <QCoreApplication>
#include <QString>

namespace tracelight::widgets {

inline QString requestCount(qint64 n) {
    return n == 1 ? QCoreApplication::translate("Counts", "1 request") : QCoreApplication::translate("Counts", "%L1 requests").arg(n);
}

inline QString recordCount(qint64 n) {
    return n == 1 ? QCoreApplication::translate("Counts", "1 record") : QCoreApplication::translate("Counts", "%L1 records").arg(n);
}

inline QString hostCount(qint64 n) {
    return n == 1 ? QCoreApplication::translate("Counts", "1 host") : QCoreApplication::translate("Counts", "%L1 hosts").arg(n);
}

} // namespace tracelight::widgets
