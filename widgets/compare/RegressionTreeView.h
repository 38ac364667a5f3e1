#pragma once
// The C4.5 tree that separates an entry's problem-period requests from its precursor's (or baseline's),
// drawn as a tree: attribute tests in the internal nodes, each branch's test on its edge, leaves with their
// class and counts (problem-side leaves red, the other grey). Right-click saves it (PNG, SVG, PDF).
#include <QWidget>
#include <memory>

#include "tracelight/compare/RegressionTree.h"

namespace tracelight::widgets {

class RegressionTreeView : public QWidget {
    Q_OBJECT
public:
    explicit RegressionTreeView(QWidget* parent = nullptr);
    void setTree(std::shared_ptr<const RegressionTree> tree);
    void setMessage(const QString& message);
    int drawnNodes() const { return static_cast<int>(m_boxes.size()); }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    struct Box {
        const TreeNode* node;
        QRectF rect;
        int parent;         // index into m_boxes, -1 for the root
        QString edgeLabel;  // the branch test leading here
    };
    void layOut();
    QString nodeText(const TreeNode& node) const;

    std::shared_ptr<const RegressionTree> m_tree;
    std::vector<Box> m_boxes;
    QString m_message;
};

} // namespace tracelight::widgets
