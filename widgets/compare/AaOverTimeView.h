#pragma once
// The Compare tab's "Over time" (the cloud-application study, NSDI'18): the two periods cut into equal time
// buckets on the analysis clock; above, per bucket, a percentile's difference B vs A with its 95 % interval
// for the baseline's A/A (two random halves) and for the problem period against the baseline at the same
// points in time; below, the load of each bucket (requests per second) stacked by request type, the mix.
// Computed in core (compare/AaStudy.h) on a worker; this view only draws it. Right-click saves it or copies
// the buckets as CSV.
#include <QWidget>
#include <memory>

#include "tracelight/compare/AaStudy.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QSpinBox;

namespace tracelight::widgets {

class AaOverTimeView : public QWidget {
    Q_OBJECT
public:
    explicit AaOverTimeView(QWidget* parent = nullptr);
    // The result for these two periods (null: nothing to draw).
    void setResult(std::shared_ptr<const PeriodsOverTime> result, const QString& baseline, const QString& problem);
    const PeriodsOverTime* result() const { return m_result.get(); }
    int buckets() const;
    // What the baseline's A/A splits: requests (""), or the users an attribute names (the study's A/A by user).
    void setAttributeKeys(const QStringList& keys);
    QString splitBy() const;
    int percentile() const;  // 50, 90, 95 or 99
    QCustomPlot* plot() const { return m_plot; }
    QLabel* note() const { return m_note; }
    QString csv() const;

signals:
    void bucketsChanged(int buckets);  // ask for the result again
    void splitChanged();               // ... and when the A/A's split changes

private:
    void draw();

    std::shared_ptr<const PeriodsOverTime> m_result;
    QString m_baseline, m_problem;
    QComboBox* m_percentile;
    QSpinBox* m_buckets;
    QComboBox* m_splitBy;  // "by request", or an attribute
    QLabel* m_note;
    QCustomPlot* m_plot;
};

} // namespace tracelight::widgets
