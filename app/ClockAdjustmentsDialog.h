#pragma once
// Analysis › Clock Adjustments…: every clock-skew decision of the last analysis, per host pair, with the
// rule that fired and whether it moved a clock (the CLI's `analyze --json` lists the same). Read off the
// GUI thread; the table sorts by any column and filters by host.
#include <QDialog>

class QLabel;
class QLineEdit;
class QTableView;

namespace tracelight {
namespace app {
class Session;
}
namespace widgets {
class ClockAdjustmentsModel;
class JobRunner;
}

class ClockAdjustmentsDialog : public QDialog {
    Q_OBJECT
public:
    explicit ClockAdjustmentsDialog(const app::Session& session, QWidget* parent = nullptr);
    widgets::ClockAdjustmentsModel* model() const { return m_model; }
    QLabel* summary() const { return m_summary; }
    QLineEdit* filter() const { return m_filter; }
    bool isLoading() const;

signals:
    void loaded();

private:
    widgets::ClockAdjustmentsModel* m_model = nullptr;
    widgets::JobRunner* m_job = nullptr;
    QLabel* m_summary = nullptr;
    QLineEdit* m_filter = nullptr;
    QTableView* m_table = nullptr;
};

} // namespace tracelight
