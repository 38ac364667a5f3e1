#pragma once
// The Bursts tab (coordinated bursty tracing; docs/user/bursts.md): the wall-clock
// mask the requests were traced under (inferred from their starts, or typed in), the burst windows, and one
// window at a time with all of its requests drawn together on one time axis (MultiRequestWaterfall). Previous
// and next step through the windows (Page Up / Page Down); clicking a request opens its waterfall. Windows and
// timelines come from core (burstWindows, requestTimelines) through the session, on a worker.
#include <QWidget>
#include <functional>
#include <memory>

#include "tracelight/analysis/Analysis.h"
#include "bottleneck/BurstRequests.h"
#include "tracelight/bottleneck/BurstWindows.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace tracelight::widgets {

class MultiRequestWaterfall;

class BurstView : public QWidget {
    Q_OBJECT
public:
    explicit BurstView(QWidget* parent = nullptr);

    // requestName: a request's name for the rows (called on the GUI thread).
    void setDatabase(std::shared_ptr<const InMemoryAnalysis> analysis, std::function<QString(RequestId)> requestName);
    void clear(const QString& message);
    void setMask(const QString& mask);  // "" infers it; decimal, 0x hexadecimal
    void showWindow(int index);         // 0-based, clamped
    // The window's requests on their hosts' own clocks (View › Local Clocks) or on the analysis clock.
    void setLocalClocks(bool local);
    bool localClocks() const { return m_local; }
    int windowCount() const;
    int currentWindow() const { return m_current; }
    bool isComputing() const;  // asked of the session, not drawn yet
    // The session's answers to the requests below.
    void showWindows(std::shared_ptr<const BurstWindowsOutcome> outcome);
    void showTimelines(std::shared_ptr<BurstTimelinesOutcome> outcome);  // its timelines are moved into the drawing
    QString summaryText() const;
    QString windowText() const;  // the shown window's times and requests

    MultiRequestWaterfall* waterfall() const { return m_waterfall; }
    static constexpr std::size_t kMaxRows = 200;  // a window's requests drawn at most (the rest are counted)

signals:
    void windowsRequested(const BurstWindowsRequest& request);
    void timelinesRequested(const BurstTimelinesRequest& request);
    void requestActivated(RequestId id);
    void resultsReady();

private:
    void computeWindows();

    // " · host activity: …" for the window's header; empty without host activity.
    QString activityText(int index) const;
    std::shared_ptr<const InMemoryAnalysis> m_analysis;
    bool m_local = false;
    std::function<QString(RequestId)> m_requestName;
    std::shared_ptr<const BurstWindows> m_windows;
    std::shared_ptr<const std::vector<BurstActivity>> m_activity;  // per window; null or empty: no host activity
    QString m_activityError;  // the host activity could not be read (then m_activity is null)
    int m_current = -1;
    enum Awaiting : unsigned { kWindows = 1, kTimelines = 2 };
    unsigned m_awaiting = 0;  // asked and not shown yet
    QLineEdit* m_mask = nullptr;
    QLabel* m_summary = nullptr;
    QPushButton* m_previous = nullptr;
    QPushButton* m_next = nullptr;
    QSpinBox* m_index = nullptr;
    QLabel* m_window = nullptr;
    MultiRequestWaterfall* m_waterfall = nullptr;
};

} // namespace tracelight::widgets
