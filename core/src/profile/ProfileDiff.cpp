#include <algorithm>
#include <cmath>

#include "tracelight/compare/Statistics.h"
#include "tracelight/profile/Profile.h"

namespace tracelight {

ProfileDiff diffProfiles(const ProfileSet& set, std::size_t base, std::size_t target, double alpha) {
    ProfileDiff out;
    const std::size_t n = set.frames.size();
    const double nb = double(set.groups[base].requests), nt = double(set.groups[target].requests);
    std::vector<double> p(n, 1.0);
    out.frames.resize(n);
    const double floorNs = 0.001 * set.meanLatencyNs(base);
    for (std::size_t f = 0; f < n; ++f) {
        FrameChange& c = out.frames[f];
        c.frame = static_cast<std::uint32_t>(f);
        c.baseTotalNs = set.meanTotalNs(base, f);
        c.targetTotalNs = set.meanTotalNs(target, f);
        c.baseSelfNs = set.meanSelfNs(base, f);
        c.targetSelfNs = set.meanSelfNs(target, f);
        c.selfRatio = floorNs > 0 ? (c.targetSelfNs + floorNs) / (c.baseSelfNs + floorNs) : 1;
        // Welch's statistic on the per-request total critical time (a frame absent from a request is 0
        // there), the central limit theorem giving its distribution: the paper's confidence intervals.
        const double se2 = (nb > 1 ? set.varianceTotalNs2(base, f) / nb : 0) + (nt > 1 ? set.varianceTotalNs2(target, f) / nt : 0);
        const double delta = c.targetTotalNs - c.baseTotalNs;
        if (nb < 2 || nt < 2) p[f] = 1;
        else if (se2 <= 0) p[f] = delta == 0 ? 1 : 0;
        else p[f] = std::erfc(std::fabs(delta) / std::sqrt(2 * se2));
        c.pValue = p[f];
    }
    // Many frames are tested at once: Benjamini-Hochberg keeps the share of false discoveries at alpha,
    // and when nothing changed, the chance of flagging any frame at all.
    const std::vector<double> adjusted = benjaminiHochberg(p);
    for (std::size_t f = 0; f < n; ++f) {
        out.frames[f].pValue = adjusted[f];
        out.frames[f].significant = adjusted[f] < alpha;
        out.significantFrames += out.frames[f].significant ? 1 : 0;
    }
    std::stable_sort(out.frames.begin(), out.frames.end(), [](const FrameChange& a, const FrameChange& b) {
        if (a.significant != b.significant) return a.significant;
        if (a.selfRatio != b.selfRatio) return a.selfRatio > b.selfRatio;
        return a.deltaSelfNs() > b.deltaSelfNs();
    });
    return out;
}

} // namespace tracelight
