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

/// P(U <= u) under H0 for u = 0..mn, sample sizes m, n without ties: the number of m-subsets
/// of the positions 0..m+n-1 whose U = sum(positions) - m(m-1)/2 is <= u, over C(m+n, m).
std::vector<double> exactCdfTable(size_t m, size_t n) {
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
  long double all = 0;
  for (size_t t = offset; t <= maxSum; ++t)
    all += static_cast<long double>(dp[m][t]);
  std::vector<double> cdf;
  long double below = 0;
  for (size_t t = offset; t <= offset + m * n; ++t) {
    below += static_cast<long double>(dp[m][t]);
    cdf.push_back(static_cast<double>(below / all));
  }
  return cdf;
}

/// P(U <= k) under H0 without ties.
double exactCdf(size_t m, size_t n, double k) {
  std::vector<double> cdf = exactCdfTable(m, n);
  if (k < 0)
    return 0;
  return cdf[std::min(cdf.size() - 1, static_cast<size_t>(std::floor(k + 1e-9)))];
}

} // namespace

MannWhitneyResult mannWhitneyU(const std::vector<int64_t> &a, const std::vector<int64_t> &b,
                               MannWhitneyMethod method) {
  return mannWhitneyU(std::vector<double>(a.begin(), a.end()),
                      std::vector<double>(b.begin(), b.end()), method);
}

MannWhitneyResult mannWhitneyU(const std::vector<double> &a, const std::vector<double> &b,
                               MannWhitneyMethod method) {
  MannWhitneyResult r;
  size_t n1 = a.size(), n2 = b.size();
  if (n1 == 0 || n2 == 0)
    return r;

  // Midranks of the pooled samples; tag = which sample each value came from.
  struct Item {
    double value;
    bool first;
  };
  std::vector<Item> pooled;
  pooled.reserve(n1 + n2);
  for (double v : a)
    pooled.push_back({v, true});
  for (double v : b)
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

/// z with P(Z > z) = p for a standard normal Z, 0 < p < 1: bisection on erfc (60 halvings of
/// [0, 40] reach double precision).
double upperNormalQuantile(double p) {
  double lo = 0, hi = 40;
  for (int i = 0; i < 60; ++i) {
    double mid = (lo + hi) / 2;
    (0.5 * std::erfc(mid / std::sqrt(2.0)) > p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

bool hasTies(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return std::adjacent_find(values.begin(), values.end()) != values.end();
}

/// P(T+ <= t) under H0 for t = 0..n(n+1)/2, n non-zero differences without ties: the number of
/// subsets of the ranks 1..n with sum <= t, over 2^n.
std::vector<double> signedRankCdfTable(size_t n) {
  size_t maxSum = n * (n + 1) / 2;
  std::vector<long double> count(maxSum + 1, 0);
  count[0] = 1;
  for (size_t rank = 1; rank <= n; ++rank)
    for (size_t t = maxSum; t >= rank; --t)
      count[t] += count[t - rank];
  long double all = std::pow(2.0L, static_cast<long double>(n)), below = 0;
  std::vector<double> cdf;
  for (long double c : count) {
    below += c;
    cdf.push_back(static_cast<double>(below / all));
  }
  return cdf;
}

/// The largest c with cdf[c] <= alpha/2 (-1 when there is none).
long criticalFromTable(const std::vector<double> &cdf, double alpha) {
  long c = -1;
  while (static_cast<size_t>(c + 1) < cdf.size() && cdf[static_cast<size_t>(c + 1)] <= alpha / 2)
    ++c;
  return c;
}

/// Midranks of |d| over the non-zero differences; `tieTerm` receives sum(t^3 - t).
std::vector<std::pair<double, double>> rankedAbs(const std::vector<double> &d, double &tieTerm) {
  std::vector<std::pair<double, double>> items; // (|d|, sign) then (rank, sign)
  for (double x : d)
    if (x != 0)
      items.push_back({std::fabs(x), x > 0 ? 1.0 : -1.0});
  std::sort(items.begin(), items.end());
  tieTerm = 0;
  for (size_t i = 0; i < items.size();) {
    size_t j = i;
    while (j < items.size() && items[j].first == items[i].first)
      ++j;
    double t = static_cast<double>(j - i), midrank = (static_cast<double>(i + 1 + j)) / 2;
    tieTerm += t * t * t - t;
    for (size_t k = i; k < j; ++k)
      items[k].first = midrank;
    i = j;
  }
  return items;
}

/// The largest c with P(U <= c) <= alpha/2 under H0 (-1 when there is none).
long criticalU(size_t m, size_t n, bool exact, double alpha) {
  double mn = static_cast<double>(m) * static_cast<double>(n);
  if (!exact) {
    double sigma = std::sqrt(mn * static_cast<double>(m + n + 1) / 12.0);
    return static_cast<long>(std::ceil(mn / 2 - upperNormalQuantile(alpha / 2) * sigma)) - 1;
  }
  return criticalFromTable(exactCdfTable(m, n), alpha);
}

/// `s` with the interval [sorted[c], sorted[n-1-c]] (1-based: the (c+1)-th smallest and
/// largest); unbounded when no c >= 0 exists or it leaves no interval.
ShiftEstimate withInterval(ShiftEstimate s, const std::vector<double> &sorted, long c) {
  if (c < 0 || static_cast<size_t>(c) >= (sorted.size() + 1) / 2) {
    s.low = -std::numeric_limits<double>::infinity();
    s.high = std::numeric_limits<double>::infinity();
    return s;
  }
  s.low = sorted[static_cast<size_t>(c)];
  s.high = sorted[sorted.size() - 1 - static_cast<size_t>(c)];
  return s;
}

std::string format(const char *fmt, double x, double y = 0, double z = 0, double w = 0,
                   double v = 0) {
  char buf[200];
  std::snprintf(buf, sizeof(buf), fmt, x, y, z, w, v);
  return buf;
}

std::vector<int64_t> pooled(const Trials &trials) {
  std::vector<int64_t> all;
  for (const std::vector<int64_t> &t : trials)
    all.insert(all.end(), t.begin(), t.end());
  return all;
}

/// The medians of the trials with samples, as logarithms (a ratio becomes a shift); a median
/// below 1 ns counts as 1 ns.
std::vector<double> logTrialMedians(const Trials &trials) {
  std::vector<double> out;
  for (const std::vector<int64_t> &t : trials)
    if (!t.empty())
      out.push_back(std::log(std::max(median(t), 1.0)));
  return out;
}

/// The median of the trials' medians.
double medianOfTrials(const Trials &trials) {
  std::vector<double> medians;
  for (const std::vector<int64_t> &t : trials)
    if (!t.empty())
      medians.push_back(median(t));
  std::sort(medians.begin(), medians.end());
  size_t n = medians.size();
  return n % 2 ? medians[n / 2] : (medians[n / 2 - 1] + medians[n / 2]) / 2;
}

} // namespace

ShiftEstimate hodgesLehmann(const std::vector<double> &x, const std::vector<double> &y,
                            double alpha) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  if (x.empty() || y.empty())
    return {nan, nan, nan};
  std::vector<double> d;
  d.reserve(x.size() * y.size());
  for (double a : x)
    for (double b : y)
      d.push_back(b - a);
  std::sort(d.begin(), d.end());
  ShiftEstimate s;
  size_t mn = d.size();
  s.estimate = mn % 2 ? d[mn / 2] : (d[mn / 2 - 1] + d[mn / 2]) / 2;
  std::vector<double> all = x;
  all.insert(all.end(), y.begin(), y.end());
  bool exact = !hasTies(all) && all.size() <= kMannWhitneyExactMaxTotal;
  long c = criticalU(x.size(), y.size(), exact, alpha);
  return withInterval(s, d, c);
}

SignedRankResult wilcoxonSignedRank(const std::vector<double> &d) {
  SignedRankResult r;
  double tieTerm = 0;
  std::vector<std::pair<double, double>> ranked = rankedAbs(d, tieTerm);
  r.n = ranked.size();
  if (r.n == 0)
    return r;
  for (const auto &[rank, sign] : ranked)
    (sign > 0 ? r.tPlus : r.tMinus) += rank;
  if (tieTerm == 0 && r.n <= kMannWhitneyExactMaxTotal) {
    r.exact = true;
    std::vector<double> cdf = signedRankCdfTable(r.n);
    auto t = static_cast<size_t>(std::floor(std::min(r.tPlus, r.tMinus) + 1e-9));
    r.pValue = std::min(1.0, 2 * cdf[t]);
    return r;
  }
  double n = static_cast<double>(r.n);
  double var = n * (n + 1) * (2 * n + 1) / 24 - tieTerm / 48;
  if (!(var > 0))
    return r;
  r.z = (r.tPlus - n * (n + 1) / 4) / std::sqrt(var);
  r.pValue = std::min(1.0, std::erfc(std::fabs(r.z) / std::sqrt(2.0)));
  return r;
}

ShiftEstimate hodgesLehmannPaired(const std::vector<double> &d, double alpha) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  if (d.empty())
    return {nan, nan, nan};
  std::vector<double> walsh;
  for (size_t i = 0; i < d.size(); ++i)
    for (size_t j = i; j < d.size(); ++j)
      walsh.push_back((d[i] + d[j]) / 2);
  std::sort(walsh.begin(), walsh.end());
  size_t total = walsh.size();
  ShiftEstimate s;
  s.estimate = total % 2 ? walsh[total / 2] : (walsh[total / 2 - 1] + walsh[total / 2]) / 2;
  double tieTerm = 0;
  size_t n = rankedAbs(d, tieTerm).size();
  long c;
  if (tieTerm == 0 && n == d.size() && n <= kMannWhitneyExactMaxTotal) {
    c = criticalFromTable(signedRankCdfTable(n), alpha);
  } else {
    double dn = static_cast<double>(d.size()), sigma = std::sqrt(dn * (dn + 1) * (2 * dn + 1) / 24);
    c = static_cast<long>(std::ceil(static_cast<double>(total) / 2 -
                                    upperNormalQuantile(alpha / 2) * sigma)) - 1;
  }
  return withInterval(s, walsh, c);
}

Comparison compare(const Trials &baseline, const Trials &candidate,
                   const CompareOptions &options) {
  Comparison c;
  double nan = std::numeric_limits<double>::quiet_NaN();
  c.changeLow = c.changeHigh = nan;
  std::vector<int64_t> a = pooled(baseline), b = pooled(candidate);
  c.baseline = summarize(a);
  c.candidate = summarize(b);
  std::vector<double> la = logTrialMedians(baseline), lb = logTrialMedians(candidate);
  c.baselineTrials = la.size();
  c.candidateTrials = lb.size();
  c.baselineMedian = c.baseline.median;
  c.candidateMedian = c.candidate.median;
  if (a.empty() || b.empty()) {
    c.verdict = Verdict::Ambiguous;
    c.reason = a.empty() ? "no baseline samples" : "no candidate samples";
    return c;
  }
  std::string sizes = format("%.0f vs %.0f trials", static_cast<double>(la.size()),
                             static_cast<double>(lb.size()));
  double effect = options.threshold;
  c.trialed = la.size() >= options.minTrials && lb.size() >= options.minTrials;
  std::vector<double> ratios; // paired: log(candidate_t / baseline_t)
  if (options.paired && baseline.size() == candidate.size())
    for (size_t t = 0; t < baseline.size(); ++t)
      if (!baseline[t].empty() && !candidate[t].empty())
        ratios.push_back(std::log(std::max(median(candidate[t]), 1.0)) -
                         std::log(std::max(median(baseline[t]), 1.0)));
  c.paired = ratios.size() >= options.minPairs;
  if (c.paired || c.trialed) {
    // Trial level: the test and the Hodges-Lehmann interval on log trial medians (paired: on
    // the pairs' log ratios), as a relative change.
    ShiftEstimate shift;
    std::string label;
    if (c.paired) {
      c.trialed = true;
      SignedRankResult t = wilcoxonSignedRank(ratios);
      c.test = {t.tPlus, t.tMinus, t.z, t.pValue, t.exact};
      shift = hodgesLehmannPaired(ratios, options.alpha);
      label = format("%.0f paired trials", static_cast<double>(ratios.size()));
    } else {
      c.test = mannWhitneyU(la, lb);
      shift = hodgesLehmann(la, lb, options.alpha);
      label = sizes;
    }
    c.baselineMedian = medianOfTrials(baseline);
    c.candidateMedian = medianOfTrials(candidate);
    c.change = std::expm1(shift.estimate);
    c.changeLow = std::expm1(shift.low);
    c.changeHigh = std::expm1(shift.high);
    c.significant = c.test.pValue < options.alpha;
    sizes = label + format(": p=%.3g, %+.1f%% [%+.1f%%, %+.1f%%]", c.test.pValue,
                           c.change * 100, c.changeLow * 100, c.changeHigh * 100);
  } else {
    c.test = mannWhitneyU(a, b);
    if (c.baseline.median != 0)
      c.change = c.candidate.median / c.baseline.median - 1;
    else
      c.change = c.candidate.median == 0 ? 0.0 : std::numeric_limits<double>::infinity();
    effect *= options.untrialedFactor;
    bool enough = a.size() >= options.minSamples && b.size() >= options.minSamples;
    c.significant = enough && c.test.pValue < options.alpha;
    sizes += enough ? format(", samples pooled: p=%.3g, median %+.1f%%", c.test.pValue,
                             c.change * 100)
                    : format(", too few samples (%.0f, need %.0f): median %+.1f%%",
                             static_cast<double>(std::min(a.size(), b.size())),
                             static_cast<double>(options.minSamples), c.change * 100);
  }
  double absolute = std::fabs(c.candidateMedian - c.baselineMedian);
  bool big = std::fabs(c.change) >= effect && absolute >= options.minAbsoluteNs;
  if (big && c.significant) {
    c.verdict = c.change < 0 ? Verdict::Faster : Verdict::Slower;
    c.reason = sizes + format(", |change| >= %g%%", effect * 100);
  } else if (big) {
    c.verdict = Verdict::Ambiguous;
    c.reason = sizes + format(", |change| >= %g%% but not significant at %g", effect * 100,
                              options.alpha);
  } else if (!c.trialed && std::fabs(c.change) >= options.threshold &&
             absolute >= options.minAbsoluteNs) {
    c.verdict = Verdict::Ambiguous;
    c.reason = sizes + format(", |change| >= %g%%: needs %.0f trials per side to tell from "
                              "run-to-run drift",
                              options.threshold * 100, static_cast<double>(options.minTrials));
  } else {
    c.verdict = Verdict::Same;
    c.reason = sizes + (absolute < options.minAbsoluteNs && std::fabs(c.change) >= effect
                            ? format(", |difference| %.0f ns < %.0f ns", absolute,
                                     options.minAbsoluteNs)
                            : format(", |change| < %g%%", effect * 100));
  }
  return c;
}

Comparison compare(const std::vector<int64_t> &baseline, const std::vector<int64_t> &candidate,
                   const CompareOptions &options) {
  return compare(Trials{baseline}, Trials{candidate}, options);
}

Comparison compare(const std::vector<int64_t> &baseline, const std::vector<int64_t> &candidate,
                   double threshold) {
  CompareOptions options;
  options.threshold = threshold;
  return compare(baseline, candidate, options);
}

} // namespace loupe::profiler
