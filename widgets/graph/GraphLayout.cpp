#include "graph/GraphLayout.h"

#include <graphviz/gvc.h>

#include <QCoreApplication>
#include <QMutex>
#include <QThread>
#include <atomic>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <memory>
#include <numeric>
#include <string>
#include <thread>

namespace tracelight::widgets {

namespace {
std::atomic<int> g_guiThreadRuns{0};

// The dot runs layoutWithBudget started that are still going (an abandoned one finishes on its own). Never
// destroyed, like the Graphviz lock: a run may outlive static destruction.
struct Abandoned {
    std::mutex mutex;
    std::condition_variable done;
    int running = 0;
};
Abandoned& abandoned() {
    static Abandoned* const a = new Abandoned;
    return *a;
}

GraphLayoutResult dotLayout(const GraphLayoutInput& input);
} // namespace

int graphvizRunsOnGuiThread() { return g_guiThreadRuns.load(); }

bool waitForAbandonedLayouts(std::chrono::milliseconds timeout) {
    Abandoned& a = abandoned();
    std::unique_lock lock(a.mutex);
    return a.done.wait_for(lock, timeout, [&] { return a.running == 0; });
}

GraphLayoutResult layoutGraph(const GraphLayoutInput& input) {
    if (QCoreApplication::instance() && QThread::currentThread() == QCoreApplication::instance()->thread()) ++g_guiThreadRuns;
    return dotLayout(input);
}

namespace {
// dot itself. It touches no Qt object (only values), so that a run abandoned by layoutWithBudget may still be
// going while the application object is destroyed.
GraphLayoutResult dotLayout(const GraphLayoutInput& input) {
    // Graphviz keeps global state: one layout at a time. Never destroyed: a superseded layout still running
    // on the pool when the process exits must not lock a mutex that static destruction has ended.
    static QMutex* const mutex = new QMutex;
    QMutexLocker lock(mutex);
    GraphLayoutResult result;
    result.centers.resize(input.nodes.size());
    result.edgePaths.resize(input.edges.size());
    if (input.nodes.empty()) return result;

    char buffer[160];
    std::snprintf(buffer, sizeof buffer, "digraph G { rankdir=LR; nodesep=%.3f; ranksep=%.3f; splines=true; ",
                  input.nodeSepPx > 0 ? input.nodeSepPx / 72.0 : 0.12, input.rankSepPx > 0 ? input.rankSepPx / 72.0 : 0.35);
    std::string dot = buffer;
    dot += "node [shape=box, fixedsize=true, label=\"\"]; edge [arrowhead=none];\n";
    auto clusterOf = [&](std::size_t i) { return i < input.cluster.size() ? input.cluster[i] : -1; };
    std::vector<int> clusters;
    for (std::size_t i = 0; i < input.nodes.size(); ++i) {
        if (clusterOf(i) >= 0) {
            if (std::find(clusters.begin(), clusters.end(), clusterOf(i)) == clusters.end()) clusters.push_back(clusterOf(i));
            continue;
        }
        std::snprintf(buffer, sizeof buffer, "n%zu [width=%.3f, height=%.3f];\n", i, input.nodes[i].widthPx / 72.0,
                      input.nodes[i].heightPx / 72.0);
        dot += buffer;
    }
    for (const int c : clusters) {
        std::snprintf(buffer, sizeof buffer, "subgraph cluster_%d { margin=18;\n", c);
        dot += buffer;
        for (std::size_t i = 0; i < input.nodes.size(); ++i) {
            if (clusterOf(i) != c) continue;
            std::snprintf(buffer, sizeof buffer, "n%zu [width=%.3f, height=%.3f];\n", i, input.nodes[i].widthPx / 72.0,
                          input.nodes[i].heightPx / 72.0);
            dot += buffer;
        }
        dot += "}\n";
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
    result.method = GraphLayoutMethod::Graphviz;
    result.description = QStringLiteral("layout: Graphviz dot");
    return result;
}
} // namespace

GraphLayoutResult layoutLayered(const GraphLayoutInput& input) {
    constexpr int kSweeps = 4;
    const double kRankSep = input.rankSepPx > 0 ? input.rankSepPx : 60, kNodeSep = input.nodeSepPx > 0 ? input.nodeSepPx : 10;
    GraphLayoutResult result;
    const std::size_t n = input.nodes.size();
    result.centers.resize(n);
    result.edgePaths.resize(input.edges.size());
    result.method = GraphLayoutMethod::Layered;
    result.description = QStringLiteral("layout: layered (longest path)");
    if (n == 0) return result;

    // Adjacency in compressed form (no per-node vectors).
    std::vector<std::uint32_t> outBegin(n + 1, 0), inBegin(n + 1, 0);
    auto valid = [&](const GraphLayoutInput::Edge& e) {
        return e.from >= 0 && e.to >= 0 && static_cast<std::size_t>(e.from) < n && static_cast<std::size_t>(e.to) < n && e.from != e.to;
    };
    for (const auto& e : input.edges)
        if (valid(e)) {
            ++outBegin[static_cast<std::size_t>(e.from) + 1];
            ++inBegin[static_cast<std::size_t>(e.to) + 1];
        }
    std::partial_sum(outBegin.begin(), outBegin.end(), outBegin.begin());
    std::partial_sum(inBegin.begin(), inBegin.end(), inBegin.begin());
    std::vector<std::uint32_t> outAdj(outBegin[n]), inAdj(inBegin[n]);
    {
        std::vector<std::uint32_t> o(outBegin.begin(), outBegin.end() - 1), i(inBegin.begin(), inBegin.end() - 1);
        for (const auto& e : input.edges)
            if (valid(e)) {
                outAdj[o[static_cast<std::size_t>(e.from)]++] = static_cast<std::uint32_t>(e.to);
                inAdj[i[static_cast<std::size_t>(e.to)]++] = static_cast<std::uint32_t>(e.from);
            }
    }

    // Layers by longest path from the sources (Kahn's order); a cycle is broken at its lowest-numbered
    // remaining node, whose edges from unplaced nodes are then ignored.
    std::vector<std::uint32_t> indegree(n), layer(n, 0), queue;
    std::vector<bool> placed(n, false);
    queue.reserve(n);
    for (std::size_t v = 0; v < n; ++v) indegree[v] = inBegin[v + 1] - inBegin[v];
    for (std::size_t v = 0; v < n; ++v)
        if (indegree[v] == 0) queue.push_back(static_cast<std::uint32_t>(v));
    std::size_t head = 0, nextForced = 0;
    while (queue.size() < n || head < queue.size()) {
        if (head == queue.size()) {
            while (placed[nextForced] || indegree[nextForced] == 0) ++nextForced;  // unplaced with indegree 0 are queued
            indegree[nextForced] = 0;
            queue.push_back(static_cast<std::uint32_t>(nextForced));
        }
        const std::uint32_t v = queue[head++];
        placed[v] = true;
        for (std::uint32_t k = outBegin[v]; k < outBegin[v + 1]; ++k) {
            const std::uint32_t w = outAdj[k];
            if (placed[w]) continue;  // a back edge of a broken cycle
            layer[w] = std::max(layer[w], layer[v] + 1);
            if (indegree[w] > 0 && --indegree[w] == 0) queue.push_back(w);
        }
    }
    const std::uint32_t layers = *std::max_element(layer.begin(), layer.end()) + 1;
    std::vector<std::vector<std::uint32_t>> rank(layers);
    for (const std::uint32_t v : queue) rank[layer[v]].push_back(v);  // first order: discovery order

    // Barycentre sweeps: each node moves to the mean relative position of its neighbours in other layers.
    std::vector<double> position(n);
    auto place = [&](std::uint32_t l) {
        const auto& r = rank[l];
        for (std::size_t k = 0; k < r.size(); ++k) position[r[k]] = (double(k) + 0.5) / double(r.size());
    };
    for (std::uint32_t l = 0; l < layers; ++l) place(l);
    std::vector<std::pair<double, std::uint32_t>> keyed;
    auto sweep = [&](std::uint32_t l, const std::vector<std::uint32_t>& begin, const std::vector<std::uint32_t>& adj) {
        keyed.clear();
        for (const std::uint32_t v : rank[l]) {
            double sum = 0;
            std::size_t count = 0;
            for (std::uint32_t k = begin[v]; k < begin[v + 1]; ++k) {
                sum += position[adj[k]];
                ++count;
            }
            keyed.emplace_back(count ? sum / double(count) : position[v], v);
        }
        std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (std::size_t k = 0; k < keyed.size(); ++k) rank[l][k] = keyed[k].second;
        place(l);
    };
    for (int s = 0; s < kSweeps; ++s) {
        for (std::uint32_t l = 1; l < layers; ++l) sweep(l, inBegin, inAdj);
        for (std::uint32_t l = layers; l-- > 1;) sweep(l - 1, outBegin, outAdj);
    }

    // Clusters kept together: within each layer, a cluster's nodes sit at their cluster's mean position.
    if (!input.cluster.empty()) {
        std::vector<double> sum, count;
        for (std::size_t v = 0; v < n && v < input.cluster.size(); ++v) {
            const int c = input.cluster[v];
            if (c < 0) continue;
            if (static_cast<std::size_t>(c) >= sum.size()) sum.resize(static_cast<std::size_t>(c) + 1, 0), count.resize(sum.size(), 0);
            sum[static_cast<std::size_t>(c)] += position[v];
            count[static_cast<std::size_t>(c)] += 1;
        }
        auto key = [&](std::uint32_t v) {
            const int c = v < input.cluster.size() ? input.cluster[v] : -1;
            return c >= 0 ? sum[static_cast<std::size_t>(c)] / count[static_cast<std::size_t>(c)] : position[v];
        };
        for (std::uint32_t l = 0; l < layers; ++l) {
            std::stable_sort(rank[l].begin(), rank[l].end(), [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
            place(l);
        }
    }

    // Coordinates: layers left to right, each as wide as its widest node; nodes stacked, layers centred.
    double x = 0, tallest = 0;
    std::vector<double> layerHeight(layers, 0);
    for (std::uint32_t l = 0; l < layers; ++l) {
        for (const std::uint32_t v : rank[l]) layerHeight[l] += input.nodes[v].heightPx + kNodeSep;
        tallest = std::max(tallest, layerHeight[l]);
    }
    for (std::uint32_t l = 0; l < layers; ++l) {
        double widest = 0;
        for (const std::uint32_t v : rank[l]) widest = std::max(widest, input.nodes[v].widthPx);
        double y = (tallest - layerHeight[l]) / 2 + kNodeSep / 2;
        for (const std::uint32_t v : rank[l]) {
            result.centers[v] = QPointF(x + widest / 2, y + input.nodes[v].heightPx / 2);
            y += input.nodes[v].heightPx + kNodeSep;
        }
        x += widest + kRankSep;
    }
    result.bounds = QRectF(0, 0, std::max(1.0, x - kRankSep), std::max(1.0, tallest));
    // Straight edges from the right side of the source to the left side of the target.
    for (std::size_t e = 0; e < input.edges.size(); ++e) {
        const auto& edge = input.edges[e];
        if (!valid(edge)) continue;
        const auto from = static_cast<std::size_t>(edge.from), to = static_cast<std::size_t>(edge.to);
        QPointF a = result.centers[from], b = result.centers[to];
        if (layer[to] > layer[from]) {
            a.rx() += input.nodes[from].widthPx / 2;
            b.rx() -= input.nodes[to].widthPx / 2;
        }
        result.edgePaths[e] = {a, a + (b - a) / 3, a + (b - a) * 2 / 3, b};
    }
    return result;
}

GraphLayoutResult layoutWithBudget(const GraphLayoutInput& input, const GraphLayoutBudget& budget) {
    if (input.nodes.size() > budget.maxNodes || input.edges.size() > budget.maxEdges) {
        GraphLayoutResult result = layoutLayered(input);
        result.description = QStringLiteral("layout: layered (longest path) — %1 nodes and %2 edges are beyond Graphviz's budget (%3 nodes, %4 edges)")
                                 .arg(input.nodes.size())
                                 .arg(input.edges.size())
                                 .arg(budget.maxNodes)
                                 .arg(budget.maxEdges);
        return result;
    }
    // dot cannot be interrupted: it runs on its own thread, which is abandoned (and finishes on its own,
    // holding only its copy of the input) when it overruns the budget.
    auto input_ = std::make_shared<const GraphLayoutInput>(input);
    auto promise = std::make_shared<std::promise<GraphLayoutResult>>();
    std::future<GraphLayoutResult> future = promise->get_future();
    {
        std::lock_guard lock(abandoned().mutex);
        ++abandoned().running;
    }
    std::thread([input_, promise] {
        promise->set_value(dotLayout(*input_));
        Abandoned& a = abandoned();
        std::lock_guard lock(a.mutex);
        if (--a.running == 0) a.done.notify_all();
    }).detach();
    if (future.wait_for(std::chrono::milliseconds(std::max(0, budget.graphvizMs))) == std::future_status::ready) {
        GraphLayoutResult result = future.get();
        if (result.error.isEmpty()) return result;
        GraphLayoutResult fallback = layoutLayered(input);
        fallback.description = QStringLiteral("layout: layered (longest path) — %1").arg(result.error);
        return fallback;
    }
    GraphLayoutResult result = layoutLayered(input);
    result.description = QStringLiteral("layout: layered (longest path) — Graphviz took longer than %1 s").arg(budget.graphvizMs / 1000.0);
    return result;
}

} // namespace tracelight::widgets
