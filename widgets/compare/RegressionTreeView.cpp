#include "compare/RegressionTreeView.h"

#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QTimer>
#include <algorithm>
#include <functional>

#include "common/PlotExport.h"

namespace tracelight::widgets {

namespace {
constexpr double kGapX = 16, kLevel = 86, kMargin = 12;
const QColor kProblem(0xc0, 0x39, 0x2b);
} // namespace

RegressionTreeView::RegressionTreeView(QWidget* parent) : QWidget(parent) {
    setMinimumSize(200, 120);
    attachPictureExport(this, QStringLiteral("regression-tree.png"));
    setToolTip(tr("Which request attributes separate the two sides; right-click to save the picture"));
}

void RegressionTreeView::setTree(std::shared_ptr<const RegressionTree> tree) {
    m_tree = std::move(tree);
    m_message.clear();
    layOut();
    update();
}

void RegressionTreeView::setMessage(const QString& message) {
    m_tree.reset();
    m_boxes.clear();
    m_message = message;
    setMinimumSize(200, 120);
    update();
}

QString RegressionTreeView::nodeText(const TreeNode& node) const {
    if (!node.isLeaf()) return QString::fromStdString(m_tree->attributes[static_cast<std::size_t>(node.attribute)].name);
    const QString cls = QString::fromStdString(m_tree->classNames[node.majority ? 1 : 0]);
    const double errors = node.errors();
    return errors > 0.05 ? tr("%1\n%2 requests (%3 not)").arg(cls).arg(node.total(), 0, 'f', node.total() < 10 ? 1 : 0).arg(errors, 0, 'f', 1)
                         : tr("%1\n%2 requests").arg(cls).arg(node.total(), 0, 'f', node.total() < 10 ? 1 : 0);
}

// A tidy top-down layout: leaves side by side in order, each internal node centred over its children.
void RegressionTreeView::layOut() {
    m_boxes.clear();
    if (!m_tree) return;
    const QFontMetricsF fm(font());
    double nextX = kMargin;
    double maxY = 0;
    std::function<int(const TreeNode&, int, int, QString)> place = [&](const TreeNode& node, int depth, int parent, QString edge) {
        const QString text = nodeText(node);
        double w = 0;
        for (const QString& line : text.split('\n')) w = std::max(w, fm.horizontalAdvance(line));
        w += 16;
        const double h = fm.height() * (node.isLeaf() ? 2 : 1) + 12;
        const int index = static_cast<int>(m_boxes.size());
        m_boxes.push_back({&node, QRectF(0, kMargin + depth * kLevel, w, h), parent, std::move(edge)});
        double x;
        if (node.isLeaf()) {
            // The slot holds the box and the branch test written above it.
            const double slot = std::max({w, fm.horizontalAdvance(m_boxes[static_cast<std::size_t>(index)].edgeLabel) + 12, 60.0});
            x = nextX + slot / 2;
            nextX += slot + kGapX;
        } else {
            double first = 0, last = 0;
            for (std::size_t k = 0; k < node.children.size(); ++k) {
                const QString test = k < node.branchTests.size() ? QString::fromStdString(node.branchTests[k]) : QString();
                const int child = place(node.children[k], depth + 1, index, test);
                const double cx = m_boxes[static_cast<std::size_t>(child)].rect.center().x();
                if (k == 0) first = cx;
                last = cx;
            }
            x = (first + last) / 2;
            // A wide internal node must not overlap the previous subtree's right edge.
            x = std::max(x, kMargin + w / 2);
        }
        QRectF& r = m_boxes[static_cast<std::size_t>(index)].rect;
        r.moveLeft(x - w / 2);
        maxY = std::max(maxY, r.bottom());
        return index;
    };
    place(m_tree->root, 0, -1, QString());
    double maxX = 0;
    for (const auto& b : m_boxes) maxX = std::max(maxX, b.rect.right());
    setMinimumSize(int(maxX + kMargin), int(maxY + kMargin));
    // A tree wider than the view opens at its root.
    QTimer::singleShot(0, this, [this] {
        auto* area = parentWidget() ? qobject_cast<QScrollArea*>(parentWidget()->parentWidget()) : nullptr;
        if (area && !m_boxes.empty()) area->horizontalScrollBar()->setValue(int(m_boxes.front().rect.center().x()) - area->viewport()->width() / 2);
    });
}

void RegressionTreeView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setRenderHint(QPainter::Antialiasing);
    if (m_boxes.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap,
                   m_message.isEmpty() ? tr("Choose an entry to see which attributes separate its requests.") : m_message);
        return;
    }
    const QFontMetricsF fm(font());
    for (const Box& b : m_boxes) {
        if (b.parent < 0) continue;
        const QRectF& from = m_boxes[static_cast<std::size_t>(b.parent)].rect;
        const QPointF a(from.center().x(), from.bottom()), c(b.rect.center().x(), b.rect.top());
        p.setPen(QPen(QColor(0x86, 0x8e, 0x96), 1.2));
        p.drawLine(a, c);
        // The branch's test near the child (siblings' tests then sit in their own slots), on a background.
        const QPointF mid = a + (c - a) * 0.72;
        const QRectF label(mid.x() - fm.horizontalAdvance(b.edgeLabel) / 2 - 3, mid.y() - fm.height() / 2, fm.horizontalAdvance(b.edgeLabel) + 6,
                           fm.height());
        p.fillRect(label, palette().base());
        p.setPen(palette().color(QPalette::Text));
        p.drawText(label, Qt::AlignCenter, b.edgeLabel);
    }
    for (const Box& b : m_boxes) {
        const TreeNode& n = *b.node;
        if (n.isLeaf()) {
            const QColor c = n.majority ? kProblem : QColor(0x49, 0x50, 0x57);
            p.setPen(QPen(c, 1.5));
            p.setBrush(n.majority ? QColor(0xfd, 0xec, 0xea) : QColor(0xf1, 0xf3, 0xf5));
            p.drawRoundedRect(b.rect, 4, 4);
            p.setPen(c);
        } else {
            p.setPen(QPen(QColor(0x19, 0x71, 0xc2), 1.5));
            p.setBrush(QColor(0xe7, 0xf5, 0xff));
            p.drawRoundedRect(b.rect, 12, 12);
            p.setPen(QColor(0x21, 0x25, 0x29));
        }
        p.drawText(b.rect, Qt::AlignCenter, nodeText(n));
    }
}


} // namespace tracelight::widgets
