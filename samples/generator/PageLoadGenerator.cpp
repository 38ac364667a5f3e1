#include "PageLoadGenerator.h"

#include "generator/SplitMix.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>

namespace tracelight::samples {

namespace {

// ---- static vocabulary ---------------------------------------------------------------------
enum Task : std::uint16_t {
    Page, FetchFeed, FetchFriends, FetchAds, PageletFeed, PageletFriends, PageletAds, JsCore, JsChat, ShowFeed, ShowFriends,
    ShowAds, TaskCount
};
enum Event : std::uint16_t {
    NAV_START, SRV_RECV, SESSION_GET, SESSION_OK, SESSION_DONE, SRV_FORK, HEAD_DONE, HEAD_RECV, HEAD_PARSED,
    W_START, CACHE_CALL, CACHE_GET, CACHE_MISS, CACHE_REPLY, CACHE_DONE, W_DONE,
    GEN_BEGIN, GEN_END, SHOW_BEGIN, SHOW_END, JS_BEGIN, JS_END, ARRIVE
};

constexpr std::uint32_t kWebHosts = 8;
constexpr std::uint32_t kCacheHosts = 6;
constexpr std::uint32_t kFirstClientHost = kWebHosts + kCacheHosts;
constexpr int kPagelets = 3;  // feed, friends, ads: one fetch task and one pagelet task each

struct PageletSpec {
    Task fetch, pagelet, show;
    double prepUs, missRate, fillUs, processUs, genUs, showUs, byteShare;
};
constexpr PageletSpec kPageletSpecs[kPagelets] = {
    {FetchFeed, PageletFeed, ShowFeed, 1000, 0.12, 35000, 10000, 9000, 18000, 0.45},
    {FetchFriends, PageletFriends, ShowFriends, 500, 0.06, 20000, 4000, 3500, 7000, 0.15},
    {FetchAds, PageletAds, ShowAds, 1500, 0.20, 25000, 6000, 5000, 9000, 0.25},
};

struct Browser { const char* name; double weight; double jsFactor; };
constexpr Browser kBrowsers[] = {{"Chrome", 0.55, 1.0}, {"Safari", 0.20, 1.1}, {"Firefox", 0.15, 1.2},
                                 {"Edge", 0.07, 1.3}, {"IE", 0.03, 2.5}};
struct Os { const char* name; double weight; double cpuFactor; };
constexpr Os kOses[] = {{"Windows", 0.45, 1.0}, {"macOS", 0.15, 0.9}, {"Linux", 0.05, 0.95},
                        {"Android", 0.25, 1.6}, {"iOS", 0.10, 1.3}};
struct Connection { const char* name; double weight; double oneWayUs; double bytesPerUs; };
constexpr Connection kConnections[] = {{"fiber", 0.20, 5000, 12.5}, {"cable", 0.35, 12000, 6.25},
                                       {"dsl", 0.20, 25000, 1.25}, {"4g", 0.20, 40000, 1.0},
                                       {"3g", 0.05, 120000, 0.125}};

class Random {
public:
    explicit Random(std::uint64_t seed) : m_engine(splitmix(seed)) {}
    double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(m_engine); }
    std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(m_engine() % n); }
    std::mt19937_64& engine() { return m_engine; }
    // A positive duration around meanUs (the lognormal's mean), in nanoseconds (so with a sub-microsecond
    // part, as real clocks give), at least 1 us.
    std::int64_t around(double meanUs, double sigma) {
        const double z = std::normal_distribution<double>(0.0, 1.0)(m_engine);
        return std::max<std::int64_t>(1000, std::llround(1000.0 * meanUs * std::exp(sigma * z - sigma * sigma / 2)));
    }
    // Tail events (a GC pause, lock contention, a TCP retransmit): now and then a step takes far longer.
    // They are what lets inference refute orderings that merely tend to hold.
    std::int64_t stall(double probability = 0.02) {
        return uniform() < probability ? 20000000 + static_cast<std::int64_t>(uniform() * 280e6) : 0;  // 20-300 ms
    }
    // A small wait between a dependency finishing and the dependent starting (thread hand-off), in ns.
    std::int64_t dispatch(double meanUs = 60) {
        return 20000 + std::llround(1000.0 * std::exponential_distribution<double>(1.0 / meanUs)(m_engine));
    }
    template <typename T, std::size_t N>
    const T& pick(const T (&choices)[N]) {
        double r = uniform();
        for (const auto& c : choices) {
            if (r < c.weight) return c;
            r -= c.weight;
        }
        return choices[N - 1];
    }

private:
    std::mt19937_64 m_engine;
};

// Appends events task by task, creating the segment between consecutive events of a task and the
// task-order edge between its consecutive segments.
class RequestBuilder {
public:
    explicit RequestBuilder(GeneratedRequest& r) : m_r(r) {}

    // Returns the index of the segment this event closes, or -1 for a task's first event.
    int emit(Task task, std::uint32_t host, Event event, std::int64_t t) {
        TaskState& s = m_tasks[task];
        GenEvent e{host, task, event, ++s.seq, t};
        int segment = -1;
        if (s.seq > 1) {
            const GenEvent& prev = m_r.events[s.lastEvent];
            m_r.segments.push_back({task, prev.event, event, prev.trueNs, t, prev.host != host});
            segment = static_cast<int>(m_r.segments.size()) - 1;
            if (s.lastSegment >= 0) m_r.edges.emplace_back(s.lastSegment, segment);
            if (s.firstSegment < 0) s.firstSegment = segment;
            s.lastSegment = segment;
        }
        s.lastEvent = static_cast<int>(m_r.events.size());
        m_r.events.push_back(e);
        return segment;
    }
    int firstSegment(Task task) const { return m_tasks[task].firstSegment; }
    int lastSegment(Task task) const { return m_tasks[task].lastSegment; }
    void edge(int from, int to) { m_r.edges.emplace_back(from, to); }

private:
    struct TaskState {
        std::uint16_t seq = 0;
        int lastEvent = -1;
        int firstSegment = -1;
        int lastSegment = -1;
    };
    GeneratedRequest& m_r;
    std::array<TaskState, TaskCount> m_tasks{};
};

} // namespace

const std::vector<std::string_view>& PageLoadGenerator::taskNames() {
    static const std::vector<std::string_view> names = {"page", "fetch-feed", "fetch-friends", "fetch-ads",
                                                        "pagelet-feed", "pagelet-friends", "pagelet-ads",
                                                        "js-core", "js-chat", "show-feed", "show-friends", "show-ads"};
    return names;
}

const std::vector<std::string_view>& PageLoadGenerator::eventNames() {
    static const std::vector<std::string_view> names = {
        "NAV_START", "SRV_RECV", "SESSION_GET", "SESSION_OK", "SESSION_DONE", "SRV_FORK", "HEAD_DONE", "HEAD_RECV",
        "HEAD_PARSED", "W_START", "CACHE_CALL", "CACHE_GET", "CACHE_MISS", "CACHE_REPLY", "CACHE_DONE", "W_DONE",
        "GEN_BEGIN", "GEN_END", "SHOW_BEGIN", "SHOW_END", "JS_BEGIN", "JS_END", "ARRIVE"};
    return names;
}

std::string PageLoadGenerator::segmentLabel(const GenSegment& s) {
    return std::string(taskNames()[s.task]) + ":" + std::string(eventNames()[s.startEvent]) + "->" +
           std::string(eventNames()[s.endEvent]);
}

PageLoadGenerator::PageLoadGenerator(GeneratorOptions options)
    : m_options(options), m_users(options.users > 0 ? options.users : std::max<std::int64_t>(20, options.requests / 6)) {}

std::string PageLoadGenerator::hostName(std::uint32_t host) const {
    if (host < kWebHosts) return "web-" + std::to_string(host + 1);
    if (host < kFirstClientHost) return "cache-" + std::to_string(host - kWebHosts + 1);
    return "client-" + std::to_string(host - kFirstClientHost + 1);
}

std::int64_t PageLoadGenerator::clockOffsetNs(std::uint32_t host) const {
    // Clients drift up to +-5 s, data-centre hosts up to +-2 s (to the nanosecond).
    const std::uint64_t h = splitmix(m_options.seed * 0x100000001B3ull + host);
    const double unit = double(h >> 11) / double(1ull << 53) * 2.0 - 1.0;
    return std::llround(unit * (host >= kFirstClientHost ? 5e9 : 2e9));
}

GeneratedRequest PageLoadGenerator::generate(std::int64_t index) const {
    GeneratedRequest r;
    r.index = index;
    r.name = "req-" + std::to_string(index + 1);
    Random rnd(m_options.seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(index) + 1);

    // Who is loading the page: repeat visitors, each with a fixed browser, OS and usual connection.
    const double u = rnd.uniform();
    r.user = std::min<std::int64_t>(m_users - 1, static_cast<std::int64_t>(std::floor(double(m_users) * u * u)));
    Random userRnd(m_options.seed * 0xD6E8FEB86659FD93ull + static_cast<std::uint64_t>(r.user) + 7);
    const Browser& browser = userRnd.pick(kBrowsers);
    const Os& os = userRnd.pick(kOses);
    const Connection& usual = userRnd.pick(kConnections);
    const Connection& connection = rnd.uniform() < 0.1 ? rnd.pick(kConnections) : usual;
    const double clientFactor = browser.jsFactor * os.cpuFactor;
    // Users with many friends have big feeds: the server's feed work scales with it (the Mystery
    // Machine's example of natural variation in server time).
    const double friends = std::clamp(std::exp(std::log(150.0) + 0.9 * std::normal_distribution<double>(0, 1)(userRnd.engine())), 5.0, 5000.0);
    const double feedFactor = friends / 150.0;
    const std::int64_t bytes = (rnd.around(300000, 0.5) + 500) / 1000;  // around() gives thousandths
    r.attributes = {{"user", "u" + std::to_string(r.user + 1)},
                    {"browser", browser.name},
                    {"os", os.name},
                    {"connection", connection.name},
                    {"bytes", std::to_string(bytes)},
                    {"friends", std::to_string(static_cast<int>(friends))}};

    const std::uint32_t client = kFirstClientHost + static_cast<std::uint32_t>(r.user);
    const std::uint32_t web = rnd.below(kWebHosts);
    auto cacheHost = [&] { return kWebHosts + rnd.below(kCacheHosts); };
    auto oneWay = [&] { return rnd.around(connection.oneWayUs, 0.25); };           // client <-> web
    auto transfer = [&](double share) {
        return std::llround(1000.0 * double(bytes) * share / connection.bytesPerUs);
    };
    auto dcHop = [&] { return rnd.around(150, 0.3) + rnd.stall(); };                 // inside the data centre
    auto serverWork = [&](double meanUs) { return rnd.around(meanUs, 0.5) + rnd.stall(); };

    RequestBuilder b(r);
    // In nanoseconds from here on; the start's sub-microsecond part comes from a hash, not the random
    // stream, so a request draws the same durations whatever the time resolution.
    const std::int64_t t0 = 1000 * (m_options.startEpochUs + index * m_options.meanGapUs +
                                     rnd.below(static_cast<std::uint32_t>(m_options.meanGapUs / 2 + 1))) +
                            static_cast<std::int64_t>(splitmix(m_options.seed ^ (static_cast<std::uint64_t>(index) << 20)) % 1000);
    r.startNs = t0;

    // The page request: client -> web -> session cache -> web -> client (nested RPCs).
    std::int64_t t = t0;
    b.emit(Page, client, NAV_START, t);
    b.emit(Page, web, SRV_RECV, t += oneWay());
    const std::uint32_t sessionCache = cacheHost();
    b.emit(Page, sessionCache, SESSION_GET, t += dcHop());
    b.emit(Page, sessionCache, SESSION_OK, t += rnd.around(300, 0.4) + rnd.stall());
    b.emit(Page, web, SESSION_DONE, t += dcHop());
    const int forkSegment = b.emit(Page, web, SRV_FORK, t += serverWork(3000));
    const std::int64_t forkTime = t;
    b.emit(Page, web, HEAD_DONE, t += serverWork(8000));
    b.emit(Page, client, HEAD_RECV, t += oneWay() + transfer(0.15));
    const int parsedSegment = b.emit(Page, client, HEAD_PARSED, t += std::llround(double(rnd.around(15000, 0.4)) * clientFactor));
    const std::int64_t parsedTime = t;

    // Cache fetches forked by the server, then one pagelet generated per fetch.
    struct Sent { int pagelet; std::int64_t genEnd; std::int64_t arrival; };
    std::vector<Sent> sent;
    for (int p = 0; p < kPagelets; ++p) {
        const PageletSpec& spec = kPageletSpecs[p];
        const std::uint32_t cache = cacheHost();
        std::int64_t w = forkTime + rnd.dispatch();
        b.emit(spec.fetch, web, W_START, w);
        b.edge(forkSegment, b.emit(spec.fetch, web, CACHE_CALL, w += serverWork(spec.prepUs)));
        b.emit(spec.fetch, cache, CACHE_GET, w += dcHop());
        if (rnd.uniform() < spec.missRate) {
            b.emit(spec.fetch, cache, CACHE_MISS, w += rnd.around(200, 0.3) + rnd.stall());
            const double slow = p == 0 ? m_options.slowFeedMissFactor : 1.0;
            b.emit(spec.fetch, cache, CACHE_REPLY, w += rnd.around(spec.fillUs * slow, 0.6));
        } else {
            b.emit(spec.fetch, cache, CACHE_REPLY, w += rnd.around(250, 0.3) + rnd.stall());
        }
        b.emit(spec.fetch, web, CACHE_DONE, w += dcHop());
        b.emit(spec.fetch, web, W_DONE, w += serverWork(spec.processUs * (p == 0 ? feedFactor : 1.0)));
        const int fetchLast = b.lastSegment(spec.fetch);

        std::int64_t g = w + rnd.dispatch();
        b.emit(spec.pagelet, web, GEN_BEGIN, g);
        b.edge(fetchLast, b.emit(spec.pagelet, web, GEN_END, g += serverWork(spec.genUs * (p == 0 ? feedFactor : 1.0))));
        sent.push_back({p, g, g + oneWay() + transfer(spec.byteShare)});
    }
    // Pagelets travel in one ordered stream: they arrive in the order they were sent (FIFO).
    std::sort(sent.begin(), sent.end(), [](const Sent& a, const Sent& c) { return a.genEnd < c.genEnd; });
    for (std::size_t i = 1; i < sent.size(); ++i) sent[i].arrival = std::max(sent[i].arrival, sent[i - 1].arrival + 1000);
    std::array<int, kPagelets> transferSegment{};
    for (const Sent& s : sent) transferSegment[static_cast<std::size_t>(s.pagelet)] = b.emit(kPageletSpecs[s.pagelet].pagelet, client, ARRIVE, s.arrival);

    // The client's single JavaScript thread runs the JS tasks and shows pagelets, one at a time.
    struct JsItem { Task task; int pagelet; std::int64_t ready; double durationUs; };
    std::vector<JsItem> jsTasks = {{JsCore, -1, parsedTime + rnd.dispatch(), 30000 * clientFactor},
                                   {JsChat, -1, parsedTime + rnd.dispatch(), 12000 * clientFactor}};
    std::size_t nextPagelet = 0;
    std::int64_t nextPageletReady = -1;  // drawn once per pagelet
    std::int64_t threadFree = parsedTime;
    int previousJsSegment = -1;
    while (!jsTasks.empty() || nextPagelet < sent.size()) {
        // Candidates: every waiting JS task, and the next pagelet in stream order.
        std::int64_t bestReady = INT64_MAX;
        int best = -2;  // -1 = pagelet, >=0 = index in jsTasks
        for (std::size_t i = 0; i < jsTasks.size(); ++i)
            if (jsTasks[i].ready < bestReady) bestReady = jsTasks[i].ready, best = static_cast<int>(i);
        std::int64_t pageletReady = INT64_MAX;
        if (nextPagelet < sent.size()) {
            if (nextPageletReady < 0) nextPageletReady = std::max(sent[nextPagelet].arrival, parsedTime) + rnd.dispatch();
            pageletReady = nextPageletReady;
            if (pageletReady < bestReady) bestReady = pageletReady, best = -1;
        }
        const std::int64_t start = std::max(bestReady, threadFree + rnd.dispatch(30));
        int segment;
        if (best == -1) {
            const Sent& s = sent[nextPagelet++];
            nextPageletReady = -1;
            const PageletSpec& spec = kPageletSpecs[s.pagelet];
            // The pagelet arrived (the transfer is a network segment of its task); showing it is a task
            // of its own on the JavaScript thread, started once the data is in and the thread is free.
            b.emit(spec.show, client, SHOW_BEGIN, start);
            threadFree = start + std::llround(double(rnd.around(spec.showUs, 0.5)) * clientFactor);
            segment = b.emit(spec.show, client, SHOW_END, threadFree);
            b.edge(transferSegment[static_cast<std::size_t>(s.pagelet)], segment);
        } else {
            const JsItem item = jsTasks[best];
            jsTasks.erase(jsTasks.begin() + best);
            b.emit(item.task, client, JS_BEGIN, start);
            threadFree = start + std::llround(double(rnd.around(item.durationUs, 0.5)));
            segment = b.emit(item.task, client, JS_END, threadFree);
        }
        b.edge(parsedSegment, segment);
        if (previousJsSegment >= 0) b.edge(previousJsSegment, segment);  // this request's order on the JS thread
        previousJsSegment = segment;
    }

    // Events grouped by task in creation order already; latency ends at the last event.
    std::int64_t last = t0;
    for (const auto& e : r.events) last = std::max(last, e.trueNs);
    r.latencyNs = last - t0;
    computeTruth(r);
    return r;
}

namespace {

struct Dag {
    std::vector<std::vector<int>> preds, succs;
    std::vector<int> order;         // topological: by start time
    std::vector<int> lastArriving;  // per segment, -1 when it has no dependency
};

Dag buildDag(const GeneratedRequest& r) {
    const int n = static_cast<int>(r.segments.size());
    Dag d;
    d.preds.resize(n);
    d.succs.resize(n);
    for (auto [from, to] : r.edges) {
        d.preds[to].push_back(from);
        d.succs[from].push_back(to);
    }
    d.order.resize(n);
    std::iota(d.order.begin(), d.order.end(), 0);
    // A dependency ends before its dependent starts and lasts at least 1 us, so start order is topological.
    std::stable_sort(d.order.begin(), d.order.end(),
                     [&](int a, int b) { return r.segments[a].startNs < r.segments[b].startNs; });
    d.lastArriving.assign(n, -1);
    for (int v = 0; v < n; ++v)
        for (int p : d.preds[v])
            if (d.lastArriving[v] < 0 || r.segments[p].endNs > r.segments[d.lastArriving[v]].endNs) d.lastArriving[v] = p;
    return d;
}

// Earliest finish of every segment with the given durations and the request's fixed waits.
std::vector<std::int64_t> forwardPass(const GeneratedRequest& r, const Dag& d, int changed, std::int64_t delta) {
    const int n = static_cast<int>(r.segments.size());
    std::vector<std::int64_t> finish(n);
    for (int v : d.order) {
        const GenSegment& s = r.segments[v];
        std::int64_t start;
        if (d.lastArriving[v] < 0) {
            start = s.startNs;  // waits only for the request's start: fixed
        } else {
            const int l = d.lastArriving[v];
            start = finish[l] + (s.startNs - r.segments[l].endNs);  // the blind wait stays fixed
            for (int p : d.preds[v]) start = std::max(start, finish[p]);
        }
        finish[v] = start + s.durationNs() + (v == changed ? delta : 0);
    }
    return finish;
}

} // namespace

void computeTruth(GeneratedRequest& r) {
    const int n = static_cast<int>(r.segments.size());
    const Dag d = buildDag(r);
    std::int64_t end = r.startNs;
    int lastSegment = -1;
    for (int v = 0; v < n; ++v)
        if (lastSegment < 0 || r.segments[v].endNs > end) end = r.segments[v].endNs, lastSegment = v;

    // Critical path: back from the segment that ends last through each last-arriving dependency.
    r.criticalPath.clear();
    std::int64_t covered = 0;
    for (int v = lastSegment; v >= 0; v = d.lastArriving[v]) {
        r.criticalPath.push_back(v);
        covered += r.segments[v].durationNs();
    }
    std::reverse(r.criticalPath.begin(), r.criticalPath.end());
    r.blindNs = (end - r.startNs) - covered;

    // Slack: latest finish (backward pass) minus actual finish.
    std::vector<std::int64_t> latestFinish(n, end);
    for (auto it = d.order.rbegin(); it != d.order.rend(); ++it) {
        const int v = *it;
        for (int w : d.succs[v]) {
            const std::int64_t latestStartW = latestFinish[w] - r.segments[w].durationNs();
            const std::int64_t wait = d.lastArriving[w] == v ? r.segments[w].startNs - r.segments[v].endNs : 0;
            latestFinish[v] = std::min(latestFinish[v], latestStartW - wait);
        }
    }
    r.slackNs.resize(n);
    for (int v = 0; v < n; ++v) r.slackNs[v] = latestFinish[v] - r.segments[v].endNs;
}

std::int64_t PageLoadGenerator::rescheduledLatency(const GeneratedRequest& r, int segment, std::int64_t deltaNs) {
    const Dag d = buildDag(r);
    const auto finish = forwardPass(r, d, segment, deltaNs);
    return *std::max_element(finish.begin(), finish.end()) - r.startNs;
}

TrueModel PageLoadGenerator::trueModel() {
    // The static dependency graph over segment types; its transitive closure is the true happens-before set.
    std::vector<std::string> types;
    std::map<std::string, int> index;
    std::vector<std::set<int>> out;
    auto type = [&](Task task, Event a, Event b) {
        GenSegment s{task, a, b, 0, 0, false};
        const std::string label = segmentLabel(s);
        auto [it, fresh] = index.emplace(label, static_cast<int>(types.size()));
        if (fresh) {
            types.push_back(label);
            out.emplace_back();
        }
        return it->second;
    };
    auto chain = [&](std::initializer_list<int> segments) {
        const int* prev = nullptr;
        for (const int& s : segments) {
            if (prev) out[*prev].insert(s);
            prev = &s;
        }
    };
    const int pageSegments[] = {type(Page, NAV_START, SRV_RECV), type(Page, SRV_RECV, SESSION_GET),
                                type(Page, SESSION_GET, SESSION_OK), type(Page, SESSION_OK, SESSION_DONE),
                                type(Page, SESSION_DONE, SRV_FORK), type(Page, SRV_FORK, HEAD_DONE),
                                type(Page, HEAD_DONE, HEAD_RECV), type(Page, HEAD_RECV, HEAD_PARSED)};
    for (std::size_t i = 1; i < std::size(pageSegments); ++i) out[pageSegments[i - 1]].insert(pageSegments[i]);
    const int fork = pageSegments[4];
    const int parsed = pageSegments[7];

    TrueModel model;
    // The server sends pagelets in the order it finishes them and the client shows them in the order they
    // arrive: both the generation and the transfer of a pagelet keep FIFO order with its showing.
    TrueModel::Pipeline generated, transferred;
    std::vector<int> jsThread;
    for (const PageletSpec& spec : kPageletSpecs) {
        const int prep = type(spec.fetch, W_START, CACHE_CALL);
        const int call = type(spec.fetch, CACHE_CALL, CACHE_GET);
        const int hit = type(spec.fetch, CACHE_GET, CACHE_REPLY);
        const int miss = type(spec.fetch, CACHE_GET, CACHE_MISS);
        const int fill = type(spec.fetch, CACHE_MISS, CACHE_REPLY);
        const int back = type(spec.fetch, CACHE_REPLY, CACHE_DONE);
        const int process = type(spec.fetch, CACHE_DONE, W_DONE);
        out[fork].insert(prep);
        chain({prep, call, hit, back, process});
        chain({call, miss, fill, back});
        const int gen = type(spec.pagelet, GEN_BEGIN, GEN_END);
        const int send = type(spec.pagelet, GEN_END, ARRIVE);
        const int show = type(spec.show, SHOW_BEGIN, SHOW_END);
        out[process].insert(gen);
        chain({gen, send, show});
        out[parsed].insert(show);
        jsThread.push_back(show);
        generated.producers.push_back(types[gen]);
        generated.consumers.push_back(types[show]);
        transferred.producers.push_back(types[send]);
        transferred.consumers.push_back(types[show]);
    }
    for (Task js : {JsCore, JsChat}) {
        const int run = type(js, JS_BEGIN, JS_END);
        out[parsed].insert(run);
        jsThread.push_back(run);
    }
    model.segmentTypes = types;
    model.pipelines = {generated, transferred};

    for (int a = 0; a < static_cast<int>(types.size()); ++a) {
        std::vector<int> stack(out[a].begin(), out[a].end());
        std::set<int> seen;
        while (!stack.empty()) {
            const int v = stack.back();
            stack.pop_back();
            if (!seen.insert(v).second) continue;
            model.happensBefore.emplace(types[a], types[v]);
            for (int w : out[v]) stack.push_back(w);
        }
    }
    for (std::size_t i = 0; i < jsThread.size(); ++i)
        for (std::size_t j = i + 1; j < jsThread.size(); ++j)
            model.mutualExclusion.emplace(std::min(types[jsThread[i]], types[jsThread[j]]),
                                          std::max(types[jsThread[i]], types[jsThread[j]]));
    return model;
}

} // namespace tracelight::samples
