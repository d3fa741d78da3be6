//===- Statistics.cpp - Order statistics and A/B verdicts of timings -------===//

#include "loupe/profiler/Statistics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace loupe::profiler {

double quantileSorted(const std::vector<int64_t> &sorted, double q) {
  if (sorted.empty())
    return std::numeric_limits<double>::quiet_NaN();
  q = std::clamp(q, 0.0, 1.0);
  double h = static_cast<double>(sorted.size() - 1) * q;
  size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= sorted.size())
    return static_cast<double>(sorted.back());
  double lower = static_cast<double>(sorted[lo]);
  // Difference in integers first: exact for nearby large values.
  double gap = static_cast<double>(sorted[lo + 1] - sorted[lo]);
  return lower + (h - static_cast<double>(lo)) * gap;
}

double quantile(std::vector<int64_t> samples, double q) {
  std::sort(samples.begin(), samples.end());
  return quantileSorted(samples, q);
}

double median(std::vector<int64_t> samples) { return quantile(std::move(samples), 0.5); }

Summary summarize(std::vector<int64_t> samples) {
  Summary s;
  s.count = samples.size();
  if (samples.empty()) {
    double nan = std::numeric_limits<double>::quiet_NaN();
    s.mean = s.median = s.q1 = s.q3 = nan;
    return s;
  }
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  long double sum = 0;
  for (int64_t v : samples)
    sum += static_cast<long double>(v);
  s.mean = static_cast<double>(sum / static_cast<long double>(samples.size()));
  s.median = quantileSorted(samples, 0.5);
  s.q1 = quantileSorted(samples, 0.25);
  s.q3 = quantileSorted(samples, 0.75);
  return s;
}

namespace {

/// P(U <= k) under H0 for sample sizes m, n without ties: the number of m-subsets of the
/// positions 0..m+n-1 whose U = sum(positions) - m(m-1)/2 is <= k, over C(m+n, m).
double exactCdf(size_t m, size_t n, double k) {
  if (m > n)
    std::swap(m, n);
  size_t total = m + n;
  size_t maxSum = m * total;
  // dp[j][t]: number of j-subsets of the positions seen so far with position sum t.
  std::vector<std::vector<uint64_t>> dp(m + 1, std::vector<uint64_t>(maxSum + 1, 0));
  dp[0][0] = 1;
  for (size_t pos = 0; pos < total; ++pos)
    for (size_t j = std::min(m, pos + 1); j >= 1; --j)
      for (size_t t = maxSum; t >= pos; --t) {
        dp[j][t] += dp[j - 1][t - pos];
        if (t == 0)
          break;
      }
  size_t offset = m * (m - 1) / 2;
  long double below = 0, all = 0;
  for (size_t t = offset; t <= maxSum; ++t) {
    long double c = static_cast<long double>(dp[m][t]);
    all += c;
    if (static_cast<double>(t - offset) <= k + 1e-9)
      below += c;
  }
  return static_cast<double>(below / all);
}

} // namespace

MannWhitneyResult mannWhitneyU(const std::vector<int64_t> &a, const std::vector<int64_t> &b,
                               MannWhitneyMethod method) {
  MannWhitneyResult r;
  size_t n1 = a.size(), n2 = b.size();
  if (n1 == 0 || n2 == 0)
    return r;

  // Midranks of the pooled samples; tag = which sample each value came from.
  struct Item {
    int64_t value;
    bool first;
  };
  std::vector<Item> pooled;
  pooled.reserve(n1 + n2);
  for (int64_t v : a)
    pooled.push_back({v, true});
  for (int64_t v : b)
    pooled.push_back({v, false});
  std::sort(pooled.begin(), pooled.end(),
            [](const Item &x, const Item &y) { return x.value < y.value; });

  size_t n = n1 + n2;
  double rankSum1 = 0;
  double tieTerm = 0; // sum over tie groups of t^3 - t
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && pooled[j].value == pooled[i].value)
      ++j;
    double t = static_cast<double>(j - i);
    double midrank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (size_t k = i; k < j; ++k)
      if (pooled[k].first)
        rankSum1 += midrank;
    tieTerm += t * t * t - t;
    i = j;
  }
  double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2);
  r.u1 = rankSum1 - dn1 * (dn1 + 1) / 2;
  r.u2 = dn1 * dn2 - r.u1;

  bool ties = tieTerm > 0;
  bool useExact = !ties && (method == MannWhitneyMethod::Exact ||
                            (method == MannWhitneyMethod::Auto && n <= kMannWhitneyExactMaxTotal));
  if (useExact) {
    r.exact = true;
    r.pValue = std::min(1.0, 2.0 * exactCdf(n1, n2, std::min(r.u1, r.u2)));
    return r;
  }

  double dn = static_cast<double>(n);
  double mu = dn1 * dn2 / 2;
  double var = dn1 * dn2 / 12.0 * ((dn + 1) - tieTerm / (dn * (dn - 1)));
  if (!(var > 0)) // all values equal: no evidence of a difference
    return r;
  double diff = r.u1 - mu;
  double corrected = std::max(std::fabs(diff) - 0.5, 0.0);
  r.z = std::copysign(corrected, diff) / std::sqrt(var);
  r.pValue = std::min(1.0, std::erfc(std::fabs(r.z) / std::sqrt(2.0)));
  return r;
}

const char *verdictName(Verdict verdict) {
  switch (verdict) {
  case Verdict::Same:
    return "SAME";
  case Verdict::Faster:
    return "FASTER";
  case Verdict::Slower:
    return "SLOWER";
  case Verdict::Ambiguous:
    return "AMBIGUOUS";
  }
  return "AMBIGUOUS";
}

std::optional<Verdict> parseVerdict(std::string_view name) {
  for (Verdict v : {Verdict::Same, Verdict::Faster, Verdict::Slower, Verdict::Ambiguous})
    if (name == verdictName(v))
      return v;
  return std::nullopt;
}

namespace {
std::string format(const char *fmt, double x, double y, double z) {
  char buf[160];
  std::snprintf(buf, sizeof(buf), fmt, x, y, z);
  return buf;
}
} // namespace

Comparison compare(const std::vector<int64_t> &baseline, const std::vector<int64_t> &candidate,
                   const CompareOptions &options) {
  Comparison c;
  c.baseline = summarize(baseline);
  c.candidate = summarize(candidate);
  if (baseline.empty() || candidate.empty()) {
    c.verdict = Verdict::Ambiguous;
    c.reason = baseline.empty() ? "no baseline samples" : "no candidate samples";
    return c;
  }
  if (c.baseline.median != 0)
    c.change = (c.candidate.median - c.baseline.median) / c.baseline.median;
  else
    c.change = c.candidate.median == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  c.test = mannWhitneyU(baseline, candidate);

  bool big = std::fabs(c.change) >= options.threshold;
  bool enough = baseline.size() >= options.minSamples && candidate.size() >= options.minSamples;
  c.significant = enough && c.test.pValue < options.alpha;
  double pct = c.change * 100, thr = options.threshold * 100;
  if (!enough) {
    c.verdict = big ? Verdict::Ambiguous : Verdict::Same;
    c.reason = format("too few samples (%.0f, need %.0f each); median %+.2f%%",
                      static_cast<double>(std::min(baseline.size(), candidate.size())),
                      static_cast<double>(options.minSamples), pct) +
               (big ? " >= threshold" : " below threshold");
    return c;
  }
  if (c.significant) {
    c.verdict = big ? (c.change < 0 ? Verdict::Faster : Verdict::Slower) : Verdict::Ambiguous;
    c.reason = format("p=%.3g < alpha=%g; median %+.2f%%", c.test.pValue, options.alpha, pct) +
               format(big ? " (|change| >= %g%%)" : " (|change| < %g%%)", thr, 0, 0);
  } else {
    c.verdict = big ? Verdict::Ambiguous : Verdict::Same;
    c.reason = format("p=%.3g >= alpha=%g; median %+.2f%%", c.test.pValue, options.alpha, pct) +
               format(big ? " (|change| >= %g%%)" : " (|change| < %g%%)", thr, 0, 0);
  }
  return c;
}

Comparison compare(const std::vector<int64_t> &baseline, const std::vector<int64_t> &candidate,
                   double threshold) {
  CompareOptions options;
  options.threshold = threshold;
  return compare(baseline, candidate, options);
}

} // namespace loupe::profiler
