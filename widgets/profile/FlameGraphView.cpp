#include "FlameGraphView.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "common/QtText.h"
#include "common/Palette.h"
#include "common/TimeFormat.h"

namespace tracelight::widgets {

FlameGraphView::FlameGraphView(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setMinimumHeight(120);
}

void FlameGraphView::setDiff(std::shared_ptr<const ProfileSet> profile, std::size_t base, std::size_t target, const ProfileDiff& diff) {
    m_diff = diff;
    m_diffTarget = profile && target < profile->groups.size() ? static_cast<int>(target) : -1;
    assign(std::move(profile), base);
}

void FlameGraphView::setProfile(std::shared_ptr<const ProfileSet> profile, std::size_t group) {
    m_diffTarget = -1;
    m_diff = {};
    assign(std::move(profile), group);
}

void FlameGraphView::assign(std::shared_ptr<const ProfileSet> profile, std::size_t group) {
    m_profile = std::move(profile);
    m_group = group;
    m_change.clear();
    if (m_profile && m_diffTarget >= 0) {
        m_change.assign(m_profile->frames.size(), nullptr);
        for (const auto& c : m_diff.frames)
            if (c.frame < m_change.size()) m_change[c.frame] = &c;
    }
    m_zoom = -1;
    m_children.clear();
    if (m_profile) {
        const std::size_t n = m_profile->frames.size();
        m_children.assign(n + 1, {});
        for (std::size_t f = 0; f < n; ++f) {
            const int parent = m_profile->frames[f].parent;
            if (total(static_cast<int>(f)) <= 0) continue;
            m_children[parent < 0 ? n : static_cast<std::size_t>(parent)].push_back(static_cast<int>(f));
        }
        for (auto& c : m_children) std::sort(c.begin(), c.end(), [&](int a, int b) { return total(a) > total(b); });
    }
    layout();
    emit zoomChanged();
}

double FlameGraphView::total(int frame) const {
    if (!m_profile) return 0;
    // The whole is the latency and, beside it, the work nobody waited for ("[async]", a top-level frame).
    const std::int32_t async = m_profile->asyncFrame();
    auto one = [&](std::size_t g) {
        if (frame >= 0) return m_profile->meanTotalNs(g, static_cast<std::size_t>(frame));
        return m_profile->meanLatencyNs(g) + (async >= 0 ? m_profile->meanTotalNs(g, static_cast<std::size_t>(async)) : 0.0);
    };
    return m_diffTarget >= 0 ? std::max(one(m_group), one(static_cast<std::size_t>(m_diffTarget))) : one(m_group);
}

void FlameGraphView::layout() {
    m_boxes.clear();
    if (!m_profile) return update();
    const double whole = total(m_zoom);
    if (whole <= 0) return update();
    // The zoomed frame's ancestors stay on top as full-width rows, as in every flame graph tool.
    std::vector<int> chain;
    for (int x = m_zoom; x >= 0; x = m_profile->frames[static_cast<std::size_t>(x)].parent) chain.push_back(x);
    std::reverse(chain.begin(), chain.end());
    int depth = 0;
    m_boxes.push_back({-1, 0, 1, depth++});  // "all"
    for (int f : chain) m_boxes.push_back({f, 0, 1, depth++});
    struct Item {
        int frame;
        double x0;
        int depth;
    };
    std::vector<Item> stack{{m_zoom, 0.0, depth - 1}};
    const std::size_t roots = m_profile->frames.size();
    while (!stack.empty()) {
        const Item it = stack.back();
        stack.pop_back();
        double x = it.x0;
        const auto& kids = m_children[it.frame < 0 ? roots : static_cast<std::size_t>(it.frame)];
        double sum = 0;
        for (int c : kids) sum += total(c);
        const double room = total(it.frame), scale = sum > room && sum > 0 ? room / sum : 1.0;
        for (int c : kids) {
            const double w = total(c) * scale / whole;
            m_boxes.push_back({c, x, x + w, it.depth + 1});
            stack.push_back({c, x, it.depth + 1});
            x += w;
        }
    }
    int maxDepth = 0;
    for (const auto& b : m_boxes) maxDepth = std::max(maxDepth, b.depth);
    setMinimumHeight((maxDepth + 1) * kRow + 4);
    update();
}

void FlameGraphView::setOrientation(Orientation orientation) {
    m_orientation = orientation;
    update();
}

int FlameGraphView::rowTop(int depth) const {
    return m_orientation == Orientation::Icicle ? 2 + depth * kRow : height() - 2 - (depth + 1) * kRow;
}

void FlameGraphView::zoomTo(int frame) {
    m_zoom = frame;
    layout();
    emit zoomChanged();
}

void FlameGraphView::setSearch(const QString& text) {
    m_search = text.trimmed();
    update();
}

QString FlameGraphView::breadcrumb() const {
    QString out = tr("all");
    if (!m_profile) return out;
    std::vector<int> chain;
    for (int x = m_zoom; x >= 0; x = m_profile->frames[static_cast<std::size_t>(x)].parent) chain.push_back(x);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)
        out += QStringLiteral(" › ") + QString::fromStdString(m_profile->frames[static_cast<std::size_t>(*it)].name);
    return out;
}

double FlameGraphView::matchedShare() const {
    if (!m_profile || m_search.isEmpty()) return 0;
    const double latency = m_profile->meanLatencyNs(m_group);
    if (latency <= 0) return 0;
    // A match inside a matching ancestor is already counted by it.
    double sum = 0;
    for (std::size_t f = 0; f < m_profile->frames.size(); ++f) {
        if (!QString::fromStdString(m_profile->frames[f].name).contains(m_search, Qt::CaseInsensitive)) continue;
        bool nested = false;
        for (int x = m_profile->frames[f].parent; x >= 0 && !nested; x = m_profile->frames[static_cast<std::size_t>(x)].parent)
            nested = QString::fromStdString(m_profile->frames[static_cast<std::size_t>(x)].name).contains(m_search, Qt::CaseInsensitive);
        if (!nested) sum += m_profile->meanTotalNs(m_group, f);
    }
    return sum / latency;
}

int FlameGraphView::frameAt(QPoint pos) const {
    const double w = width();
    for (const auto& b : m_boxes) {
        const int y = rowTop(b.depth);
        if (pos.y() >= y && pos.y() < y + kRow - 1 && pos.x() >= b.x0 * w && pos.x() < b.x1 * w) return b.frame < 0 ? -2 : b.frame;
    }
    return -1;
}

void FlameGraphView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!m_profile || m_boxes.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No profile: open an analysed database."));
        return;
    }
    const double w = width();
    const QFontMetrics fm(font());
    for (const auto& b : m_boxes) {
        const double x0 = b.x0 * w, x1 = b.x1 * w;
        if (x1 - x0 < 1.0) continue;  // under a pixel: not drawn
        const QRectF r(x0, rowTop(b.depth), x1 - x0 - 1, kRow - 2);
        QString name;
        QColor fill;
        if (b.frame < 0) {
            const std::int32_t async = m_profile->asyncFrame();
            const double latency = m_profile->meanLatencyNs(m_group);
            name = async >= 0 ? tr("all (%1 mean latency, and %2 not waited for)")
                                    .arg(formatDurationNs(static_cast<TimeNs>(latency)),
                                         formatDurationNs(static_cast<TimeNs>(m_profile->meanTotalNs(m_group, static_cast<std::size_t>(async)))))
                              : tr("all (%1 mean latency)").arg(formatDurationNs(static_cast<TimeNs>(latency)));
            fill = QColor(0xce, 0xd4, 0xda);
        } else {
            const ProfileFrameInfo& info = m_profile->frames[static_cast<std::size_t>(b.frame)];
            name = QString::fromStdString(info.name);
            if (info.kind == FrameKind::Blind) fill = palette::blind();
            else if (info.kind == FrameKind::Async) fill = palette::asyncWork();
            else if (info.kind == FrameKind::Network) fill = QColor(0x74, 0xc0, 0xfc);
            else if (!info.services.empty()) fill = palette::forTask(QString::fromStdString(info.services.front()));
            else {
                // Event logs: the colour of the top-level category the frame sits under.
                int top = b.frame;
                while (m_profile->frames[static_cast<std::size_t>(top)].parent >= 0) top = m_profile->frames[static_cast<std::size_t>(top)].parent;
                fill = palette::forCategory(QString::fromStdString(m_profile->frames[static_cast<std::size_t>(top)].name));
            }
            if (m_diffTarget >= 0) {
                const FrameChange* c = static_cast<std::size_t>(b.frame) < m_change.size() ? m_change[static_cast<std::size_t>(b.frame)] : nullptr;
                if (c && c->significant) {
                    // Saturation by the ratio of the frame's totals on a log scale: 8x (or 1/8) is full colour.
                    const double ratio = std::max(c->targetTotalNs, 1.0) / std::max(c->baseTotalNs, 1.0);
                    const double strength = std::min(1.0, std::abs(std::log2(ratio)) / 3.0);
                    const int k = 50 + static_cast<int>(strength * 170);
                    fill = ratio > 1 ? QColor(255, 235 - k, 235 - k) : QColor(235 - k, 235 - k, 255);
                } else {
                    fill = QColor(0xe9, 0xec, 0xef);
                }
            }
            if (!m_search.isEmpty()) {
                if (name.contains(m_search, Qt::CaseInsensitive)) fill = QColor(0xe6, 0x49, 0x80);
                else fill = fill.lighter(150);
            }
        }
        p.fillRect(r, fill);
        if (r.width() > 24) {
            p.setPen(fill.lightness() < 110 ? Qt::white : Qt::black);
            p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft, fm.elidedText(name, Qt::ElideMiddle, int(r.width()) - 5));
        }
    }
}

void FlameGraphView::mousePressEvent(QMouseEvent* event) {
    const int f = frameAt(event->position().toPoint());
    if (f == -2) zoomTo(-1);
    else if (f >= 0) zoomTo(f == m_zoom ? m_profile->frames[static_cast<std::size_t>(f)].parent : f);
}

void FlameGraphView::keyPressEvent(QKeyEvent* event) {
    if ((event->key() == Qt::Key_Backspace || event->key() == Qt::Key_Escape) && m_zoom >= 0 && m_profile) {
        zoomTo(m_profile->frames[static_cast<std::size_t>(m_zoom)].parent);
        return;
    }
    QWidget::keyPressEvent(event);
}

void FlameGraphView::contextMenuEvent(QContextMenuEvent* event) {
    const int f = frameAt(event->pos());
    if (f != -1) emit frameMenuRequested(f, event->globalPos());
}

bool FlameGraphView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip && m_profile) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int f = frameAt(help->pos());
        if (f >= 0 && m_diffTarget >= 0) {
            const FrameChange* c = static_cast<std::size_t>(f) < m_change.size() ? m_change[static_cast<std::size_t>(f)] : nullptr;
            if (c)
                QToolTip::showText(help->globalPos(),
                                   tr("<b>%1</b><br>total %2 → %3 (%4)<br>self %5 → %6<br>p %7 (Benjamini-Hochberg) · %8")
                                       .arg(QString::fromStdString(m_profile->frames[static_cast<std::size_t>(f)].name).toHtmlEscaped(),
                                            formatDurationNs(static_cast<TimeNs>(c->baseTotalNs)), formatDurationNs(static_cast<TimeNs>(c->targetTotalNs)),
                                            (c->deltaTotalNs() >= 0 ? QStringLiteral("+") : QString()) + formatDurationNs(static_cast<TimeNs>(c->deltaTotalNs())),
                                            formatDurationNs(static_cast<TimeNs>(c->baseSelfNs)), formatDurationNs(static_cast<TimeNs>(c->targetSelfNs)))
                                       .arg(formatProbability(c->pValue))
                                       .arg(c->significant ? tr("significant") : tr("within the noise")),
                                   this);
        } else if (f >= 0) {
            const auto g = m_group;
            const auto fi = static_cast<std::size_t>(f);
            const double latency = m_profile->meanLatencyNs(g);
            QToolTip::showText(help->globalPos(),
                               tr("<b>%1</b><br>mean critical time %2 (± %3, 95 %)<br>self %4 · %5 % of the latency<br>critical in %6 % of the requests")
                                   .arg(QString::fromStdString(m_profile->frames[fi].name).toHtmlEscaped(),
                                        formatDurationNs(static_cast<TimeNs>(m_profile->meanTotalNs(g, fi))),
                                        formatDurationNs(static_cast<TimeNs>(m_profile->ci95TotalNs(g, fi))),
                                        formatDurationNs(static_cast<TimeNs>(m_profile->meanSelfNs(g, fi))))
                                   .arg(latency > 0 ? 100.0 * m_profile->meanTotalNs(g, fi) / latency : 0.0, 0, 'f', 1)
                                   .arg(100.0 * m_profile->onPathShare(g, fi), 0, 'f', 1),
                               this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

} // namespace tracelight::widgets
