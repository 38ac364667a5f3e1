#pragma once
// Layered left-to-right layout of a directed graph by Graphviz's dot (through libgvc).
#include <QPointF>
#include <QRectF>
#include <QString>
#include <vector>

namespace tracelight::widgets {

struct GraphLayoutInput {
    struct Node { double widthPx, heightPx; };
    struct Edge { int from, to; double weight; };
    std::vector<Node> nodes;
    std::vector<Edge> edges;  // edges that shape the layers
};

struct GraphLayoutResult {
    std::vector<QPointF> centers;                 // per node, in pixels, y down
    std::vector<std::vector<QPointF>> edgePaths;  // per input edge: cubic Bezier control points (1 + 3k), may be empty
    QRectF bounds;
    QString error;                                // non-empty when Graphviz failed
};

GraphLayoutResult layoutGraph(const GraphLayoutInput& input);

} // namespace tracelight::widgets
