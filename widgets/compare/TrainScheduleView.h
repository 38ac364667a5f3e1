#pragma once
// One request's train schedule zoomed out to components (Spectroscope's Figure 8), drawn as a Marey chart:
// a station (horizontal line) per component, time across; each stay in a component runs along its station
// and each call or reply between components crosses from station to station, the critical path in its colour.
#include <QWidget>

#include "tracelight/compare/TrainSchedule.h"

namespace tracelight::widgets {

class TrainScheduleView : public QWidget {
    Q_OBJECT
public:
    explicit TrainScheduleView(QWidget* parent = nullptr);

    void setSchedule(TrainSchedule schedule, const QString& title);
    void clear(const QString& message);
    // The time axis's end, microseconds from the request's start: two schedules compared share one.
    void setSpanUs(double spanUs);
    double spanUs() const { return m_spanUs; }
    const TrainSchedule& schedule() const { return m_schedule; }
    // Where station s is drawn (for tests): its line's y, or -1 when there is no such station.
    int stationY(std::size_t station) const;

    QSize sizeHint() const override { return {900, 300}; }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    double xOf(double us) const;
    int plotLeft() const;
    int plotRight() const { return width() - 16; }

    static constexpr int kTitleHeight = 22, kAxisHeight = 30, kLegendHeight = 22;
    TrainSchedule m_schedule;
    QString m_title, m_message;
    double m_spanUs = 1;
};

} // namespace tracelight::widgets
