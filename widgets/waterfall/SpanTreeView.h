#pragma once
// The span tree of one request, as Jaeger draws it: a row per span indented by its parent depth,
// collapsible, a bar per span at its recorded (or clock-adjusted) time coloured by service, the critical
// part of each span drawn on its bar, a resizable label column and a time axis. It draws what it is given:
// self and critical times come from core in SpanTreeData.
#include <QWidget>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "tracelight/analysis/SpanCriticalPath.h"
#include "tracelight/base/Grouping.h"
#include "tracelight/base/Ids.h"
#include "tracelight/store/SpanRecords.h"

class QScrollBar;

namespace tracelight::widgets {

// What the span tree shows: the spans' shapes, and per span (index as in spans; an empty vector: not known)
struct SpanTreeData {
    std::vector<SpanShape> spans;
    std::shared_ptr<const void> texts;  // what the shapes' texts view, kept with them
    // The whole record of a span (its id, tags, events and links), read when it is shown; unset or
    // nullopt: not known.
    std::function<std::optional<SpanRecord>(int span)> record;
    // Per span, from core (spanCriticalPath), kept as it gave them, not copied: self time (no child covers
    // it), critical time (on the request's critical path) and where that lies, here on the span's
    // recorded clock (criticalIntervals).
    SpanCriticalTimes times;
    // The work no caller waited for (the critical path's async parts), by span, each span's parts in time
    // order, on the span's recorded clock as the critical intervals.
    std::vector<SpanPart> async;
    // The analysis's clock offset of the span's host: the adjusted view draws it at recorded - offset.
    std::vector<TimeNs> clockOffsetNs;
};

class SpanTreeView : public QWidget {
    Q_OBJECT
public:
    explicit SpanTreeView(QWidget* parent = nullptr);

    void setSpans(std::shared_ptr<const SpanTreeData> data);
    const SpanTreeData* spans() const { return m_data.get(); }
    // Local clocks: the recorded span times; otherwise each span shifted by its host's clock offset.
    void setLocalClocks(bool local);
    bool localClocks() const { return m_local; }

    // Rows shown (collapsed subtrees hidden) and the span on each.
    int rowCount() const { return static_cast<int>(m_rows.size()); }
    int spanAtRow(int row) const;
    int rowOfSpan(int span) const;  // -1: hidden under a collapsed parent
    int depth(int span) const;
    bool hasChildren(int span) const;
    void setCollapsed(int span, bool collapsed);
    bool isCollapsed(int span) const;

    void setCurrentSpan(int span);
    int currentSpan() const { return m_current; }

    int labelWidth() const { return m_labelWidth; }
    void setLabelWidth(int width);

    // Visible time range, microseconds from the request's first span start (in the chosen clock).
    void setVisibleRange(double fromUs, double toUs);
    double visibleFromUs() const { return m_fromUs; }
    double visibleToUs() const { return m_toUs; }
    void fit();
    void zoom(double factor, double anchorX);

    // Geometry, for hit-testing and tests.
    QRect rowRect(int row) const;
    QRect triangleRect(int row) const;
    QRectF barRect(int span) const;
    int rowAt(int y) const;
    // Span start and end in the chosen clock, microseconds from the first start.
    std::pair<double, double> spanUs(int span) const;
    QString labelFor(int span) const;  // "service  operation"
    QString tooltipFor(int span) const;
    std::span<const SpanPart> asyncParts(int span) const;  // the span's work no caller waited for

    QSize sizeHint() const override { return {900, 500}; }

signals:
    void currentSpanChanged(int span);

protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    bool event(QEvent*) override;

private:
    void rebuildRows();
    void updateScrollBar();
    void ensureVisible(int row);
    double xOf(double us) const;
    int plotLeft() const { return m_labelWidth + kDivider; }
    int plotRight() const;
    TimeNs shownStart(int span) const;
    TimeNs shownEnd(int span) const;

    static constexpr int kRowHeight = 22;
    static constexpr int kAxisHeight = 24;
    static constexpr int kDivider = 5;
    static constexpr int kIndent = 14;

    std::shared_ptr<const SpanTreeData> m_data;
    Grouping m_children;  // each span's children by parent, in span order
    std::vector<int> m_depth;
    std::vector<char> m_collapsed;
    std::vector<int> m_rows;       // span per visible row
    std::vector<int> m_rowOfSpan;  // -1 when hidden
    TimeNs m_originNs = 0;
    bool m_local = true;
    int m_current = -1;
    int m_labelWidth = 300;
    bool m_draggingDivider = false;
    // A press in the rows: a click on release, or a drag that pans (from where the axis and scroll were).
    struct Press {
        bool active = false, dragged = false;
        QPoint at;
        double fromUs = 0, toUs = 1;
        int scroll = 0;
        int span = -1;
    } m_press;
    double m_fromUs = 0, m_toUs = 1;
    QScrollBar* m_scroll = nullptr;
};

} // namespace tracelight::widgets
