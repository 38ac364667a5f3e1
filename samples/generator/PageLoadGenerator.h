#pragma once
// Deterministic generator of web page loads with known ground truth, modelled on the Mystery
// Machine's Facebook pipeline: a page request crosses client -> web server -> client, the server
// forks cache fetches (nested RPCs, optional cache misses), pagelets are generated on the server, sent
// in one ordered stream and shown by the client's single JavaScript thread in the order they arrive
// (a pipeline), and client JavaScript tasks share that thread (mutual exclusion). Every host has its own clock offset.
//
// Truth is computed from the generator's own dependency DAG, independently of core's analysis:
// critical path by walking back through the last-arriving dependency, slack by a forward/backward
// pass in which each segment's wait after its last-arriving dependency is a fixed delay.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tracelight::samples {

struct GeneratorOptions {
    std::uint64_t seed = 1;
    std::int64_t requests = 1000;
    std::int64_t users = 0;           // 0: about one user per six requests (repeat visits)
    std::int64_t startEpochUs = 1793491200000000;  // 2026-11-01T00:00:00Z
    std::int64_t meanGapUs = 40000;   // between request starts
    double slowFeedMissFactor = 1.0;  // >1 injects a slow optional segment (feed cache-miss fill)
};

struct GenEvent {
    std::uint32_t host;      // index into hostName()
    std::uint16_t task;      // index into taskNames()
    std::uint16_t event;     // index into eventNames()
    std::uint16_t seq;       // position within the task, from 1
    std::int64_t trueNs;     // true time, nanoseconds since the epoch
};

struct GenSegment {
    std::uint16_t task;
    std::uint16_t startEvent;
    std::uint16_t endEvent;
    std::int64_t startNs;    // true time
    std::int64_t endNs;
    bool network;            // its two events are on different hosts
    std::int64_t durationNs() const { return endNs - startNs; }
};

struct GeneratedRequest {
    std::int64_t index = 0;
    std::string name;
    std::vector<GenEvent> events;                 // grouped by task, tasks in creation order
    std::vector<std::pair<std::string, std::string>> attributes;
    std::int64_t user = 0;

    // Ground truth, in true time, integer nanoseconds (every duration has a sub-microsecond part).
    std::vector<GenSegment> segments;
    std::vector<std::pair<int, int>> edges;       // true per-request dependencies (from, to), segment indices
    std::int64_t startNs = 0;
    std::int64_t latencyNs = 0;
    std::vector<int> criticalPath;                // segment indices, first to last
    std::int64_t blindNs = 0;                     // time on the critical path that no segment covers
    std::vector<std::int64_t> slackNs;            // per segment
};

struct TrueModel {
    std::vector<std::string> segmentTypes;                  // "task:START->END"
    std::set<std::pair<std::string, std::string>> happensBefore;   // transitive closure, co-occurring types only
    std::set<std::pair<std::string, std::string>> mutualExclusion; // unordered pairs stored with first < second
    struct Pipeline {
        std::vector<std::string> producers;  // paired by position with consumers
        std::vector<std::string> consumers;
    };
    std::vector<Pipeline> pipelines;
};

class PageLoadGenerator {
public:
    explicit PageLoadGenerator(GeneratorOptions options);

    // The request with this index; independent of generation order, so work can be sharded.
    GeneratedRequest generate(std::int64_t index) const;

    const GeneratorOptions& options() const { return m_options; }
    std::string hostName(std::uint32_t host) const;
    std::int64_t clockOffsetNs(std::uint32_t host) const;  // local = true + offset
    static const std::vector<std::string_view>& taskNames();
    static const std::vector<std::string_view>& eventNames();
    static std::string segmentLabel(const GenSegment& s);   // "task:START->END"
    static TrueModel trueModel();

    // Re-schedules a request's true DAG with one segment's duration changed by deltaNs (other durations
    // and the fixed waits held) and returns the new end-to-end latency. The brute-force check of slack.
    static std::int64_t rescheduledLatency(const GeneratedRequest& request, int segment, std::int64_t deltaNs);

private:
    GeneratorOptions m_options;
    std::int64_t m_users;
};

// Computes critical path, blind time and slack of a request from its segments and true edges.
void computeTruth(GeneratedRequest& request);

} // namespace tracelight::samples
