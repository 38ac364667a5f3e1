#include "tracelight/analysis/ClockAdjustments.h"
#include "tracelight/store/StoredAnalysis.h"

#include <unordered_map>

namespace tracelight {

namespace {

// The pairs with their hosts' names.
std::vector<ClockAdjustment> named(const TraceStore& store, const std::vector<ClockPairRow>& pairs) {
    // The hosts' names in one read of the labels (a corpus of page loads has a client host per user, and a
    // query per name took seconds), by id in a table up to the ids an import gives; an id past that (a
    // damaged store) is asked for on its own, so the table stays small. A few pairs ask for each name.
    const std::uint32_t tableIds = pairs.size() <= 32 ? 0 : 1u << 22;
    std::vector<bool> wanted;
    std::unordered_map<std::uint32_t, std::string> far;
    for (const ClockPairRow& p : pairs)
        for (std::uint32_t id : {p.client, p.server}) {
            if (id >= tableIds) {
                if (!far.count(id)) far.emplace(id, store.label(LabelId(id)));
                continue;
            }
            if (id >= wanted.size()) wanted.resize(std::size_t(id) + 1, false);
            wanted[id] = true;
        }
    const LabelTexts names = store.labelTexts(wanted);
    auto name = [&](std::uint32_t id) { return id >= tableIds ? far.at(id) : std::string(names.text(id)); };
    std::vector<ClockAdjustment> out;
    out.reserve(pairs.size());
    for (const ClockPairRow& p : pairs)
        out.push_back({name(p.client), name(p.server), p.offsetNs, p.rttNs, p.roundTrips, p.outside, p.rule, p.applied});
    return out;
}

} // namespace

std::vector<ClockAdjustment> loadClockAdjustments(const TraceStore& store) { return named(store, clockPairs(store)); }

ClockAdjustmentDigest loadClockAdjustmentDigest(const TraceStore& store, std::size_t shown) {
    const ClockPairDigest digest = clockPairDigest(store, shown);
    return {named(store, digest.mostEvidence), digest.adjusted, digest.kept, digest.keptRoundTrips};
}

} // namespace tracelight
