#pragma once
// Under the waterfall: the selected request in its temporal context (NSDI'18) — a row per host it touched,
// its lifetime cut into slices, each cell shaded by how many other requests ran on that host then, with the
// number written where it fits. Hover: the counts; click a cell: a menu of those requests, choosing one opens
// it. With host activity in the database, a band under each cell shows how busy the host's non-traced work
// (GC, compactions, cron, ...) kept it in that slice, and a last row draws the request's own low-level work
// (records marked with it). Drawn from core's temporalContextStrip (computed on a worker by the app).
#include <QWidget>
#include <functional>
#include <memory>

#include "tracelight/bottleneck/TemporalContext.h"

namespace tracelight::widgets {

class TemporalContextStrip : public QWidget {
    Q_OBJECT
public:
    explicit TemporalContextStrip(QWidget* parent = nullptr);

    void setStrip(std::shared_ptr<const ContextStrip> strip, std::function<QString(RequestId)> requestName);
    void clear(const QString& message);
    const ContextStrip* strip() const { return m_strip.get(); }
    // The (host, slice) under a point, or {-1, -1}.
    std::pair<int, int> cellAt(QPoint p) const;
    QRect cellRect(int host, int slice) const;
    // With host activity: the band under a cell, and the bar of the request's i-th own low-level work.
    QRect activityRect(int host, int slice) const;
    QRect ownRect(std::size_t i) const;
    // The requests a click on that cell offers (what the menu lists).
    std::vector<RequestId> requestsIn(int host, int slice) const;
    QSize sizeHint() const override;

signals:
    void requestActivated(RequestId id);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    bool event(QEvent*) override;

private:
    bool showsActivity() const;
    int rowHeight() const;
    int rowCount() const;
    QString ownToolTip(QPoint p) const;  // the own low-level work under p, empty for none

    std::shared_ptr<const ContextStrip> m_strip;
    std::function<QString(RequestId)> m_requestName;
    QString m_message;
    int m_max = 0;  // the most requests in any cell (the darkest shade)
};

} // namespace tracelight::widgets
