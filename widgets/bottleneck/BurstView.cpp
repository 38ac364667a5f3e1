#include "bottleneck/BurstView.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QShortcut>
#include <QSpinBox>
#include <QStringList>
#include <QVBoxLayout>
#include <algorithm>

#include "bottleneck/MultiRequestWaterfall.h"
#include "common/Counts.h"
#include "common/TimeFormat.h"
#include "tracelight/bottleneck/BurstTimelines.h"

namespace tracelight::widgets {

BurstView::BurstView(QWidget* parent) : QWidget(parent) {
    m_mask = new QLineEdit(this);
    m_mask->setPlaceholderText(tr("inferred"));
    m_mask->setToolTip(tr("The tracing mask: hosts traced while (mask & wall-clock ms) == mask. Empty: inferred from the requests' "
                          "starts. Decimal or 0x hexadecimal."));
    m_mask->setMaximumWidth(160);
    m_previous = new QPushButton(tr("◀ Previous"), this);
    m_previous->setToolTip(tr("The previous burst window (Page Up)"));
    m_next = new QPushButton(tr("Next ▶"), this);
    m_next->setToolTip(tr("The next burst window (Page Down)"));
    m_index = new QSpinBox(this);
    m_index->setPrefix(tr("window "));
    m_index->setRange(0, 0);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_window = new QLabel(this);
    m_waterfall = new MultiRequestWaterfall(this);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_waterfall);
    scroll->setWidgetResizable(true);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Mask"), this));
    controls->addWidget(m_mask);
    controls->addSpacing(12);
    controls->addWidget(m_previous);
    controls->addWidget(m_index);
    controls->addWidget(m_next);
    controls->addSpacing(12);
    controls->addWidget(m_window, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_summary);
    layout->addWidget(scroll, 1);

    connect(m_mask, &QLineEdit::returnPressed, this, [this] { computeWindows(); });
    connect(m_previous, &QPushButton::clicked, this, [this] { showWindow(m_current - 1); });
    connect(m_next, &QPushButton::clicked, this, [this] { showWindow(m_current + 1); });
    connect(m_index, &QSpinBox::valueChanged, this, [this](int shown) {
        if (shown - 1 != m_current) showWindow(shown - 1);
    });
    for (auto [key, by] : {std::pair{QKeySequence(Qt::Key_PageUp), -1}, {QKeySequence(Qt::Key_PageDown), +1}}) {
        auto* shortcut = new QShortcut(key, this);
        shortcut->setContext(Qt::WidgetWithChildrenShortcut);
        connect(shortcut, &QShortcut::activated, this, [this, by = by] { showWindow(m_current + by); });
    }
    connect(m_waterfall, &MultiRequestWaterfall::requestActivated, this, &BurstView::requestActivated);
    clear(tr("The bursts need an analysed database."));
}

bool BurstView::isComputing() const { return m_awaiting != 0; }
int BurstView::windowCount() const { return m_windows ? static_cast<int>(m_windows->windows.size()) : 0; }
QString BurstView::summaryText() const { return m_summary->text(); }
QString BurstView::windowText() const { return m_window->text(); }

void BurstView::setDatabase(std::shared_ptr<const InMemoryAnalysis> analysis, std::function<QString(RequestId)> requestName) {
    m_awaiting = 0;  // what was asked of the old data is not shown (the session may have cancelled it)
    m_analysis = std::move(analysis);
    m_requestName = std::move(requestName);
    computeWindows();
}

void BurstView::clear(const QString& message) {
    m_awaiting = 0;  // results still on their way are not shown
    m_windows.reset();
    m_activity.reset();
    m_activityError.clear();
    m_current = -1;
    m_summary->setText(message);
    m_window->clear();
    const QSignalBlocker block(m_index);
    m_index->setRange(0, 0);
    m_previous->setEnabled(false);
    m_next->setEnabled(false);
    m_waterfall->clear(message);
}

void BurstView::setMask(const QString& mask) {
    m_mask->setText(mask);
    computeWindows();
}

void BurstView::computeWindows() {
    if (!m_analysis) {
        clear(tr("The bursts need an analysed database: open one, or analyse this one (Analysis > Re-analyse)."));
        emit resultsReady();
        return;
    }
    std::optional<std::uint64_t> mask;
    if (const QString text = m_mask->text().trimmed(); !text.isEmpty()) {
        bool ok = false;
        const qulonglong value = text.toULongLong(&ok, 0);
        if (!ok || value == 0) {
            m_summary->setText(tr("Bad mask '%1': a non-zero integer, decimal or 0x hexadecimal.").arg(text));
            emit resultsReady();
            return;
        }
        mask = value;
    }
    m_awaiting |= kWindows;
    emit windowsRequested(BurstWindowsRequest{m_analysis, mask});
}

void BurstView::showWindows(std::shared_ptr<const BurstWindowsOutcome> result) {
    if (!(m_awaiting & kWindows) || !result) return;
    m_awaiting &= ~kWindows;
    m_windows = result->windows;
    m_activity = result->activity;
    m_activityError = QString::fromStdString(result->activityError);
    // A failed read is said where the host activity would be, never shown as none.
    const QString activityFailed = m_activityError.isEmpty() ? QString() : tr(" · host activity could not be read: %1").arg(m_activityError);
    const BurstWindows& w = *m_windows;
    if (w.mask == 0 || w.windows.empty()) {
        m_current = -1;
        // The finding above, the reason and what to do in the drawing's place: each said once.
        m_summary->setText(tr("%1: not traced in coordinated bursts.").arg(requestCount(result->requests)) + activityFailed);
        m_waterfall->clear(tr("No bit of the start millisecond is set in every start often enough to rule out chance.\n"
                              "Type a mask above to group the requests by one anyway."));
        m_window->clear();
        m_previous->setEnabled(false);
        m_next->setEnabled(false);
        m_index->setEnabled(false);
        emit resultsReady();
        return;
    }
    const auto lengthMs = w.windows.front().endMs - w.windows.front().startMs;
    QString text = tr("Mask 0x%1 (%2): %L3 burst windows of %L4 ms, %L5 requests in them")
                       .arg(QString::number(w.mask, 16), w.inferred ? tr("inferred") : tr("given"))
                       .arg(w.windows.size())
                       .arg(lengthMs)
                       .arg(result->requests - w.outside);
    if (w.outside) text += tr(" (%L1 requests outside them)").arg(w.outside);
    if (m_activity && m_activity->size() == w.windows.size()) {
        std::int64_t records = 0, busy = 0;
        for (const BurstActivity& a : *m_activity) {
            records += a.records;
            busy += a.records > 0 ? 1 : 0;
        }
        text += tr(" · host activity in %L1 of them (%2)").arg(busy).arg(recordCount(records));
    }
    text += activityFailed;
    m_summary->setText(text + tr(" · Page Up / Page Down step through the windows · click a request to open its waterfall"));
    {
        const QSignalBlocker block(m_index);
        m_index->setEnabled(true);
        m_index->setRange(1, static_cast<int>(w.windows.size()));
        m_index->setSuffix(tr(" of %L1").arg(w.windows.size()));
    }
    m_current = -1;
    showWindow(0);
}

void BurstView::setLocalClocks(bool local) {
    if (m_local == local) return;
    m_local = local;
    if (m_current >= 0) showWindow(m_current);
}

void BurstView::showWindow(int index) {
    if (!m_windows || m_windows->windows.empty() || !m_analysis) return;
    index = std::clamp(index, 0, windowCount() - 1);
    m_current = index;
    {
        const QSignalBlocker block(m_index);
        m_index->setValue(index + 1);
    }
    m_previous->setEnabled(index > 0);
    m_next->setEnabled(index + 1 < windowCount());
    const BurstWindow& w = m_windows->windows[static_cast<std::size_t>(index)];
    m_window->setText(tr("%1 UTC · %L2 requests%3%4%5")
                          .arg(formatTimeRangeNs(w.startMs * 1'000'000, w.endMs * 1'000'000))
                          .arg(w.requests.size())
                          .arg(w.requests.size() > kMaxRows ? tr(" (the first %L1 drawn)").arg(kMaxRows) : QString())
                          .arg(activityText(index))
                          .arg(m_local ? tr(" · drawn on each host's own clock (View › Local Clocks)") : QString()));
    std::vector<std::uint32_t> rows(w.requests.begin(), w.requests.begin() + static_cast<std::ptrdiff_t>(std::min(w.requests.size(), kMaxRows)));
    m_awaiting |= kTimelines;
    emit timelinesRequested(BurstTimelinesRequest{m_analysis, std::move(rows), m_local, w.startMs * 1'000'000, w.endMs * 1'000'000});
}

QString BurstView::activityText(int index) const {
    if (!m_activityError.isEmpty()) return tr(" · host activity unknown (it could not be read)");
    if (!m_activity || static_cast<std::size_t>(index) >= m_activity->size()) return {};
    const BurstActivity& a = (*m_activity)[static_cast<std::size_t>(index)];
    if (a.records == 0) return tr(" · no host activity");
    QStringList kinds;
    for (const ActivityKind& k : a.activity) {
        if (kinds.size() == 2) {
            kinds << tr("…");
            break;
        }
        kinds << tr("%1 %2").arg(QString::fromStdString(k.what), formatDurationNs(k.overlapNs));
    }
    return tr(" · host activity: %1 on %2, %3 in the window (%4)")
        .arg(recordCount(a.records), hostCount(a.hosts), formatDurationNs(a.overlapNs), kinds.join(tr(", ")));
}

void BurstView::showTimelines(std::shared_ptr<BurstTimelinesOutcome> result) {
    if (!(m_awaiting & kTimelines) || !result) return;
    m_awaiting &= ~kTimelines;
    auto analysis = result->request.analysis;
    const TimeNs windowStart = result->request.windowStartNs, windowEnd = result->request.windowEndNs;
    // The axis spans the requests drawn, not the window: a long window (a mask with a high lowest bit)
    // would squeeze them into a sliver; the header gives the window's bounds.
    TimeNs start = windowStart, end = windowEnd;
    if (!result->timelines.empty()) {
        start = result->timelines.front().startNs;
        end = start;
        for (const RequestTimeline& t : result->timelines) {
            start = std::min(start, t.startNs);
            end = std::max(end, t.endNs);
        }
    }
    m_waterfall->setAxisCaption(tr("ms from the first request drawn"));
    QStringList labels;
    for (const RequestTimeline& t : result->timelines) {
        const QString name = m_requestName ? m_requestName(t.id) : QString::number(t.id.value);
        labels << tr("%1 · %2").arg(name, formatDurationNs(t.endNs - t.startNs));
    }
    m_waterfall->setTimelines(std::move(result->timelines), labels, start, end,
                              [analysis](std::uint32_t task) {
                                  // Coloured and named by operation: every "op#k" of a span trace is one "op".
                                  return QString::fromStdString(std::string(operationName(analysis->data.label(task))));
                              });
    emit resultsReady();
}

} // namespace tracelight::widgets
