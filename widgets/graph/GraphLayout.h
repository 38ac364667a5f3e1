#pragma once
// Layered left-to-right layout of a directed graph: Graphviz's dot (through libgvc) when the graph is small
// enough for it to finish promptly, otherwise our own layered layout (longest-path layers, barycentre
// ordering, straight edges) in time near-linear in nodes and edges. Neither touches widgets: both run on a
// worker thread (GraphView starts them through the job runner), never on the GUI thread.
#include <QPointF>
#include <QRectF>
#include <QString>
#include <chrono>
#include <cstddef>
#include <vector>

namespace tracelight::widgets {

struct GraphLayoutInput {
    struct Node { double widthPx, heightPx; };
    struct Edge { int from, to; double weight; };
    std::vector<Node> nodes;
    std::vector<Edge> edges;  // edges that shape the layers
    // Optional, per node: a cluster number (-1: none). Nodes of one cluster are kept together (Graphviz
    // clusters; in the layered layout, adjacent within each layer).
    std::vector<int> cluster;
    // Gaps between layers and between nodes of a layer (0: the defaults). Room for edge labels.
    double rankSepPx = 0, nodeSepPx = 0;
};

enum class GraphLayoutMethod { None, Graphviz, Layered };

struct GraphLayoutResult {
    std::vector<QPointF> centers;                 // per node, in pixels, y down
    std::vector<std::vector<QPointF>> edgePaths;  // per input edge: cubic Bezier control points (1 + 3k), may be empty
    QRectF bounds;
    QString error;                                // non-empty when Graphviz failed
    GraphLayoutMethod method = GraphLayoutMethod::None;
    QString description;                          // which layout this is and why, for the view to say
};

// When Graphviz is tried at all, and how long its answer is waited for. dot's crossing minimisation grows
// much faster than linearly (an 836-type model with thousands of edges ran for over ten minutes), and it
// cannot be interrupted: larger graphs go straight to the layered layout, and a dot run past the time
// budget is abandoned (its thread finishes on its own) in favour of the layered layout.
struct GraphLayoutBudget {
    std::size_t maxNodes = 300;
    std::size_t maxEdges = 2000;
    int graphvizMs = 3000;
};

// Graphviz dot, unconditionally (blocking; one at a time).
GraphLayoutResult layoutGraph(const GraphLayoutInput& input);
// How many Graphviz layouts ran on the application's (GUI) thread so far: the views never start one there.
int graphvizRunsOnGuiThread();
// Our layered layout: layers by longest path from the sources (cycles broken), a few barycentre sweeps to
// reduce crossings, nodes stacked in each layer, straight edges.
GraphLayoutResult layoutLayered(const GraphLayoutInput& input);
// The rule every caller uses (the view, render graph): dot within the budget, else the layered layout.
GraphLayoutResult layoutWithBudget(const GraphLayoutInput& input, const GraphLayoutBudget& budget = {});
// Waits until every dot run that layoutWithBudget abandoned has finished, at most `timeout`; false if some still
// run. A process waits before it ends, so that no run is cut short mid-way by the process's exit.
bool waitForAbandonedLayouts(std::chrono::milliseconds timeout);

} // namespace tracelight::widgets
