#pragma once
// The service map of span data: services as nodes, calls between them as edges with counts and latency
// percentiles, and under it the operation graph (service:operation nodes, parent → child span edges) that a
// view expands one service at a time. Computed from the requests' span records (as the input stated them);
// event logs have none, and give an empty map.
//
// What counts as a call (decided here, once, for every view and the CLI):
//  * A span whose parent is in another service is one call from the parent's service to the span's. A client
//    span and its server child (OpenTelemetry: the client span's child is the server span; Zipkin: the two
//    halves share one span id) are two spans but ONE call: the client span is in the caller's service and its
//    parent is too, so only the client → server link crosses services.
//  * Nesting inside one service (an internal span under a server span, a client span under its handler) is
//    not a call: it is an edge of the operation graph, drawn only when that service is expanded.
//  * A service calling itself over the wire — a server (or consumer) span whose parent is a client (or
//    producer) span of the same service — is a call: a self-loop on the service.
//  * A call's latency is what the caller waited: the client span's duration when the call has one, else the
//    callee span's duration (no client span was recorded). A parent without a kind whose children all run in
//    other services is taken for the client span (spans tables without a kind column).
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "tracelight/base/Ids.h"
#include "tracelight/base/Progress.h"
#include "tracelight/base/Status.h"
#include "tracelight/base/Time.h"
#include "tracelight/store/SpanRecords.h"

namespace tracelight {

class TraceStore;

struct ServiceGraphNode {
    std::string service;
    std::string operation;        // empty: the whole service (a collapsed cluster)
    std::int64_t spans = 0;       // spans of this service (or operation)
    std::int64_t requests = 0;    // requests with at least one such span
    std::int64_t operations = 0;  // a service's distinct operations (1 for an operation node)
    std::string label() const { return operation.empty() ? service : service + ":" + operation; }
};

struct ServiceGraphEdge {
    std::uint32_t from = 0, to = 0;  // node indices; from == to is a self-loop
    std::int64_t calls = 0;
    TimeNs p50Ns = 0, p99Ns = 0, maxNs = 0;  // of what the caller waited (nearest rank)
    // One model of a call: the callee's work (its server span) and, for calls made from a client span, the hop
    // between the two (the client span's time the server span does not cover: network, queues).
    TimeNs calleeP50Ns = 0, calleeP99Ns = 0;
    std::int64_t hopCalls = 0;  // calls with a client span, which the hop's percentiles cover
    TimeNs hopP50Ns = 0, hopP99Ns = 0;
    bool nesting = false;  // an operation → operation edge inside one service, not a call
};

struct ServiceGraph {
    std::vector<ServiceGraphNode> nodes;
    std::vector<ServiceGraphEdge> edges;
    std::int64_t requests = 0;
};

// Everything the map needs, accumulated request by request (durations kept per operation edge, so any
// merge of edges gives exact percentiles).
class ServiceMap {
public:
    void add(std::span<const SpanShape> spans);
    void add(const RequestSpans& spans);
    std::int64_t requests() const { return m_requests; }
    std::int64_t spans() const { return m_spans; }
    const std::vector<std::string>& services() const { return m_services; }  // in order of first appearance
    std::size_t operationCount() const { return m_ops.size(); }

    // The graph with the given services expanded into their operations (the others are one node each).
    // Nodes: collapsed services in order of first appearance, then the expanded services' operations.
    ServiceGraph graph(const std::set<std::string>& expanded = {}) const;
    // Every service expanded: the operation graph.
    ServiceGraph operationGraph() const;

private:
    struct Op {
        std::uint32_t service;
        std::string operation;
        std::int64_t spans = 0, requests = 0, lastRequest = -1;
    };
    struct OpEdge {
        std::uint32_t from, to;
        bool call;                     // a call (crosses services, or a self-RPC); else nesting
        std::vector<TimeNs> durations;  // one per call / per nested span: what the caller waited
        std::vector<TimeNs> callee;     // one per call: the callee's own span
        std::vector<TimeNs> hops;       // one per call made from a client span: its time the callee's span leaves
    };
    std::uint32_t serviceIndex(std::string_view service);
    std::uint32_t opIndex(std::uint32_t service, std::string_view operation);

    std::vector<std::string> m_services;
    std::vector<std::int64_t> m_serviceRequests, m_serviceLastRequest;
    std::vector<Op> m_ops;
    std::vector<OpEdge> m_edges;
    std::int64_t m_requests = 0, m_spans = 0;
    std::map<std::string, std::uint32_t, std::less<>> m_serviceByName;
    std::map<std::pair<std::uint32_t, std::string>, std::uint32_t> m_opByName;
    std::map<std::tuple<std::uint32_t, std::uint32_t, bool>, std::uint32_t> m_edgeByKey;
};

// Nearest-rank percentile (p in [0, 100]) of unsorted values; 0 for none.
TimeNs percentileNs(std::vector<TimeNs> values, double p);

// Every request's span shapes in the store, in one scan (event logs: an empty map). Cancelled: the status
// "cancelled".
// only: the requests to count, sorted by id (null: every request), so the map covers the current scope.
Result<ServiceMap> loadServiceMap(const TraceStore& store, const CancelToken* cancel = nullptr, const std::vector<RequestId>* only = nullptr);

// The graph as Graphviz DOT (nodes labelled with span counts, edges with calls and p50 / p99).
std::string serviceGraphDot(const ServiceGraph& graph);

} // namespace tracelight
