#pragma once
// Several requests on one time axis, one row each (a burst window's requests, say), a lane per task of
// the request within its row: each shows the request's segments coloured by task, the ones on its critical path full height with a red edge, the rest
// paler and half height, network trips as thin grey bars. Labels on the left, a time axis in ms from the
// window's start on top. Hover: the segment; click a row: requestActivated.
#include <QWidget>
#include <functional>
#include <vector>

#include "tracelight/bottleneck/BurstTimelines.h"

namespace tracelight::widgets {

class MultiRequestWaterfall : public QWidget {
    Q_OBJECT
public:
    explicit MultiRequestWaterfall(QWidget* parent = nullptr);

    // rowLabels[i] names timelines[i]; taskName names (and colours) a segment's task label.
    void setTimelines(std::vector<RequestTimeline> timelines, QStringList rowLabels, TimeNs axisStartNs, TimeNs axisEndNs,
                      std::function<QString(std::uint32_t)> taskName);
    void clear(const QString& message);
    const QString& message() const { return m_message; }  // what it says in place of a drawing
    // What the time axis counts from ("ms from the window's start" unless told).
    void setAxisCaption(const QString& caption);
    int rowCount() const { return static_cast<int>(m_timelines.size()); }
    int rowAt(QPoint p) const;  // -1 outside the rows
    TimeNs axisStartNs() const { return m_axisStartNs; }
    TimeNs axisEndNs() const { return m_axisEndNs; }
    QSize sizeHint() const override;

signals:
    void requestActivated(RequestId id);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    double xOf(TimeNs t) const;
    QRect plotArea() const;

    std::vector<RequestTimeline> m_timelines;
    QString m_axisCaption = tr("ms from the window's start");
    std::vector<std::vector<int>> m_lanes;                 // per row, per segment: its task's lane
    std::vector<std::vector<std::uint32_t>> m_laneTasks;   // per row: the task of each lane
    std::vector<int> m_rowTop = {0};                       // row r spans [m_rowTop[r], m_rowTop[r + 1]) below the axis
    QStringList m_rowLabels;
    TimeNs m_axisStartNs = 0, m_axisEndNs = 1;
    std::function<QString(std::uint32_t)> m_taskName;
    QString m_message;
};

} // namespace tracelight::widgets
