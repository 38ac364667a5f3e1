// The service map: textbook span trees (a chain, fan-out, nesting inside a service, client + server pairs as
// OpenTelemetry and Zipkin write them), and counts and latency percentiles on generated trees against a
// brute-force computation written independently of the map's accumulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <map>
#include <random>
#include <tuple>

#include "TestUtil.h"
#include "core/OnlineBoutiqueStore.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/ServiceMap.h"
#include "tracelight/store/Periods.h"

using namespace tracelight;

namespace {

// A span: parent index, service, operation, kind, start and end in milliseconds.
SpanRecord span(int parent, std::string service, std::string operation, std::string kind, double startMs, double endMs,
                std::string id = {}) {
    SpanRecord s;
    s.parent = parent;
    s.service = std::move(service);
    s.operation = std::move(operation);
    s.kind = std::move(kind);
    s.startNs = static_cast<TimeNs>(startMs * 1e6);
    s.endNs = static_cast<TimeNs>(endMs * 1e6);
    s.spanId = std::move(id);
    return s;
}

int nodeIndex(const ServiceGraph& g, const std::string& label) {
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
        if (g.nodes[i].label() == label) return static_cast<int>(i);
    return -1;
}

const ServiceGraphEdge* edge(const ServiceGraph& g, const std::string& from, const std::string& to) {
    const int a = nodeIndex(g, from), b = nodeIndex(g, to);
    for (const auto& e : g.edges)
        if (static_cast<int>(e.from) == a && static_cast<int>(e.to) == b) return &e;
    return nullptr;
}

std::size_t callEdges(const ServiceGraph& g) {
    return static_cast<std::size_t>(std::count_if(g.edges.begin(), g.edges.end(), [](const auto& e) { return !e.nesting; }));
}

} // namespace

TEST(ServiceMap, ChainOfClientServerPairsIsOneCallPerHop) {
    // OpenTelemetry: frontend's handler makes a client span whose child is cart's server span, which calls redis.
    RequestSpans r = {span(-1, "frontend", "GET /cart", "server", 0, 100),
                      span(0, "frontend", "CartService/GetCart", "client", 10, 60),
                      span(1, "cart", "CartService/GetCart", "server", 12, 58),
                      span(2, "cart", "HGET", "client", 20, 50),
                      span(3, "redis", "HGET", "server", 21, 49)};
    ServiceMap map;
    map.add(r);
    const ServiceGraph g = map.graph();
    ASSERT_EQ(g.nodes.size(), 3u);
    EXPECT_EQ(g.nodes[0].service, "frontend");
    EXPECT_EQ(g.nodes[0].spans, 2);
    EXPECT_EQ(g.nodes[0].operations, 2);
    EXPECT_EQ(g.nodes[1].spans, 2);
    EXPECT_EQ(g.nodes[2].spans, 1);
    ASSERT_EQ(g.edges.size(), 2u);  // no edge for the nesting inside frontend or cart
    const auto* fc = edge(g, "frontend", "cart");
    ASSERT_NE(fc, nullptr);
    EXPECT_EQ(fc->calls, 1);
    EXPECT_EQ(fc->p50Ns, 50'000'000);  // the client span: what frontend waited
    const auto* cr = edge(g, "cart", "redis");
    ASSERT_NE(cr, nullptr);
    EXPECT_EQ(cr->calls, 1);
    EXPECT_EQ(cr->p99Ns, 30'000'000);
    EXPECT_EQ(edge(g, "frontend", "redis"), nullptr);
}

TEST(ServiceMap, FanOutWithoutClientSpansUsesTheCalleeDuration) {
    // The root's children are server spans of three services (no client spans recorded), one of them twice.
    RequestSpans r = {span(-1, "api", "handle", "server", 0, 100), span(0, "auth", "check", "server", 1, 5),
                      span(0, "feed", "fetch", "server", 5, 45), span(0, "ads", "fetch", "", 5, 25),
                      span(0, "feed", "fetch", "server", 50, 60)};
    ServiceMap map;
    map.add(r);
    const ServiceGraph g = map.graph();
    ASSERT_EQ(g.nodes.size(), 4u);
    ASSERT_EQ(g.edges.size(), 3u);
    EXPECT_EQ(edge(g, "api", "auth")->calls, 1);
    EXPECT_EQ(edge(g, "api", "ads")->p50Ns, 20'000'000);
    const auto* feed = edge(g, "api", "feed");
    EXPECT_EQ(feed->calls, 2);
    EXPECT_EQ(feed->p50Ns, 10'000'000);  // nearest rank of {10, 40} ms
    EXPECT_EQ(feed->p99Ns, 40'000'000);
    EXPECT_EQ(feed->maxNs, 40'000'000);
}

TEST(ServiceMap, NestingInsideAServiceIsNoCallButASelfRpcIsASelfLoop) {
    RequestSpans r = {span(-1, "api", "handle", "server", 0, 100), span(0, "api", "render", "internal", 10, 20),
                      span(1, "api", "template", "internal", 11, 19),
                      // api calls itself over the wire: a client span whose child is api's own server span.
                      span(0, "api", "GET /internal", "client", 30, 60), span(3, "api", "GET /internal", "server", 32, 58)};
    ServiceMap map;
    map.add(r);
    const ServiceGraph g = map.graph();
    ASSERT_EQ(g.nodes.size(), 1u);
    ASSERT_EQ(g.edges.size(), 1u);
    EXPECT_EQ(g.edges[0].from, 0u);
    EXPECT_EQ(g.edges[0].to, 0u);
    EXPECT_EQ(g.edges[0].calls, 1);
    EXPECT_EQ(g.edges[0].p50Ns, 30'000'000);
    EXPECT_FALSE(g.edges[0].nesting);
    // Expanded, the nesting shows as operation edges inside api, and the self call joins two operations.
    const ServiceGraph ops = map.graph({"api"});
    ASSERT_EQ(ops.nodes.size(), 5u - 1u);  // handle, render, template, GET /internal (client and server: one operation)
    const auto* nested = edge(ops, "api:handle", "api:render");
    ASSERT_NE(nested, nullptr);
    EXPECT_TRUE(nested->nesting);
    EXPECT_TRUE(edge(ops, "api:render", "api:template")->nesting);
    const auto* self = edge(ops, "api:GET /internal", "api:GET /internal");
    ASSERT_NE(self, nullptr);
    EXPECT_FALSE(self->nesting);
    EXPECT_EQ(callEdges(ops), 1u);
}

TEST(ServiceMap, ZipkinSharedSpanIdIsOneCall) {
    // Zipkin: the client and server halves share span id b; the importer makes the server half a child of the
    // client half (its children hang under the server half).
    RequestSpans r = {span(-1, "web", "get /", "server", 0, 80, "a"), span(0, "web", "get /user", "client", 10, 70, "b"),
                      span(1, "users", "get /user", "server", 15, 65, "b"), span(2, "users", "query", "client", 20, 40, "c")};
    ServiceMap map;
    map.add(r);
    map.add(r);
    const ServiceGraph g = map.graph();
    ASSERT_EQ(g.edges.size(), 1u);
    EXPECT_EQ(edge(g, "web", "users")->calls, 2);  // one per request, not one per half
    EXPECT_EQ(edge(g, "web", "users")->p50Ns, 60'000'000);
    EXPECT_EQ(g.requests, 2);
    EXPECT_EQ(g.nodes[nodeIndex(g, "users")].requests, 2);
    EXPECT_EQ(g.nodes[nodeIndex(g, "users")].spans, 4);
}

TEST(ServiceMap, ExpandingOneServiceKeepsTheOthersCollapsedAndMergesTheirEdges) {
    RequestSpans r = {span(-1, "frontend", "home", "server", 0, 100), span(0, "frontend", "getCart", "client", 1, 11),
                      span(1, "cart", "GetCart", "server", 2, 10), span(0, "frontend", "getAds", "client", 20, 40),
                      span(3, "ads", "GetAds", "server", 21, 39), span(0, "frontend", "getCart", "client", 50, 54),
                      span(5, "cart", "GetCart", "server", 51, 53), span(5 + 1, "cart", "EmptyCart", "internal", 51, 52)};
    ServiceMap map;
    map.add(r);
    const ServiceGraph collapsed = map.graph();
    EXPECT_EQ(collapsed.nodes.size(), 3u);
    EXPECT_EQ(edge(collapsed, "frontend", "cart")->calls, 2);

    const ServiceGraph expanded = map.graph({"frontend"});
    // cart and ads stay one node each; frontend is its three operations.
    EXPECT_EQ(expanded.nodes.size(), 2u + 3u);
    EXPECT_NE(nodeIndex(expanded, "cart"), -1);
    EXPECT_EQ(nodeIndex(expanded, "frontend"), -1);
    EXPECT_EQ(edge(expanded, "frontend:getCart", "cart")->calls, 2);
    EXPECT_EQ(edge(expanded, "frontend:getCart", "cart")->p99Ns, 10'000'000);
    EXPECT_EQ(edge(expanded, "frontend:getAds", "ads")->calls, 1);
    EXPECT_TRUE(edge(expanded, "frontend:home", "frontend:getCart")->nesting);
    EXPECT_EQ(edge(expanded, "frontend:home", "frontend:getCart")->calls, 2);
    // cart's own nesting (GetCart -> EmptyCart) stays hidden while cart is collapsed.
    EXPECT_EQ(expanded.edges.size(), 2u + 2u);

    const ServiceGraph all = map.operationGraph();
    EXPECT_EQ(all.nodes.size(), map.operationCount());
    EXPECT_TRUE(edge(all, "cart:GetCart", "cart:EmptyCart")->nesting);
    EXPECT_EQ(edge(all, "frontend:getCart", "cart:GetCart")->calls, 2);
}

TEST(ServiceMap, DotNamesEveryServiceAndCall) {
    RequestSpans r = {span(-1, "front \"end\"", "home", "server", 0, 10), span(0, "cart", "GetCart", "server", 1, 3)};
    ServiceMap map;
    map.add(r);
    const std::string dot = serviceGraphDot(map.graph());
    EXPECT_NE(dot.find("digraph"), std::string::npos);
    EXPECT_NE(dot.find("front \\\"end\\\"\\n1 span"), std::string::npos) << dot;
    EXPECT_NE(dot.find("n0 -> n1 [label=\"1 call\\np50 2.0 ms"), std::string::npos) << dot;
    const std::string expanded = serviceGraphDot(map.graph({"cart"}));
    EXPECT_NE(expanded.find("subgraph cluster_0"), std::string::npos) << expanded;
}

TEST(ServiceMap, CountsAndPercentilesAgreeWithBruteForceOnGeneratedTrees) {
    std::mt19937_64 rng(11);
    const std::vector<std::string> services = {"gw", "users", "cart", "db", "cache", "ads"};
    const std::vector<std::string> kinds = {"client", "server", "internal", "", "producer", "consumer"};
    std::vector<RequestSpans> requests;
    for (int r = 0; r < 300; ++r) {
        RequestSpans spans;
        const int n = 1 + static_cast<int>(rng() % 40);
        for (int i = 0; i < n; ++i) {
            const int parent = i == 0 ? -1 : static_cast<int>(rng() % static_cast<std::uint64_t>(i));
            const auto& service = services[rng() % services.size()];
            const double start = double(rng() % 1000), length = double(rng() % 5000) / 7.0;
            spans.push_back(span(parent, service, "op" + std::to_string(rng() % 4), kinds[rng() % kinds.size()], start, start + length));
        }
        requests.push_back(std::move(spans));
    }
    ServiceMap map;
    for (const auto& r : requests) map.add(r);
    const ServiceGraph g = map.graph();

    // Brute force: every (span, parent) pair, judged on its own, into a list per (caller, callee) service pair.
    std::map<std::pair<std::string, std::string>, std::vector<TimeNs>> expected, expectedCallee, expectedHop;
    std::map<std::string, std::int64_t> spansPerService;
    for (const auto& r : requests)
        for (const auto& s : r) {
            ++spansPerService[s.service];
            if (s.parent < 0) continue;
            const auto& p = r[static_cast<std::size_t>(s.parent)];
            // A parent has work of its own in its service when one of its children runs there.
            const bool local = std::any_of(r.begin(), r.end(), [&](const SpanRecord& c) {
                return c.parent == s.parent && c.service == p.service;
            });
            const bool pCaller = p.kind == "client" || p.kind == "producer";
            const bool sCallee = s.kind == "server" || s.kind == "consumer";
            if (p.service == s.service && !(pCaller && sCallee)) continue;
            const bool pClient = pCaller || (p.kind.empty() && p.service != s.service && !local);
            expected[{p.service, s.service}].push_back(pClient ? p.endNs - p.startNs : s.endNs - s.startNs);
            // The callee's own span, and the hop: what the client span waited beyond it.
            expectedCallee[{p.service, s.service}].push_back(s.endNs - s.startNs);
            if (pClient) expectedHop[{p.service, s.service}].push_back(std::max<TimeNs>(0, (p.endNs - p.startNs) - (s.endNs - s.startNs)));
        }
    ASSERT_EQ(g.edges.size(), expected.size());
    for (auto& [pair, durations] : expected) {
        const auto* e = edge(g, pair.first, pair.second);
        ASSERT_NE(e, nullptr) << pair.first << " -> " << pair.second;
        std::sort(durations.begin(), durations.end());
        const auto n = durations.size();
        auto at = [&](double p) { return durations[static_cast<std::size_t>(std::max(1.0, std::ceil(p * double(n))) - 1)]; };
        EXPECT_EQ(e->calls, static_cast<std::int64_t>(n));
        EXPECT_EQ(e->p50Ns, at(0.5)) << pair.first << " -> " << pair.second;
        EXPECT_EQ(e->p99Ns, at(0.99)) << pair.first << " -> " << pair.second;
        EXPECT_EQ(e->maxNs, durations.back());
        auto nearest = [](std::vector<TimeNs> v, double p) {
            std::sort(v.begin(), v.end());
            return v.empty() ? TimeNs(0) : v[static_cast<std::size_t>(std::max(1.0, std::ceil(p * double(v.size()))) - 1)];
        };
        EXPECT_EQ(e->calleeP50Ns, nearest(expectedCallee[pair], 0.5)) << pair.first << " -> " << pair.second;
        EXPECT_EQ(e->calleeP99Ns, nearest(expectedCallee[pair], 0.99)) << pair.first << " -> " << pair.second;
        EXPECT_EQ(e->hopCalls, static_cast<std::int64_t>(expectedHop[pair].size())) << pair.first << " -> " << pair.second;
        EXPECT_EQ(e->hopP50Ns, nearest(expectedHop[pair], 0.5)) << pair.first << " -> " << pair.second;
        EXPECT_EQ(e->hopP99Ns, nearest(expectedHop[pair], 0.99)) << pair.first << " -> " << pair.second;
    }
    for (const auto& node : g.nodes) EXPECT_EQ(node.spans, spansPerService[node.service]) << node.service;

    // The operation graph holds every parent link exactly once; collapsing every service gives back the map.
    const ServiceGraph ops = map.operationGraph();
    std::int64_t links = 0, linksSeen = 0;
    for (const auto& r : requests)
        for (const auto& s : r) links += s.parent >= 0;
    for (const auto& e : ops.edges) linksSeen += e.calls;
    EXPECT_EQ(linksSeen, links);
}

TEST(ServiceMap, AParentWithoutKindWhoseChildrenAreAllRemoteIsTheClientSpan) {
    // Online Boutique's spans table has no kind: frontend's client span is the parent of the callee's server
    // span, named as it or with the server's "grpc." prefix.
    RequestSpans r = {span(-1, "frontend", "hipstershop.Frontend/Recv.", "", 0, 100),
                      span(0, "frontend", "hipstershop.CurrencyService/Convert", "", 10, 30),
                      span(1, "currencyservice", "grpc.hipstershop.CurrencyService/Convert", "", 12, 20),
                      span(0, "adservice", "hipstershop.AdService/GetAds", "", 40, 50)};
    ServiceMap map;
    map.add(r);
    const ServiceGraph g = map.graph();
    EXPECT_EQ(edge(g, "frontend", "currencyservice")->p50Ns, 20'000'000);  // what frontend waited
    EXPECT_EQ(edge(g, "frontend", "adservice")->p50Ns, 10'000'000);  // its parent has work of its own: the callee's span
}

// The currencyservice network delay: the edge frontend → currencyservice reads what frontend's client spans
// waited (their p50, from the file), not the currencyservice server spans.
TEST(ServiceMap, OnlineBoutiqueEdgeIsWhatTheCallerWaited) {
    const std::string dir = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/nezha-onlineboutique/";
    if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no " << dir;
    const std::vector<std::string> files = {dir + "normal/2022-08-23_17_00_trace.csv", dir + "fault/05_27_trace.csv",
                                            dir + "fault/05_28_trace.csv"};
    test::ScratchDir scratch;
    auto store = TraceStore::open(scratch.file("ob.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    ImportOptions options;
    options.inputs = files;
    ASSERT_TRUE(importTraces(*store.value(), options));
    auto map = loadServiceMap(*store.value());
    ASSERT_TRUE(map) << map.message();
    // From the files: each frontend span with a currencyservice child, its duration (µs) once.
    std::map<std::pair<std::string, std::string>, std::pair<std::string, TimeNs>> spans;  // (trace, span) -> service, ns
    std::vector<std::array<std::string, 3>> links;                                        // trace, parent, service
    for (const auto& file : files) {
        std::ifstream in(file);
        std::string line;
        std::getline(in, line);
        while (std::getline(in, line)) {
            std::vector<std::string> f;
            std::stringstream fields(line);
            for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
            ASSERT_GE(f.size(), 8u) << line;
            std::string service = f[3];
            for (int k = 0; k < 2; ++k) service = service.substr(0, service.rfind('-'));
            spans[{f[0], f[1]}] = {service, std::stoll(f[7]) * 1000};
            links.push_back({f[0], f[2], service});
        }
    }
    std::set<std::pair<std::string, std::string>> clients;
    std::vector<TimeNs> waited;
    for (const auto& [trace, parent, service] : links) {
        const auto p = spans.find({trace, parent});
        if (service == "currencyservice" && p != spans.end() && p->second.first == "frontend" && clients.insert({trace, parent}).second)
            waited.push_back(p->second.second);
    }
    ASSERT_GT(waited.size(), 1000u);
    const TimeNs expected = percentileNs(waited, 50);
    const ServiceGraph graph = map->graph();
    const auto* e = edge(graph, "frontend", "currencyservice");
    ASSERT_NE(e, nullptr);
    EXPECT_NEAR(double(e->p50Ns), double(expected), 0.05 * double(expected));
    // The injected network delay is in the hop, not in currencyservice's own spans.
    EXPECT_EQ(e->hopCalls, e->calls);
    EXPECT_GT(e->hopP50Ns, 10 * e->calleeP50Ns);
    EXPECT_LT(e->calleeP50Ns, e->p50Ns / 10);
}

TEST(ServiceMap, OnlineBoutiqueNormalMinuteHasOneNodePerServiceAndTheFrontendsCalls) {
    const std::string csv = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/nezha-onlineboutique/normal/2022-08-23_17_00_trace.csv";
    if (!std::filesystem::exists(csv)) GTEST_SKIP() << "no " << csv;
    test::ScratchDir dir;
    auto store = TraceStore::open(dir.file("ob.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.message();
    ImportOptions options;
    options.inputs = {csv};
    auto imported = importTraces(*store.value(), options);
    ASSERT_TRUE(imported) << imported.message();
    auto map = loadServiceMap(*store.value());
    ASSERT_TRUE(map) << map.message();

    // Independently, from the file: a pod's service is its name without the deployment's two generated
    // suffixes (frontend-579b9bff58-t2dbm); a call is a span whose parent ran in another service.
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    std::map<std::pair<std::string, std::string>, std::string> serviceOf;  // (trace, span) -> service
    std::vector<std::array<std::string, 3>> rows;                          // trace, parent, service
    std::set<std::string> services;
    while (std::getline(in, line)) {
        std::stringstream fields(line);
        std::string trace, span, parent, pod;
        std::getline(fields, trace, ',');
        std::getline(fields, span, ',');
        std::getline(fields, parent, ',');
        std::getline(fields, pod, ',');
        std::string service = pod;
        for (int k = 0; k < 2; ++k) service = service.substr(0, service.rfind('-'));
        serviceOf[{trace, span}] = service;
        rows.push_back({trace, parent, service});
        services.insert(service);
    }
    std::map<std::pair<std::string, std::string>, std::int64_t> calls;
    for (const auto& [trace, parent, service] : rows) {
        const auto p = serviceOf.find({trace, parent});
        if (p != serviceOf.end() && p->second != service) ++calls[{p->second, service}];
    }

    const ServiceGraph g = map->graph();
    std::set<std::string> nodes;
    for (const auto& n : g.nodes) nodes.insert(n.service);
    EXPECT_EQ(nodes.size(), g.nodes.size());  // one node per service
    EXPECT_EQ(nodes, services);
    EXPECT_EQ(nodes.size(), 10u);
    for (const auto& n : g.nodes) EXPECT_EQ(n.service.find("-"), std::string::npos) << n.service;  // no pod hashes
    ASSERT_EQ(g.edges.size(), calls.size());
    for (const auto& [pair, count] : calls) {
        const auto* e = edge(g, pair.first, pair.second);
        ASSERT_NE(e, nullptr) << pair.first << " -> " << pair.second;
        EXPECT_EQ(e->calls, count) << pair.first << " -> " << pair.second;
        EXPECT_GT(e->p50Ns, 0);
        EXPECT_LE(e->p50Ns, e->p99Ns);
    }
    // The frontend calls seven services, most often the product catalogue.
    int frontendCallees = 0;
    for (const auto& e : g.edges) frontendCallees += g.nodes[e.from].service == "frontend";
    EXPECT_EQ(frontendCallees, 7);
    const auto catalogue = std::make_pair(std::string("frontend"), std::string("productcatalogservice"));
    EXPECT_EQ(edge(g, catalogue.first, catalogue.second)->calls, calls[catalogue]);
    EXPECT_GT(edge(g, "frontend", "productcatalogservice")->calls, 1000);
}

// A map of some requests (the app's current scope) counts just their calls: two halves add up to the whole.
TEST(ServiceMap, AMapOfSomeRequestsCountsOnlyTheirCalls) {
    if (!test::haveOnlineBoutique()) GTEST_SKIP() << "no " << test::kOnlineBoutique;
    test::ScratchDir dir;
    auto store = test::onlineBoutiqueStore(dir.file("ob.tldb"), {{"normal", {test::kObNormalMinute}}}, false);
    ASSERT_TRUE(store);
    const std::vector<RequestId> all = requestsInPeriod(*store, "normal");
    std::vector<RequestId> halves[2];
    for (std::size_t i = 0; i < all.size(); ++i) halves[i % 2].push_back(all[i]);
    auto whole = loadServiceMap(*store);
    auto first = loadServiceMap(*store, nullptr, &halves[0]);
    auto second = loadServiceMap(*store, nullptr, &halves[1]);
    const std::vector<RequestId> none;
    auto empty = loadServiceMap(*store, nullptr, &none);
    ASSERT_TRUE(whole && first && second && empty);
    EXPECT_TRUE(empty->graph().edges.empty());
    const ServiceGraph g = whole->graph(), a = first->graph(), b = second->graph();
    ASSERT_FALSE(g.edges.empty());
    for (const auto& e : g.edges) {
        const std::string& from = g.nodes[static_cast<std::size_t>(e.from)].service;
        const std::string& to = g.nodes[static_cast<std::size_t>(e.to)].service;
        const auto* ea = edge(a, from, to);
        const auto* eb = edge(b, from, to);
        EXPECT_EQ((ea ? ea->calls : 0) + (eb ? eb->calls : 0), e.calls) << from << " -> " << to;
        if (e.calls >= 20) EXPECT_TRUE(ea && eb && ea->calls < e.calls) << from << " -> " << to;
    }
}

TEST(ServiceMap, PercentileIsNearestRank) {
    EXPECT_EQ(percentileNs({}, 50), 0);
    EXPECT_EQ(percentileNs({7}, 99), 7);
    EXPECT_EQ(percentileNs({4, 1, 3, 2}, 50), 2);
    EXPECT_EQ(percentileNs({4, 1, 3, 2}, 75), 3);
    EXPECT_EQ(percentileNs({4, 1, 3, 2}, 100), 4);
    std::vector<TimeNs> hundred(100);
    for (int i = 0; i < 100; ++i) hundred[static_cast<std::size_t>(i)] = 100 - i;
    EXPECT_EQ(percentileNs(hundred, 99), 99);
}
