#include "tracelight/compare/Statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace tracelight {

double kolmogorovSurvival(double lambda) {
    if (lambda <= 0) return 1.0;
    if (lambda < 0.2) return 1.0;  // the series converges slowly there and the value is 1 to 1e-14
    double sum = 0, sign = 1;
    for (int k = 1; k <= 200; ++k) {
        const double term = std::exp(-2.0 * k * k * lambda * lambda);
        sum += sign * term;
        if (term < 1e-17) break;
        sign = -sign;
    }
    return std::clamp(2.0 * sum, 0.0, 1.0);
}

double ksExactSurvival(double d, std::uint32_t n, std::uint32_t m) {
    if (n == 0 || m == 0) return 1.0;
    // Count the lattice paths from (0,0) to (n,m) that stay strictly inside |i/n - j/m| < d, as fractions of
    // all C(n+m, n) paths: each step's count is scaled by the path probability so nothing overflows.
    // u[j] after row i = probability that a random path reaches (i, j) while staying inside.
    const double eps = 1e-9;  // D takes values k / lcm(n, m): compare with a tolerance
    auto inside = [&](std::uint32_t i, std::uint32_t j) {
        return std::fabs(double(i) / n - double(j) / m) < d - eps;
    };
    // Probability formulation: a uniformly random path, at (i, j), steps in i with probability (n-i)/(n+m-i-j).
    std::vector<double> u(m + 1, 0.0);
    u[0] = 1.0;
    for (std::uint32_t j = 1; j <= m; ++j) {
        const double stepJ = double(m - (j - 1)) / double(n + m - (j - 1));
        u[j] = inside(0, j) ? u[j - 1] * stepJ : 0.0;
    }
    for (std::uint32_t i = 1; i <= n; ++i) {
        // from (i-1, j) stepping in i, and from (i, j-1) stepping in j
        std::vector<double> next(m + 1, 0.0);
        for (std::uint32_t j = 0; j <= m; ++j) {
            if (!inside(i, j)) continue;
            double p = 0;
            const std::uint32_t left = n + m - (i - 1) - j;  // steps left at (i-1, j)
            p += u[j] * double(n - (i - 1)) / double(left);
            if (j > 0) {
                const std::uint32_t leftJ = n + m - i - (j - 1);
                p += next[j - 1] * double(m - (j - 1)) / double(leftJ);
            }
            next[j] = p;
        }
        u.swap(next);
    }
    // (0,0) itself always lies inside for d > 0.
    return std::clamp(1.0 - u[m], 0.0, 1.0);
}

KsResult ksTwoSample(std::span<const double> a, std::span<const double> b, std::uint64_t exactLimit) {
    KsResult r;
    if (a.empty() || b.empty()) return r;
    std::vector<double> x(a.begin(), a.end()), y(b.begin(), b.end());
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    const double n = double(x.size()), m = double(y.size());
    std::size_t i = 0, j = 0;
    double d = 0;
    while (i < x.size() && j < y.size()) {
        const double v = std::min(x[i], y[j]);
        while (i < x.size() && x[i] == v) ++i;  // ties: step past every equal value in both samples
        while (j < y.size() && y[j] == v) ++j;
        d = std::max(d, std::fabs(double(i) / n - double(j) / m));
    }
    r.d = d;
    if (d == 0) return r;
    if (std::uint64_t(x.size()) * y.size() <= exactLimit) {
        r.exact = true;
        r.pValue = ksExactSurvival(d, std::uint32_t(x.size()), std::uint32_t(y.size()));
    } else {
        const double en = std::sqrt(n * m / (n + m));
        r.pValue = kolmogorovSurvival((en + 0.12 + 0.11 / en) * d);
    }
    return r;
}

std::vector<double> benjaminiHochberg(std::span<const double> p) {
    const std::size_t n = p.size();
    std::vector<double> q(n);
    if (n == 0) return q;
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t l, std::size_t r) { return p[l] < p[r]; });
    double running = 1.0;
    for (std::size_t k = n; k-- > 0;) {
        const std::size_t idx = order[k];
        running = std::min(running, p[idx] * double(n) / double(k + 1));
        q[idx] = std::min(1.0, running);
    }
    return q;
}

std::vector<double> holm(std::span<const double> p) {
    const std::size_t n = p.size();
    std::vector<double> q(n);
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t l, std::size_t r) { return p[l] < p[r]; });
    double running = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t idx = order[k];
        running = std::max(running, std::min(1.0, p[idx] * double(n - k)));
        q[idx] = running;
    }
    return q;
}

namespace {
double binomialLogPmf(std::int64_t k, std::int64_t n, double q) {
    if (q <= 0) return k == 0 ? 0 : -INFINITY;
    if (q >= 1) return k == n ? 0 : -INFINITY;
    return std::lgamma(double(n) + 1) - std::lgamma(double(k) + 1) - std::lgamma(double(n - k) + 1) + double(k) * std::log(q) +
           double(n - k) * std::log1p(-q);
}
} // namespace

double binomialTwoSided(std::int64_t k, std::int64_t n, double q) {
    if (n <= 0) return 1.0;
    k = std::clamp<std::int64_t>(k, 0, n);
    const double at = binomialLogPmf(k, n, q);
    const double tolerance = 1e-7;  // relative: outcomes as likely as k up to rounding count as "as likely"
    double sum = 0;
    for (std::int64_t i = 0; i <= n; ++i) {
        const double l = binomialLogPmf(i, n, q);
        if (l <= at + tolerance) sum += std::exp(l);
    }
    return std::clamp(sum, 0.0, 1.0);
}

double binomialMinimumP(std::int64_t n, double q) {
    return std::min(binomialTwoSided(0, n, q), binomialTwoSided(n, n, q));
}

double vanElterenGreater(std::span<const RankStratum> strata) {
    double w = 0, mean = 0, variance = 0;
    std::vector<std::pair<double, bool>> all;  // value, from the target
    for (const RankStratum& s : strata) {
        const double nb = double(s.base.size()), nt = double(s.target.size()), n = nb + nt;
        if (s.base.empty() || s.target.empty()) continue;
        all.clear();
        for (double v : s.base) all.emplace_back(v, false);
        for (double v : s.target) all.emplace_back(v, true);
        std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        double rankSum = 0, ties = 0;
        for (std::size_t i = 0; i < all.size();) {
            std::size_t j = i;
            while (j < all.size() && all[j].first == all[i].first) ++j;
            const double t = double(j - i), midRank = (double(i + 1) + double(j)) / 2;
            for (std::size_t k = i; k < j; ++k)
                if (all[k].second) rankSum += midRank;
            ties += t * t * t - t;
            i = j;
        }
        const double u = rankSum - nt * (nt + 1) / 2;  // pairs with the target larger (ties half)
        const double weight = 1 / (n + 1);
        w += weight * u;
        mean += weight * nb * nt / 2;
        variance += weight * weight * nb * nt / 12 * ((n + 1) - ties / (n * (n - 1)));
    }
    if (variance <= 0) return 1;
    const double z = (w - mean) / std::sqrt(variance);
    return 0.5 * std::erfc(z / std::sqrt(2.0));
}

double fisherGreater(std::int64_t k, std::int64_t n, std::int64_t a, std::int64_t m) {
    // Successes K = k + a in N = n + m; the target's count X is hypergeometric(N, K, n): P(X >= k).
    const std::int64_t total = n + m, successes = k + a;
    if (n <= 0 || k <= 0) return 1;
    auto logChoose = [](std::int64_t x, std::int64_t y) {
        return std::lgamma(double(x) + 1) - std::lgamma(double(y) + 1) - std::lgamma(double(x - y) + 1);
    };
    const double denominator = logChoose(total, n);
    double p = 0;
    for (std::int64_t x = k; x <= std::min(n, successes); ++x) {
        if (successes - x > total - n) continue;
        p += std::exp(logChoose(successes, x) + logChoose(total - successes, n - x) - denominator);
    }
    return std::min(1.0, p);
}

namespace {
double logBeta(double a, double b) { return std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b); }
} // namespace

double betaBinomialGreater(std::int64_t k, std::int64_t n, double a, double b) {
    if (k <= 0) return 1;
    if (k > n) return 0;
    const double norm = logBeta(a, b);
    double p = 0;
    for (std::int64_t j = k; j <= n; ++j)
        p += std::exp(std::lgamma(double(n) + 1) - std::lgamma(double(j) + 1) - std::lgamma(double(n - j) + 1) +
                      logBeta(double(j) + a, double(n - j) + b) - norm);
    return std::min(1.0, p);
}

double betaConcentration(std::span<const std::int64_t> successes, std::span<const std::int64_t> trials, double mean) {
    double best = 1, bestLikelihood = -std::numeric_limits<double>::infinity();
    for (double c = 0.5; c <= 1e6; c *= 1.25) {
        const double a = mean * c, b = (1 - mean) * c, norm = logBeta(a, b);
        double likelihood = 0;  // the binomial coefficients do not depend on c
        for (std::size_t i = 0; i < std::min(successes.size(), trials.size()); ++i)
            if (trials[i] > 0) likelihood += logBeta(a + double(successes[i]), b + double(trials[i] - successes[i])) - norm;
        if (likelihood > bestLikelihood) bestLikelihood = likelihood, best = c;
    }
    return best;
}

} // namespace tracelight
