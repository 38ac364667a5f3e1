#include "tracelight/store/SpanReads.h"
#include "tracelight/studies/ServiceMap.h"

#include "tracelight/store/TraceStore.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace tracelight {

namespace {
bool isCaller(std::string_view kind) { return kind == "client" || kind == "producer"; }
bool isCallee(std::string_view kind) { return kind == "server" || kind == "consumer"; }
TimeNs duration(const SpanShape& s) { return std::max<TimeNs>(0, s.endNs - s.startNs); }
} // namespace

TimeNs percentileNs(std::vector<TimeNs> values, double p) {
    if (values.empty()) return 0;
    const auto n = values.size();
    auto rank = static_cast<std::size_t>(std::ceil(std::clamp(p, 0.0, 100.0) / 100.0 * double(n)));
    rank = std::clamp<std::size_t>(rank, 1, n) - 1;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank), values.end());
    return values[rank];
}

std::uint32_t ServiceMap::serviceIndex(std::string_view service) {
    if (auto it = m_serviceByName.find(service); it != m_serviceByName.end()) return it->second;
    const auto index = static_cast<std::uint32_t>(m_services.size());
    m_services.emplace_back(service);
    m_serviceRequests.push_back(0);
    m_serviceLastRequest.push_back(-1);
    m_serviceByName.emplace(service, index);
    return index;
}

std::uint32_t ServiceMap::opIndex(std::uint32_t service, std::string_view operation) {
    auto key = std::make_pair(service, std::string(operation));
    if (auto it = m_opByName.find(key); it != m_opByName.end()) return it->second;
    const auto index = static_cast<std::uint32_t>(m_ops.size());
    m_ops.push_back({service, key.second});
    m_opByName.emplace(std::move(key), index);
    return index;
}

void ServiceMap::add(const RequestSpans& spans) { add(spanShapes(spans)); }

void ServiceMap::add(std::span<const SpanShape> spans) {
    const std::int64_t request = m_requests++;
    m_spans += static_cast<std::int64_t>(spans.size());
    std::vector<std::uint32_t> ops(spans.size());
    for (std::size_t i = 0; i < spans.size(); ++i) {
        const SpanShape& s = spans[i];
        const std::uint32_t service = serviceIndex(s.service);
        if (m_serviceLastRequest[service] != request) {
            m_serviceLastRequest[service] = request;
            ++m_serviceRequests[service];
        }
        ops[i] = opIndex(service, s.operation);
        Op& op = m_ops[ops[i]];
        ++op.spans;
        if (op.lastRequest != request) {
            op.lastRequest = request;
            ++op.requests;
        }
    }
    // A span with a child in its own service does work of its own there: without a kind it is no client span.
    std::vector<bool> localChild(spans.size(), false);
    for (std::size_t i = 0; i < spans.size(); ++i)
        if (spans[i].parent >= 0 && static_cast<std::size_t>(spans[i].parent) < i &&
            m_ops[ops[static_cast<std::size_t>(spans[i].parent)]].service == m_ops[ops[i]].service)
            localChild[static_cast<std::size_t>(spans[i].parent)] = true;
    for (std::size_t i = 0; i < spans.size(); ++i) {
        const SpanShape& s = spans[i];
        // Parents come before children; anything else (a broken index) is not a link we can trust.
        if (s.parent < 0 || static_cast<std::size_t>(s.parent) >= i) continue;
        const SpanShape& parent = spans[static_cast<std::size_t>(s.parent)];
        const std::uint32_t from = ops[static_cast<std::size_t>(s.parent)], to = ops[i];
        const bool crosses = m_ops[from].service != m_ops[to].service;
        const bool selfCall = !crosses && isCaller(parent.kind) && isCallee(s.kind);
        const bool call = crosses || selfCall;
        // What the caller waited: its client span when there is one, else the callee's own span. A parent of
        // unknown kind whose children all run in other services is the client half (the model of a call the
        // suspects use too): Online Boutique's records carry no kind, and frontend's
        // "hipstershop.CurrencyService/Convert" is the parent of currencyservice's "grpc.hipstershop.…/Convert".
        const bool parentIsClient = isCaller(parent.kind) || (parent.kind.empty() && crosses && !localChild[static_cast<std::size_t>(s.parent)]);
        const TimeNs latency = call && parentIsClient ? duration(parent) : duration(s);
        auto [it, inserted] = m_edgeByKey.try_emplace(std::make_tuple(from, to, call), static_cast<std::uint32_t>(m_edges.size()));
        if (inserted) m_edges.push_back({from, to, call, {}, {}, {}});
        OpEdge& edge = m_edges[it->second];
        edge.durations.push_back(latency);
        if (!call) continue;
        edge.callee.push_back(duration(s));
        if (parentIsClient) edge.hops.push_back(std::max<TimeNs>(0, duration(parent) - duration(s)));
    }
}

ServiceGraph ServiceMap::graph(const std::set<std::string>& expanded) const {
    ServiceGraph g;
    g.requests = m_requests;
    constexpr auto kNone = static_cast<std::uint32_t>(-1);
    std::vector<std::uint32_t> serviceNode(m_services.size(), kNone), opNode(m_ops.size(), kNone);
    std::vector<bool> isExpanded(m_services.size());
    for (std::size_t s = 0; s < m_services.size(); ++s) isExpanded[s] = expanded.count(m_services[s]) > 0;
    for (std::size_t s = 0; s < m_services.size(); ++s) {
        if (isExpanded[s]) continue;
        serviceNode[s] = static_cast<std::uint32_t>(g.nodes.size());
        ServiceGraphNode node;
        node.service = m_services[s];
        node.requests = m_serviceRequests[s];
        g.nodes.push_back(std::move(node));
    }
    for (std::size_t o = 0; o < m_ops.size(); ++o) {
        const Op& op = m_ops[o];
        if (serviceNode[op.service] != kNone) {
            ServiceGraphNode& node = g.nodes[serviceNode[op.service]];
            node.spans += op.spans;
            ++node.operations;
        }
    }
    for (std::size_t s = 0; s < m_services.size(); ++s) {
        if (!isExpanded[s]) continue;
        for (std::size_t o = 0; o < m_ops.size(); ++o) {
            const Op& op = m_ops[o];
            if (op.service != s) continue;
            opNode[o] = static_cast<std::uint32_t>(g.nodes.size());
            g.nodes.push_back({m_services[s], op.operation, op.spans, op.requests, 1});
        }
    }
    auto nodeOf = [&](std::uint32_t op) { return opNode[op] != kNone ? opNode[op] : serviceNode[m_ops[op].service]; };

    // Merge edges that land on the same pair of nodes; percentiles over the merged durations.
    struct Merged {
        std::vector<TimeNs> waited, callee, hops;
    };
    std::map<std::tuple<std::uint32_t, std::uint32_t, bool>, Merged> merged;
    for (const OpEdge& e : m_edges) {
        const bool serviceExpanded = isExpanded[m_ops[e.from].service];
        if (!e.call && !serviceExpanded) continue;  // nesting inside a collapsed service
        Merged& m = merged[std::make_tuple(nodeOf(e.from), nodeOf(e.to), !e.call)];
        m.waited.insert(m.waited.end(), e.durations.begin(), e.durations.end());
        m.callee.insert(m.callee.end(), e.callee.begin(), e.callee.end());
        m.hops.insert(m.hops.end(), e.hops.begin(), e.hops.end());
    }
    for (auto& [key, m] : merged) {
        ServiceGraphEdge edge;
        edge.from = std::get<0>(key);
        edge.to = std::get<1>(key);
        edge.nesting = std::get<2>(key);
        edge.calls = static_cast<std::int64_t>(m.waited.size());
        edge.p50Ns = percentileNs(m.waited, 50);
        edge.p99Ns = percentileNs(m.waited, 99);
        edge.maxNs = *std::max_element(m.waited.begin(), m.waited.end());
        edge.calleeP50Ns = percentileNs(m.callee, 50);
        edge.calleeP99Ns = percentileNs(m.callee, 99);
        edge.hopCalls = static_cast<std::int64_t>(m.hops.size());
        edge.hopP50Ns = percentileNs(m.hops, 50);
        edge.hopP99Ns = percentileNs(m.hops, 99);
        g.edges.push_back(edge);
    }
    return g;
}

Result<ServiceMap> loadServiceMap(const TraceStore& store, const CancelToken* cancel, const std::vector<RequestId>* only) {
    ServiceMap map;
    const Status status = scanSpanShapes(store, [&](RequestId id, const std::vector<SpanShape>& spans) {
        if (cancel && cancel->isCancelled()) return false;
        if (only && !std::binary_search(only->begin(), only->end(), id)) return true;
        map.add(spans);
        return true;
    });
    if (cancel && cancel->isCancelled()) return Status::error("cancelled");
    if (!status.isOk()) return status;
    return map;
}

ServiceGraph ServiceMap::operationGraph() const { return graph(std::set<std::string>(m_services.begin(), m_services.end())); }

namespace {
std::string dotQuoted(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out + "\"";
}
std::string formatMs(TimeNs ns) {
    char buffer[48];
    const double ms = nsToMs(ns);
    std::snprintf(buffer, sizeof buffer, ms >= 100 ? "%.0f ms" : ms >= 1 ? "%.1f ms" : "%.3f ms", ms);
    return buffer;
}
} // namespace

std::string serviceGraphDot(const ServiceGraph& graph) {
    std::string dot = "digraph services {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n";
    // Expanded services' operations sit in a cluster named after their service.
    std::map<std::string, std::vector<std::size_t>> clusters;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const auto& n = graph.nodes[i];
        const std::string label = (n.operation.empty() ? n.service : n.operation) + "\n" + std::to_string(n.spans) +
                                  (n.spans == 1 ? " span" : " spans");
        const std::string line = "  n" + std::to_string(i) + " [label=" + dotQuoted(label) + ", tooltip=" + dotQuoted(n.label()) + "];\n";
        if (n.operation.empty()) dot += line;
        else clusters[n.service].push_back(i);
    }
    int c = 0;
    for (const auto& [service, nodes] : clusters) {
        dot += "  subgraph cluster_" + std::to_string(c++) + " {\n    label=" + dotQuoted(service) + ";\n";
        for (const std::size_t i : nodes) {
            const auto& n = graph.nodes[i];
            dot += "    n" + std::to_string(i) + " [label=" + dotQuoted(n.operation + "\n" + std::to_string(n.spans) + " spans") +
                   ", tooltip=" + dotQuoted(n.label()) + "];\n";
        }
        dot += "  }\n";
    }
    for (const auto& e : graph.edges) {
        const std::string label = std::to_string(e.calls) + (e.nesting ? " nested" : e.calls == 1 ? " call" : " calls") + "\np50 " +
                                  formatMs(e.p50Ns) + " · p99 " + formatMs(e.p99Ns);
        dot += "  n" + std::to_string(e.from) + " -> n" + std::to_string(e.to) + " [label=" + dotQuoted(label) +
               (e.nesting ? ", style=dashed" : "") + "];\n";
    }
    return dot + "}\n";
}

} // namespace tracelight
