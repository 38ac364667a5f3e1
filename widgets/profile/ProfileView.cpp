#include "ProfileView.h"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "FlameGraphView.h"
#include "common/JobRunner.h"
#include "common/TimeFormat.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

namespace tracelight::widgets {

namespace {
using ProfileJobResult = std::shared_ptr<const Result<ProfileSet>>;
}

ProfileView::ProfileView(QWidget* parent) : QWidget(parent) {
    m_job = new JobRunner(this);
    m_period = new QComboBox(this);
    m_period->setToolTip(tr("Whose critical paths: every request, or one period's"));
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Search frames (service, operation, segment)…"));
    m_search->setClearButtonEnabled(true);
    auto* exportButton = new QPushButton(tr("Export…"), this);
    exportButton->setToolTip(tr("Save as folded stacks (.folded) or speedscope JSON (.json)"));
    m_status = new QLabel(this);
    m_crumb = new QLabel(this);
    m_crumb->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_flame = new FlameGraphView(this);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_flame);
    scroll->setWidgetResizable(true);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Requests:"), this));
    top->addWidget(m_period, 1);
    top->addWidget(m_search, 2);
    top->addWidget(exportButton);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_status);
    layout->addWidget(m_crumb);
    layout->addWidget(scroll, 1);

    connect(m_period, &QComboBox::activated, this, &ProfileView::compute);
    connect(m_search, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_flame->setSearch(text);
        updateLabels();
    });
    connect(m_flame, &FlameGraphView::zoomChanged, this, &ProfileView::updateLabels);
    connect(exportButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the profile"), QStringLiteral("profile.folded"),
                                                          tr("Folded stacks (*.folded);;speedscope (*.json)"));
        if (!path.isEmpty() && !exportProfile(path)) m_status->setText(tr("Cannot write %1").arg(path));
    });
    connect(m_job, &JobRunner::progress, this, [this](double fraction, const QString& stage) {
        m_status->setText(tr("%1… %2 %").arg(stage).arg(static_cast<int>(fraction * 100)));
    });
    clear(tr("Open an analysed database to see where its requests' latency goes."));
}

void ProfileView::clear(const QString& message) {
    m_job->cancel();
    m_profile.reset();
    m_flame->setProfile(nullptr);
    m_status->setText(message);
    m_crumb->clear();
}

void ProfileView::setDatabase(const QString& path, std::shared_ptr<const InMemoryAnalysis> analysis, const QStringList& periods) {
    m_path = path;
    m_analysis = std::move(analysis);
    const QSignalBlocker block(m_period);
    m_period->clear();
    m_period->addItem(tr("All requests"), QString());
    for (const auto& p : periods) m_period->addItem(tr("Period %1").arg(p), p);
    m_pending = true;
    if (isVisible()) compute();
}

void ProfileView::setPeriod(const QString& period) {
    const int index = m_period->findData(period);
    if (index >= 0) m_period->setCurrentIndex(index);
    compute();
}

void ProfileView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_pending) compute();
}

bool ProfileView::isComputing() const { return m_job->isRunning(); }
QString ProfileView::statusText() const { return m_status->text(); }

void ProfileView::compute() {
    m_pending = false;
    if (!m_analysis || m_path.isEmpty()) return;
    auto analysis = m_analysis;
    const std::string file = m_path.toStdString(), period = m_period->currentData().toString().toStdString();
    m_job->start<ProfileJobResult>(
        [analysis, file, period](const CancelToken& cancel, const ProgressSink& progress) -> ProfileJobResult {
            auto store = TraceStore::open(file, TraceStore::Mode::ReadOnly);
            if (!store) return std::make_shared<const Result<ProfileSet>>(store.status());
            std::vector<std::uint32_t> rows;
            if (period.empty()) {
                rows.resize(analysis->data.requestCount());
                for (std::uint32_t r = 0; r < rows.size(); ++r) rows[r] = r;
            } else {
                rows = periodRows(*store.value(), analysis->data.requestIds, period);
            }
            ProfileOptions options;
            options.rules = loadCategoryRules(*store.value());
            return std::make_shared<const Result<ProfileSet>>(buildProfiles(*analysis, store.value().get(), {rows}, options, &progress, &cancel));
        },
        [this](ProfileJobResult result) {
            if (!result->isOk()) {
                clear(QString::fromStdString(result->message()));
            } else {
                m_profile = std::make_shared<const ProfileSet>(result->value());
                m_flame->setProfile(m_profile);
                updateLabels();
            }
            emit resultsReady();
        });
}

void ProfileView::updateLabels() {
    if (!m_profile) return;
    QString text = tr("%L1 requests · mean latency %2 · %L3 frames · width: mean critical time per request; colour: service "
                      "(light blue: a network hop, grey: blind time) · click a frame to zoom, Backspace to go back")
                       .arg(m_profile->groups[0].requests)
                       .arg(formatDurationNs(static_cast<TimeNs>(m_profile->meanLatencyNs(0))))
                       .arg(static_cast<qlonglong>(m_profile->frames.size()));
    if (!m_search->text().trimmed().isEmpty())
        text += tr(" · <b>matches: %1 % of the latency</b>").arg(100.0 * m_flame->matchedShare(), 0, 'f', 1);
    if (m_profile->truncatedStacks > 0) text += tr(" · %L1 stacks cut at 1,000 frames").arg(m_profile->truncatedStacks);
    m_status->setText(text);
    m_crumb->setText(m_flame->breadcrumb());
}

bool ProfileView::exportProfile(const QString& path) const {
    if (!m_profile) return false;
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) return false;
    const std::string text = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)
                                 ? profileSpeedscope(*m_profile, 0, m_period->currentText().toStdString())
                                 : profileFolded(*m_profile, 0);
    return file.write(text.data(), static_cast<qint64>(text.size())) == static_cast<qint64>(text.size());
}

} // namespace tracelight::widgets
