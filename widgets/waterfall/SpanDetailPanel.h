#pragma once
// The selected span in words: service, operation, host, kind, start offset and duration, self and critical
// time, its own tags (a key/value table), its events with time offsets from the span's start, its links.
#include <QWidget>

#include "waterfall/SpanTreeView.h"

class QLabel;
class QTableWidget;

namespace tracelight::widgets {

class SpanDetailPanel : public QWidget {
    Q_OBJECT
public:
    explicit SpanDetailPanel(QWidget* parent = nullptr);
    // Shows span `span` of `view`'s data as the view draws it (its start offset in the view's clock); -1: nothing.
    void showSpan(const SpanTreeView& view, int span);

    QString summaryText() const;  // the header lines, as plain text (for tests)
    const QTableWidget* tags() const { return m_tags; }
    const QTableWidget* events() const { return m_events; }
    QString linksText() const;

private:
    QLabel* m_summary = nullptr;
    QTableWidget* m_tags = nullptr;
    QTableWidget* m_events = nullptr;
    QLabel* m_links = nullptr;
};

} // namespace tracelight::widgets
