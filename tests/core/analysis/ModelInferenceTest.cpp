// Model inference against the paper's definitions, computed pair by pair from every request's segments.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "tracelight/analysis/ModelInference.h"
#include "tracelight/analysis/Segments.h"

using namespace tracelight;

namespace {

// Requests of a few tasks over shared labels, their events mostly in one order with random gaps, equal
// instants, zero-length segments, repeated events and a shuffled minority: relations that hold, ones
// refuted late, and pairs that run either way round without overlapping.
TraceData randomRequests(std::uint32_t seed, int requests) {
    std::mt19937 rng(seed);
    TraceDataBuilder builder;
    constexpr std::uint32_t kTasks = 4, kEvents = 7, kHost = 100;
    for (std::uint32_t l = 1; l <= kTasks + kEvents; ++l) builder.setLabel(l, "label-" + std::to_string(l));
    builder.setLabel(kHost, "host");
    for (int r = 0; r < requests; ++r) {
        builder.beginRequest(RequestId(static_cast<std::uint32_t>(r + 1)));
        const bool shuffled = rng() % 8 == 0;
        const bool swapped = rng() % 2 == 0;  // tasks 2 and 3 run one after the other, either way round
        for (std::uint32_t task = 1; task <= kTasks; ++task) {
            if (task > 1 && rng() % 4 == 0) continue;
            TimeNs t = TimeNs{1000} * task;
            if (task == 2) t = swapped ? 9000 : 2000;
            if (task == 3) t = swapped ? 2000 : 9000;
            const std::uint32_t events = 2 + rng() % 4;
            for (std::uint32_t e = 0; e < events; ++e) {
                const std::uint32_t event = kTasks + 1 + (shuffled ? rng() % kEvents : (e + task) % kEvents);
                builder.addEvent(task, event, kHost, t);
                t += rng() % 3 == 0 ? 0 : static_cast<TimeNs>(rng() % 1500);
            }
        }
    }
    return builder.finish();
}

struct Definitions {
    std::vector<std::vector<std::int64_t>> support;  // requests holding both
    std::vector<std::vector<bool>> hbRefuted, overlapSeen, orderSeen;
};

Definitions bruteForce(const TraceData& data, std::size_t types) {
    Definitions d;
    d.support.assign(types, std::vector<std::int64_t>(types, 0));
    d.hbRefuted.assign(types, std::vector<bool>(types, false));
    d.overlapSeen = d.orderSeen = d.hbRefuted;
    const ClockOffsets none = ClockOffsets::none(data.hostLabels.size());
    std::vector<SegmentInstance> segs;
    for (std::size_t r = 0; r < data.requestCount(); ++r) {
        buildSegments(data.eventsOf(r), none, segs);
        std::vector<bool> present(types, false);
        for (const auto& s : segs) present[s.type.value] = true;
        for (std::size_t a = 0; a < types; ++a)
            for (std::size_t b = 0; b < types; ++b) d.support[a][b] += present[a] && present[b];
        for (const auto& x : segs)
            for (const auto& y : segs) {
                const auto a = x.type.value, b = y.type.value;
                if (y.startNs < x.endNs) d.hbRefuted[a][b] = true;      // some b starts before some a ends
                if (x.endNs <= y.startNs) d.orderSeen[a][b] = true;     // some a ends before some b starts
                if (&x != &y && x.startNs < y.endNs && y.startNs < x.endNs) d.overlapSeen[a][b] = true;
            }
    }
    return d;
}

} // namespace

TEST(ModelInference, EveryRelationIsThePairwiseDefinitionOnRandomRequests) {
    for (std::uint32_t seed = 1; seed <= 6; ++seed) {
        const TraceData data = randomRequests(seed, 400 + 50 * static_cast<int>(seed));
        const std::size_t types = data.segmentTypes.size();
        ASSERT_LE(types, kDenseTypeBudget);  // every type tracked
        const Definitions truth = bruteForce(data, types);
        std::size_t happensBefore = 0, exclusive = 0;
        for (unsigned threads : {1u, 3u}) {
            InferenceOptions options;
            options.threads = threads;
            options.supportFloor = 1;
            auto inferred = inferModel(data, ClockOffsets::none(data.hostLabels.size()), options);
            ASSERT_TRUE(inferred) << inferred.message();
            const CausalModel& model = inferred.value();
            for (std::uint32_t a = 0; a < types; ++a)
                for (std::uint32_t b = 0; b < types; ++b) {
                    const SegmentTypeId x(a), y(b);
                    const bool together = a != b && truth.support[a][b] > 0;
                    if (a != b) {
                        EXPECT_EQ(model.support(x, y), truth.support[a][b]) << "seed " << seed << " " << a << "," << b;
                    }
                    const bool hb = together && !truth.hbRefuted[a][b];
                    const bool me = together && !truth.overlapSeen[a][b] && truth.orderSeen[a][b] && truth.orderSeen[b][a];
                    EXPECT_EQ(model.happensBefore(x, y, false), hb) << "seed " << seed << " " << data.segmentName(x) << " -> " << data.segmentName(y);
                    EXPECT_EQ(model.mutuallyExclusive(x, y, false), me) << "seed " << seed << " " << data.segmentName(x) << " | " << data.segmentName(y);
                    happensBefore += hb;
                    exclusive += me;
                }
        }
        EXPECT_GT(happensBefore, 0u) << "seed " << seed;
        EXPECT_GT(exclusive, 0u) << "seed " << seed;
    }
}
