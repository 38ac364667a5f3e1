#include "ClockAdjustmentsDialog.h"
#include "Session.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>
#include <map>

#include "common/JobRunner.h"
#include "models/ClockAdjustmentsModel.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

namespace {
struct Loaded {
    std::vector<ClockAdjustment> adjustments;
    QString error;
};
} // namespace

ClockAdjustmentsDialog::ClockAdjustmentsDialog(const app::Session& session, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Clock Adjustments — %1").arg(session.path()));
    m_model = new widgets::ClockAdjustmentsModel(this);
    m_job = new widgets::JobRunner(this);
    m_summary = new QLabel(tr("Reading the clock-skew decisions…"), this);
    m_summary->setWordWrap(true);
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter by host name"));
    m_filter->setClearButtonEnabled(true);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(widgets::ClockAdjustmentsModel::RoundTrips, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_filter);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    resize(1180, 600);
    connect(m_filter, &QLineEdit::textChanged, m_model, &widgets::ClockAdjustmentsModel::setHostFilter);

    m_job->start<Loaded>(
        [reader = session.reader()](const CancelToken&, const ProgressSink&) {
            if (!reader) return Loaded{{}, tr("No database is open.")};
            auto store = reader();
            if (!store) return Loaded{{}, QString::fromStdString(store.message())};
            return Loaded{loadClockAdjustments(*store.value()), {}};
        },
        [this](Loaded result) {
            if (!result.error.isEmpty()) {
                m_summary->setText(result.error);
                emit loaded();
                return;
            }
            std::map<std::string, int> rules;
            for (const auto& a : result.adjustments) ++rules[a.rule];
            m_model->setAdjustments(std::move(result.adjustments));
            if (m_model->totalCount() == 0) {
                m_summary->setText(tr("No clock-skew decisions yet: analyse the database (Analysis › Re-analyse)."));
            } else {
                QStringList byRule;
                for (const auto& [rule, count] : rules) byRule << tr("%1 %2").arg(QString::fromStdString(rule)).arg(count);
                m_summary->setText(tr("%1 with round trips: %2 moved a server's clock, %3 kept the recorded clocks. "
                                      "By rule: %4. Span data keeps its clocks unless a server lay outside its client; "
                                      "event logs get the lowest-RTT estimate (min-rtt).")
                                       .arg(m_model->totalCount() == 1 ? tr("1 host pair") : tr("%1 host pairs").arg(m_model->totalCount()))
                                       .arg(m_model->appliedCount())
                                       .arg(m_model->totalCount() - m_model->appliedCount())
                                       .arg(byRule.join(QStringLiteral(", "))));
            }
            m_table->resizeColumnsToContents();
            emit loaded();
        });
}

bool ClockAdjustmentsDialog::isLoading() const { return m_job->isRunning(); }

} // namespace tracelight
