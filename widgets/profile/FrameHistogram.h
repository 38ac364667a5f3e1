#pragma once
// One frame's critical time per request, as the profile's log2 histogram holds it (critical path tracing: a
// frame that is usually fast but now and then very slow is a different problem from one always moderately
// slow, with the same mean). In a diff, the base's and the target's side by side.
#include <QWidget>

#include <memory>

#include "tracelight/profile/Profile.h"

class QCustomPlot;
class QLabel;

namespace tracelight::widgets {

class FrameHistogram : public QWidget {
    Q_OBJECT
public:
    explicit FrameHistogram(QWidget* parent = nullptr);
    // The frame of the profile's group (and, with base >= 0, of the base group beside it); frame -1: none.
    void setFrame(std::shared_ptr<const ProfileSet> profile, int frame, std::size_t group, int base = -1,
                  const QString& groupName = {}, const QString& baseName = {});
    QCustomPlot* plot() const { return m_plot; }
    QString captionText() const;

private:
    QCustomPlot* m_plot;
    QLabel* m_caption;
};

} // namespace tracelight::widgets
