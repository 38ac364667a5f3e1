#pragma once
// Under the waterfall: the selected request in its temporal context (NSDI'18) — a row per host it touched,
// its lifetime cut into slices, each cell shaded by how many other requests ran on that host then, with the
// number written where it fits. Hover: the counts; click a cell: a menu of those requests, choosing one opens
// it. Drawn from core's temporalContextStrip (computed on a worker by the app).
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
    std::shared_ptr<const ContextStrip> m_strip;
    std::function<QString(RequestId)> m_requestName;
    QString m_message;
    int m_max = 0;  // the most requests in any cell (the darkest shade)
};

} // namespace tracelight::widgets
