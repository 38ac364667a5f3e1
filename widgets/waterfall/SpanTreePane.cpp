#include "waterfall/SpanTreePane.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <optional>

#include "waterfall/SpanDetailPanel.h"
#include "waterfall/WaterfallView.h"
#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/analysis/SpanCriticalPath.h"
#include <unordered_map>
#include "tracelight/store/SpanReads.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::widgets {

std::shared_ptr<const SpanTreeData> loadSpanTree(const TraceStore& store, const RequestDetail& detail, const CancelToken* cancel,
                                                 StoreSource records) {
    // The shapes only (a third of the records' memory); a span's whole record is read when it is shown,
    // on a connection of its own (the store given here is the worker's), kept for the next span shown.
    RequestSpanShapes shapes = requestSpanShapes(store, detail.id, cancel);
    const std::vector<SpanShape>& spans = shapes.spans;
    if (spans.empty()) return nullptr;
    // Each host's offset, as the analysis applied it: a segment's local start minus its adjusted start.
    // Found per host index (the first segment starting on it), then named: a million-span trace has
    // millions of segments but a few hosts.
    std::vector<std::optional<TimeNs>> offsetOfHost(detail.hosts.size());
    for (std::size_t s = 0; s < detail.dag.segments.size() && s < detail.localStartNs.size(); ++s) {
        auto& offset = offsetOfHost[detail.segmentStartHost[s]];
        if (!offset) offset = detail.localStartNs[s] - detail.dag.segments[s].startNs;
    }
    std::unordered_map<std::string_view, TimeNs> hostOffset;  // keys view detail.hosts
    for (std::size_t h = 0; h < offsetOfHost.size(); ++h)
        if (offsetOfHost[h]) hostOffset.emplace(detail.hosts[h], *offsetOfHost[h]);
    SpanCriticalPath critical = spanCriticalPath(detail, spans);
    auto data = std::make_shared<SpanTreeData>();
    const std::size_t n = spans.size();
    data->clockOffsetNs.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto it = hostOffset.find(spans[i].host);
        data->clockOffsetNs[i] = it == hostOffset.end() ? 0 : it->second;
    }
    // Core gives the critical parts on the adjusted clock; the view keeps them on the span's recorded one.
    // Core's per-span times are kept as they are (a million spans: not copied into lists of their own).
    data->times = std::move(critical.times);
    for (std::size_t i = 0; i < n; ++i)
        for (auto& [from, to] : data->times.criticalIntervals(i)) {
            from += data->clockOffsetNs[i];
            to += data->clockOffsetNs[i];
        }
    data->async = detail.criticalPath.async;
    for (SpanPart& part : data->async)
        if (static_cast<std::size_t>(part.span) < n) {
            part.startNs += data->clockOffsetNs[static_cast<std::size_t>(part.span)];
            part.endNs += data->clockOffsetNs[static_cast<std::size_t>(part.span)];
        }
    data->spans = std::move(shapes.spans);
    data->texts = std::make_shared<const SpanTexts>(std::move(shapes.texts));
    if (records)
        data->record = [records, request = detail.id, reader = std::make_shared<std::unique_ptr<TraceStore>>()](int span) -> std::optional<SpanRecord> {
            if (span < 0) return std::nullopt;
            if (!*reader) {
                auto opened = records();
                if (!opened) return std::nullopt;
                *reader = std::move(opened.value());
            }
            return requestSpan(*(*reader), request, static_cast<std::uint32_t>(span));
        };
    return data;
}

SpanTreePane::SpanTreePane(WaterfallView* lanes, QWidget* parent) : QWidget(parent), m_lanes(lanes) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 0);
    m_toggle = new QToolButton(this);
    m_toggle->setCheckable(true);
    m_toggle->setText(tr("Span tree"));
    m_toggle->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addWidget(m_toggle);
    m_note = new QLabel(this);
    m_note->setForegroundRole(QPalette::PlaceholderText);
    bar->addWidget(m_note, 1);
    layout->addLayout(bar);

    m_tree = new SpanTreeView(this);
    m_detail = new SpanDetailPanel(this);
    m_treeSplit = new QSplitter(Qt::Vertical, this);
    m_treeSplit->addWidget(m_tree);
    m_treeSplit->addWidget(m_detail);
    m_treeSplit->setStretchFactor(0, 3);
    m_treeSplit->setStretchFactor(1, 1);
    m_treeSplit->setSizes({400, 220});
    m_stack = new QStackedWidget(this);
    m_lanes->setParent(m_stack);
    m_stack->addWidget(m_lanes);
    m_stack->addWidget(m_treeSplit);
    layout->addWidget(m_stack, 1);

    connect(m_tree, &SpanTreeView::currentSpanChanged, m_detail, [this](int span) { m_detail->showSpan(*m_tree, span); });
    connect(m_toggle, &QToolButton::clicked, this, [this](bool on) { setMode(on ? Mode::SpanTree : Mode::HostLanes); });
    // Span data opens in the span tree (far clearer for it than host lanes) unless the lanes were chosen.
    m_mode = QSettings().value(QStringLiteral("waterfall/mode")).toString() == QLatin1String("lanes") ? Mode::HostLanes : Mode::SpanTree;
    updatePage();
}

void SpanTreePane::setSpans(std::shared_ptr<const SpanTreeData> data) {
    m_state = data && !data->spans.empty() ? Spans::Read : Spans::None;
    m_tree->setSpans(std::move(data));
    updatePage();
}

void SpanTreePane::setSpansOnDemand() {
    m_state = Spans::OnDemand;
    m_tree->setSpans(nullptr);  // not the last request's
    readIfWanted();
    updatePage();
}

void SpanTreePane::setSpansPending() {
    m_state = Spans::Pending;
    m_tree->setSpans(nullptr);
    updatePage();
}

void SpanTreePane::setSpansUnreadable(const QString& why) {
    m_state = Spans::Unreadable;
    m_unreadable = why;
    m_tree->setSpans(nullptr);
    updatePage();
}

void SpanTreePane::readIfWanted() {
    if (m_mode != Mode::SpanTree || m_state != Spans::OnDemand) return;
    m_state = Spans::Pending;
    emit spansWanted();
}

bool SpanTreePane::spansAvailable() const { return m_state == Spans::Read && m_tree->spans() && !m_tree->spans()->spans.empty(); }

void SpanTreePane::setMode(Mode mode) {
    m_mode = mode;
    QSettings().setValue(QStringLiteral("waterfall/mode"), mode == Mode::SpanTree ? QStringLiteral("spans") : QStringLiteral("lanes"));
    readIfWanted();
    updatePage();
}

SpanTreePane::Mode SpanTreePane::shownMode() const {
    return m_mode == Mode::SpanTree && spansAvailable() ? Mode::SpanTree : Mode::HostLanes;
}

QString SpanTreePane::unavailableReason() const {
    if (spansAvailable()) return {};
    if (!m_lanes->request()) return tr("Select a request.");
    if (m_state == Spans::Pending) return tr("Reading the request's spans…");
    if (m_state == Spans::OnDemand) return {};  // read when the tree is asked for
    if (m_state == Spans::Unreadable) return m_unreadable;
    return tr("This request came from an event log: it has no spans, so only the host lanes can show it.");
}

QString SpanTreePane::noteText() const { return m_note->text(); }

void SpanTreePane::setLocalClocks(bool local) { m_tree->setLocalClocks(local); }

void SpanTreePane::zoom(double factor) {
    if (shownMode() == Mode::SpanTree) m_tree->zoom(factor, m_tree->width() / 2.0);
    else m_lanes->zoom(factor, m_lanes->width() / 2.0);
}

void SpanTreePane::fit() {
    if (shownMode() == Mode::SpanTree) m_tree->fit();
    else m_lanes->fit();
}

void SpanTreePane::updatePage() {
    const Mode shown = shownMode();
    const bool wasTree = m_stack->currentIndex() == 1;
    m_stack->setCurrentIndex(shown == Mode::SpanTree ? 1 : 0);
    m_toggle->setChecked(m_mode == Mode::SpanTree);
    const bool hasSpans = m_state != Spans::None;
    m_toggle->setEnabled(hasSpans);
    const QString reason = unavailableReason();
    m_toggle->setToolTip(reason.isEmpty() ? tr("Show one row per span (Ctrl+T) instead of a lane per host") : reason);
    if (!reason.isEmpty() && m_mode == Mode::SpanTree && m_state != Spans::None) m_note->setText(reason);
    else if (shown == Mode::SpanTree)
        m_note->setText(tr("%n span(s) · orange-red: critical · hatched: not waited for · click a triangle or use ←/→ to fold · Ctrl+wheel zooms", nullptr,
                           static_cast<int>(m_tree->spans()->spans.size())));
    else if (m_state == Spans::Unreadable) m_note->setText(tr("Host lanes · %1").arg(m_unreadable));
    else m_note->setText(hasSpans ? tr("Host lanes · the span tree is one click away (Ctrl+T)") : QString());
    if (wasTree != (shown == Mode::SpanTree)) emit modeChanged(shown);
}

} // namespace tracelight::widgets
