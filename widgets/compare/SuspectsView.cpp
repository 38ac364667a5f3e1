#include "compare/SuspectsView.h"

#include "common/QtText.h"

#include <QContextMenuEvent>
#include <QHeaderView>
#include <QMenu>

namespace tracelight::widgets {

namespace {
constexpr int kKeyRole = Qt::UserRole + 1;
constexpr int kExamplesRole = Qt::UserRole + 2;  // the evidence's example requests, as a list of ids

QString ms(double us) { return QString::number(us / 1000.0, 'f', us < 10000 ? 2 : 1); }
} // namespace

SuspectsView::SuspectsView(QWidget* parent) : QTreeWidget(parent) {
    setColumnCount(7);
    setHeaderLabels({tr("Suspect · evidence"), tr("Slowdown"), tr("Δ per request"), tr("Baseline → problem"), tr("Slow calls"), tr("Requests"), tr("q")});
    headerItem()->setToolTip(1, tr("Its calls' mean time against what the same operations took in the baseline"));
    headerItem()->setToolTip(2, tr("How much of the problem period's mean latency its slower calls explain"));
    headerItem()->setToolTip(3, tr("Mean time per request in this key (0 where a request has none)"));
    headerItem()->setToolTip(4, tr("Share of the requests with the key in which a span exceeded its operation's baseline p99"));
    headerItem()->setToolTip(5, tr("Requests with the key in each period; right-click a line to open the slowest of them"));
    headerItem()->setToolTip(6, tr("False discovery rate at which this change is significant (Benjamini-Hochberg across keys)"));
    setRootIsDecorated(true);
    setAlternatingRowColors(true);
    setUniformRowHeights(true);
    // Every column as wide as its text: a narrow pane scrolls rather than cutting the names short.
    header()->setStretchLastSection(false);
    for (int c = 0; c < columnCount(); ++c) header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    auto activate = [this](QTreeWidgetItem* item) {
        if (!item) return;
        const QString key = item->data(0, kKeyRole).toString();
        if (!key.isEmpty()) emit keyActivated(key);
    };
    connect(this, &QTreeWidget::itemActivated, this, [activate](QTreeWidgetItem* item, int) { activate(item); });
    connect(this, &QTreeWidget::itemClicked, this, [activate](QTreeWidgetItem* item, int) { activate(item); });
}

void SuspectsView::setSuspects(const std::vector<Suspect>& suspects, const QString& none) {
    clear();
    m_count = static_cast<int>(suspects.size());
    if (suspects.empty()) {
        auto* item = new QTreeWidgetItem(this, {none});
        item->setFlags(Qt::ItemIsEnabled);
        item->setFirstColumnSpanned(true);
        return;
    }
    for (std::size_t i = 0; i < suspects.size(); ++i) {
        const Suspect& s = suspects[i];
        auto* top = new QTreeWidgetItem(this, {tr("%1. %2").arg(i + 1).arg(QString::fromStdString(s.service)),
                                               tr("×%1").arg(s.score, 0, 'f', 2),
                                               tr("%1%2 ms").arg(s.deltaUs >= 0 ? "+" : "").arg(ms(s.deltaUs)), QString(), QString(),
                                               QString(), formatProbability(s.pValue)});
        QFont bold = top->font(0);
        bold.setBold(true);
        top->setFont(0, bold);
        top->setToolTip(0, tr("%1: the service most likely responsible, %2 of %3; click a line of evidence to see it")
                               .arg(QString::fromStdString(s.service)).arg(i + 1).arg(suspects.size()));
        if (!s.evidence.empty()) top->setData(0, kKeyRole, QString::fromStdString(s.evidence.front().key));
        for (const SuspectEvidence& e : s.evidence) {
            const QString key = QString::fromStdString(e.key);
            auto* child = new QTreeWidgetItem(top, {e.hop ? tr("hop %1").arg(key) : tr("work of %1").arg(key),
                                                    tr("×%1").arg(e.slowdown, 0, 'f', 2), QString(),
                                                    tr("%1 → %2 ms").arg(ms(e.baseUs), ms(e.targetUs)),
                                                    tr("%1 % → %2 %").arg(100 * e.baseSlowShare, 0, 'f', 0).arg(100 * e.targetSlowShare, 0, 'f', 0),
                                                    tr("%L1 → %L2").arg(e.baseRequests).arg(e.targetRequests), formatProbability(e.qValue)});
            child->setData(0, kKeyRole, key);
            QVariantList examples;
            for (RequestId id : e.examples) examples << QVariant::fromValue(id.value);
            child->setData(0, kExamplesRole, examples);
            if (top->data(0, kExamplesRole).isNull()) top->setData(0, kExamplesRole, examples);  // the strongest evidence's
            child->setToolTip(4, tr("Requests with a span above its operation's baseline p99: %1 % → %2 %\n"
                                    "with a span at 20 times its operation's baseline median or more: %3 % → %4 %")
                                     .arg(100 * e.baseSlowShare, 0, 'f', 1).arg(100 * e.targetSlowShare, 0, 'f', 1)
                                     .arg(100 * e.baseFarShare, 0, 'f', 1).arg(100 * e.targetFarShare, 0, 'f', 1));
            child->setToolTip(0, e.hop ? tr("The hop between %1: the caller's wait that the callee's own span does not cover (network, queues)").arg(key)
                                       : tr("%1's own work: its spans' time not spent waiting for their children").arg(key));
        }
    }
    expandAll();
    setCurrentItem(topLevelItem(0));
}

std::unique_ptr<QMenu> SuspectsView::requestMenu(QTreeWidgetItem* item) {
    if (!item) return nullptr;
    const QVariantList examples = item->data(0, kExamplesRole).toList();
    if (examples.isEmpty()) return nullptr;
    auto menu = std::make_unique<QMenu>(this);
    menu->addSection(tr("The problem requests with the most time in %1").arg(item->data(0, kKeyRole).toString()));
    for (const QVariant& v : examples) {
        const RequestId id(v.toUInt());
        const QString name = m_namer ? m_namer(id) : QString::number(id.value);
        menu->addAction(tr("Open %1").arg(name), this, [this, id] { emit requestActivated(id); });
    }
    return menu;
}

void SuspectsView::contextMenuEvent(QContextMenuEvent* event) {
    if (auto menu = requestMenu(itemAt(viewport()->mapFromGlobal(event->globalPos())))) menu->exec(event->globalPos());
}

} // namespace tracelight::widgets
