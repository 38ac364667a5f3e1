#include "tracelight/analysis/ClockAdjustments.h"

namespace tracelight {

std::vector<ClockAdjustment> loadClockAdjustments(const TraceStore& store) {
    const std::vector<ClockPairRow> pairs = store.clockPairs();
    // The hosts' names in one read of the labels: a corpus of page loads has a client host per user, and
    // a query per name took seconds.
    std::vector<bool> wanted;
    for (const ClockPairRow& p : pairs)
        for (std::uint32_t id : {p.client, p.server}) {
            if (id >= wanted.size()) wanted.resize(std::size_t(id) + 1, false);
            wanted[id] = true;
        }
    const LabelTexts names = store.labelTexts(wanted);
    std::vector<ClockAdjustment> out;
    out.reserve(pairs.size());
    for (const ClockPairRow& p : pairs)
        out.push_back({std::string(names.text(p.client)), std::string(names.text(p.server)), p.offsetNs, p.rttNs, p.roundTrips,
                       p.outside, p.rule, p.applied});
    return out;
}

} // namespace tracelight
