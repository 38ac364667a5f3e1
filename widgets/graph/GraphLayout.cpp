#include "graph/GraphLayout.h"

#include <graphviz/gvc.h>

#include <QMutex>
#include <string>

namespace tracelight::widgets {

GraphLayoutResult layoutGraph(const GraphLayoutInput& input) {
    // Graphviz keeps global state: one layout at a time.
    static QMutex mutex;
    QMutexLocker lock(&mutex);
    GraphLayoutResult result;
    result.centers.resize(input.nodes.size());
    result.edgePaths.resize(input.edges.size());
    if (input.nodes.empty()) return result;

    std::string dot = "digraph G { rankdir=LR; nodesep=0.12; ranksep=0.35; splines=true; "
                      "node [shape=box, fixedsize=true, label=\"\"]; edge [arrowhead=none];\n";
    char buffer[160];
    for (std::size_t i = 0; i < input.nodes.size(); ++i) {
        std::snprintf(buffer, sizeof buffer, "n%zu [width=%.3f, height=%.3f];\n", i, input.nodes[i].widthPx / 72.0,
                      input.nodes[i].heightPx / 72.0);
        dot += buffer;
    }
    for (std::size_t e = 0; e < input.edges.size(); ++e) {
        std::snprintf(buffer, sizeof buffer, "n%d -> n%d [weight=%d, id=\"e%zu\"];\n", input.edges[e].from, input.edges[e].to,
                      std::max(1, static_cast<int>(input.edges[e].weight)), e);
        dot += buffer;
    }
    dot += "}\n";

    // One context for the process, made on first use (under the mutex) and never freed: each new
    // context costs a read of Graphviz's plugin configuration, and Graphviz 2.43 loses the block it
    // reads it into (tests/sanitizers/lsan.supp), so one context means one lost block, not one per layout.
    static GVC_t* const gvc = gvContext();
    Agraph_t* g = agmemread(dot.c_str());
    if (!g || gvLayout(gvc, g, "dot") != 0) {
        result.error = QStringLiteral("Graphviz could not lay out the graph");
        if (g) agclose(g);
        return result;
    }
    const boxf bb = GD_bb(g);
    const double height = bb.UR.y;  // Graphviz's y points up
    result.bounds = QRectF(bb.LL.x, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
    for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) {
        const int index = std::atoi(agnameof(n) + 1);
        result.centers[static_cast<std::size_t>(index)] = QPointF(ND_coord(n).x, height - ND_coord(n).y);
        for (Agedge_t* e = agfstout(g, n); e; e = agnxtout(g, e)) {
            const char* id = agget(e, const_cast<char*>("id"));
            if (!id || id[0] != 'e' || !ED_spl(e) || ED_spl(e)->size == 0) continue;
            const auto edgeIndex = static_cast<std::size_t>(std::atoi(id + 1));
            const bezier& bz = ED_spl(e)->list[0];
            auto& path = result.edgePaths[edgeIndex];
            for (int k = 0; k < bz.size; ++k) path.emplace_back(bz.list[k].x, height - bz.list[k].y);
        }
    }
    gvFreeLayout(gvc, g);
    agclose(g);
    return result;
}

} // namespace tracelight::widgets
