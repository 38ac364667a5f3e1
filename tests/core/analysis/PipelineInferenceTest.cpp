// Pipeline inference on a workload shape our page-load generator does not have (Mystery Machine, section 3:
// "given two tasks t1 and t2, a data dependency between pairs of segments of the two tasks", FIFO): one
// producer task makes items in a varying order, one consumer task shows them in the order they were made.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <string>

#include "tracelight/analysis/ModelInference.h"
#include "tracelight/analysis/RequestDag.h"

using namespace tracelight;

namespace {

enum Label : std::uint32_t { Host = 1, Render, Display, RStart, DStart, DEnd, ItemBase = 100 };
constexpr int kItems = 3;
std::uint32_t produced(int item) { return ItemBase + 2 * static_cast<std::uint32_t>(item); }
std::uint32_t shown(int item) { return ItemBase + 2 * static_cast<std::uint32_t>(item) + 1; }

// fifo: the consumer takes items in the order they were produced; otherwise in an independent random order,
// waiting for each one (so every data dependency still holds, but FIFO does not).
TraceData producerConsumerTraces(int requests, bool fifo, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> work(50, 400), net(5, 30), show(20, 60);
    TraceDataBuilder b;
    b.setLabel(Render, "render");
    b.setLabel(Display, "display");
    b.setLabel(RStart, "R_START");
    b.setLabel(DStart, "D_START");
    b.setLabel(DEnd, "D_END");
    for (int i = 0; i < kItems; ++i) {
        b.setLabel(produced(i), "produce_p" + std::to_string(i));
        b.setLabel(shown(i), "show_p" + std::to_string(i));
    }
    for (int r = 0; r < requests; ++r) {
        b.beginRequest(RequestId(r + 1));
        std::vector<int> order(kItems);
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        std::int64_t t = 1000 * r;
        std::vector<std::int64_t> madeAt(kItems);
        b.addEvent(Render, RStart, Host, t);
        for (int item : order) {
            t += work(rng);
            madeAt[item] = t;
            b.addEvent(Render, produced(item), Host, t);
        }
        std::vector<int> consumed = order;
        if (!fifo) std::shuffle(consumed.begin(), consumed.end(), rng);
        std::int64_t d = 1000 * r + 10;
        b.addEvent(Display, DStart, Host, d);
        for (int item : consumed) {
            d = std::max(d, madeAt[item] + net(rng));  // waits for the item
            b.addEvent(Display, shown(item), Host, d);
            d += show(rng);
        }
        b.addEvent(Display, DEnd, Host, d);
    }
    return b.finish();
}

// One host, no RPC: no clock correction.
ClockOffsets noSkew(const TraceData& data) { return solveClockOffsets(SkewEstimates{}, data.hostLabels.size()); }

std::string eventOf(const TraceData& data, SegmentTypeId t, bool end) {
    const SegmentType& s = data.segmentTypes[t.value];
    return data.label(s.task.value) + ":" + data.label(end ? s.endEvent.value : s.startEvent.value);
}

} // namespace

TEST(PipelineInference, OneProducerTaskOneConsumerTaskItemsInVaryingOrder) {
    const TraceData data = producerConsumerTraces(2000, true, 11);
    InferenceOptions options;
    options.threads = 2;
    auto model = inferModel(data, noSkew(data), options);
    ASSERT_TRUE(model.isOk()) << model.status().message();
    ASSERT_FALSE(model->pipelines().empty()) << "no pipeline found between render and display";
    // Every link joins the segment that produced item i (it ends at produce_pi) to the one that shows it
    // (it starts at show_pi), and nothing else.
    std::set<std::pair<std::string, std::string>> links;
    for (const auto& p : model->pipelines())
        for (const auto& l : {p.first, p.second}) links.emplace(eventOf(data, l.producer, true), eventOf(data, l.consumer, false));
    std::set<std::pair<std::string, std::string>> expected;
    for (int i = 0; i < kItems; ++i)
        expected.emplace("render:produce_p" + std::to_string(i), "display:show_p" + std::to_string(i));
    EXPECT_EQ(links, expected);
    for (const auto& p : model->pipelines()) EXPECT_GE(p.support, options.supportFloor);
}

TEST(PipelineInference, NoPipelineWhenTheConsumerOrderIsIndependent) {
    const TraceData data = producerConsumerTraces(2000, false, 12);
    auto model = inferModel(data, noSkew(data), InferenceOptions{});
    ASSERT_TRUE(model.isOk());
    EXPECT_TRUE(model->pipelines().empty()) << model->pipelines().size() << " false pipelines";
}

TEST(PipelineInference, TheRequestGraphGetsEachItemsDataDependency) {
    // With the pipeline known, a request's graph joins each item's producer to its consumer even where the
    // two segment types were seen together too rarely to confirm a happens-before relation on their own.
    const TraceData data = producerConsumerTraces(400, true, 13);
    InferenceOptions options;
    options.supportFloor = 60;  // each producer/consumer type pair co-occurs in about 1/6 of the requests
    auto model = inferModel(data, noSkew(data), options);
    ASSERT_TRUE(model.isOk());
    ASSERT_FALSE(model->pipelines().empty());
    const ClockOffsets offsets = noSkew(data);
    RequestDagBuilder builder(model.value(), data);
    RequestDag dag;
    int pipelineEdges = 0;
    for (std::size_t r = 0; r < data.requestCount(); ++r) {
        builder.build(data.eventsOf(r), offsets, dag);
        for (const auto& e : dag.edges) {
            if (e.kind != EdgeKind::Pipeline) continue;
            ++pipelineEdges;
            const auto& from = data.segmentTypes[dag.segments[e.from].type.value];
            const auto& to = data.segmentTypes[dag.segments[e.to].type.value];
            EXPECT_EQ(data.label(from.task.value), "render");
            EXPECT_EQ(data.label(to.task.value), "display");
            // produce_pi -> show_pi: the same item
            EXPECT_EQ(from.endEvent.value + 1, to.startEvent.value);
        }
    }
    EXPECT_GT(pipelineEdges, 0);
}

TEST(PipelineInference, MoreThreadsThanRequestsDoNotCrash) {
    // Shards were sized by the requested thread count while only one thread per request runs: the merge
    // read the state of shards that never ran.
    const TraceData data = producerConsumerTraces(1, true, 14);
    InferenceOptions options;
    options.threads = 4;
    options.supportFloor = 1;
    auto model = inferModel(data, noSkew(data), options);
    ASSERT_TRUE(model.isOk());
    EXPECT_EQ(model->requestsAnalysed(), 1);
}
