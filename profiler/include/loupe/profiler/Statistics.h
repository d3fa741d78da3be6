//===- Statistics.h - Order statistics and A/B verdicts of timings -*- C++ -*-===//
//
// Robust summaries (median, quartiles, IQR) of duration samples and the comparison of two
// sample sets. Method after nvbench and Triton's do_bench (report the median and IQR of many
// samples, keep the raw samples); significance from the Mann-Whitney U test (H. B. Mann and
// D. R. Whitney, "On a Test of Whether one of Two Random Variables is Stochastically Larger
// than the Other", Ann. Math. Statist. 18(1), 1947), which assumes no distribution: timing
// noise is skewed and heavy-tailed, so a t-test would be wrong.
//
// All samples are int64 nanoseconds (any unit works, results are in the input's unit).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_STATISTICS_H
#define LOUPE_PROFILER_STATISTICS_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loupe::profiler {

/// The q-quantile (0 <= q <= 1) with linear interpolation between closest ranks: Hyndman & Fan
/// type 7, numpy's default `method="linear"`: h = (n-1)q, x[floor h] + (h - floor h) *
/// (x[floor h + 1] - x[floor h]) on the sorted samples. NaN for an empty input; q is clamped to
/// [0, 1]. `sorted` must be sorted ascending.
double quantileSorted(const std::vector<int64_t> &sorted, double q);
/// As quantileSorted, on unsorted samples (sorts a copy).
double quantile(std::vector<int64_t> samples, double q);
/// quantile(samples, 0.5): the middle value, or the mean of the two middle values.
double median(std::vector<int64_t> samples);

/// Summary of a sample set, in the samples' unit (ns). Quartiles as quantileSorted.
struct Summary {
  size_t count = 0;
  int64_t min = 0; ///< 0 when empty.
  int64_t max = 0; ///< 0 when empty.
  double mean = 0; ///< NaN when empty, as median, q1, q3.
  double median = 0;
  double q1 = 0; ///< 25th percentile.
  double q3 = 0; ///< 75th percentile.
  /// Interquartile range q3 - q1.
  double iqr() const { return q3 - q1; }
};
Summary summarize(std::vector<int64_t> samples);

enum class MannWhitneyMethod {
  /// Exact when there are no ties and n1 + n2 <= kMannWhitneyExactMaxTotal, else asymptotic.
  Auto,
  /// Exact null distribution; falls back to Asymptotic when there are ties.
  Exact,
  /// Normal approximation with tie correction and continuity correction (0.5).
  Asymptotic,
};
/// Largest n1 + n2 for which Auto uses the exact distribution.
inline constexpr size_t kMannWhitneyExactMaxTotal = 50;

struct MannWhitneyResult {
  /// U of the first sample: the number of pairs (a, b) with a > b, ties counting 1/2
  /// (= R1 - n1(n1+1)/2 with midranks). U2 = n1*n2 - u1.
  double u1 = 0;
  double u2 = 0;
  /// Standardised statistic (U1 - n1 n2 / 2 -+ 0.5) / sigma, sigma tie-corrected; 0 if exact.
  double z = 0;
  /// Two-sided p-value in [0, 1]; 1 when either sample is empty or all values are equal.
  double pValue = 1;
  /// True when pValue comes from the exact null distribution.
  bool exact = false;
};

/// Two-sided Mann-Whitney U test of H0 "a and b come from the same distribution".
/// Asymptotic: sigma^2 = n1 n2 / 12 * ((n+1) - sum(t^3 - t) / (n (n-1))) over tie groups of size
/// t, p = erfc(|z| / sqrt 2). Exact: p = min(1, 2 P(U <= min(U1, U2))). Matches
/// scipy.stats.mannwhitneyu(a, b, alternative="two-sided") with the same method.
MannWhitneyResult mannWhitneyU(const std::vector<int64_t> &a, const std::vector<int64_t> &b,
                               MannWhitneyMethod method = MannWhitneyMethod::Auto);

/// As mannWhitneyU, on real values (e.g. the medians of trials, or their logarithms).
MannWhitneyResult mannWhitneyU(const std::vector<double> &a, const std::vector<double> &b,
                               MannWhitneyMethod method = MannWhitneyMethod::Auto);

/// The Hodges-Lehmann estimate of the shift from x to y and its distribution-free confidence
/// interval (E. L. Lehmann, "Nonparametrics", 1975, sec. 2.6; R's wilcox.test(conf.int=TRUE)):
/// estimate = the median of the m*n differences y_j - x_i; with c the largest integer such
/// that P(U <= c) <= alpha/2 under H0, the interval is [d_(c+1), d_(mn-c)] of the sorted
/// differences (1-based). P from the exact U distribution without ties and m + n <=
/// kMannWhitneyExactMaxTotal, else c = ceil(mn/2 - z_(1-alpha/2) sigma) - 1, sigma^2 =
/// mn(m+n+1)/12. The interval excludes 0 exactly when the exact two-sided test rejects at
/// alpha. low/high are -inf/+inf when the samples are too small for any c >= 0 (m = n = 3 at
/// alpha 0.05); all NaN when either side is empty.
struct ShiftEstimate {
  double estimate = 0;
  double low = 0;
  double high = 0;
};
ShiftEstimate hodgesLehmann(const std::vector<double> &x, const std::vector<double> &y,
                            double alpha = 0.05);

/// Wilcoxon signed-rank test of H0 "the differences `d` are symmetric about 0", two-sided
/// (F. Wilcoxon, "Individual Comparisons by Ranking Methods", Biometrics Bulletin 1(6), 1945).
/// Zero differences are dropped (Wilcoxon's convention); ranks of |d| use midranks. Exact
/// without ties and n <= kMannWhitneyExactMaxTotal: p = min(1, 2 P(T <= min(T+, T-))); else
/// z = (T+ - n(n+1)/4) / sigma, sigma^2 = n(n+1)(2n+1)/24 - sum(t^3 - t)/48, no continuity
/// correction. Matches scipy.stats.wilcoxon(d) (zero_method="wilcox", correction=False).
struct SignedRankResult {
  size_t n = 0;       ///< Non-zero differences.
  double tPlus = 0;   ///< Sum of the ranks of the positive differences.
  double tMinus = 0;
  double z = 0;       ///< 0 when exact.
  double pValue = 1;  ///< 1 when n == 0.
  bool exact = false;
};
SignedRankResult wilcoxonSignedRank(const std::vector<double> &d);

/// The Hodges-Lehmann estimate of the centre of the differences `d` (the median of the
/// n(n+1)/2 Walsh averages (d_i + d_j)/2, i <= j) and its distribution-free interval: with c
/// the largest integer such that P(T <= c) <= alpha/2 under H0, [W_(c+1), W_(N-c)] of the
/// sorted averages (Lehmann 1975, sec. 4.3). Exact as wilcoxonSignedRank, else c = ceil(N/2 -
/// z_(1-alpha/2) sigma) - 1. Unbounded when n is too small (n <= 5 at alpha 0.05).
ShiftEstimate hodgesLehmannPaired(const std::vector<double> &d, double alpha = 0.05);

/// The samples of the independent trials of one side of a comparison, ns: one vector per
/// trial, a trial being a fresh run (new execution context, its own warmup), interleaved with
/// the other side's trials (A B A B ...) so that drift hits both sides alike.
using Trials = std::vector<std::vector<int64_t>>;

/// How a candidate's timings compare with a baseline's.
enum class Verdict { Same, Faster, Slower, Ambiguous };
/// "SAME", "FASTER", "SLOWER", "AMBIGUOUS" (the spelling stored in the DB and in reports).
const char *verdictName(Verdict verdict);
/// Inverse of verdictName (exact spelling); nullopt for anything else.
std::optional<Verdict> parseVerdict(std::string_view name);

struct CompareOptions {
  /// Minimum relative effect: the smallest change of the median that matters (0.05 = 5%).
  double threshold = 0.05;
  /// Significance level of the Mann-Whitney test; the confidence interval is 1 - alpha.
  double alpha = 0.05;
  /// Trials per side for a verdict on trial medians (run-to-run drift measured). 4 is the
  /// fewest for which the exact two-sided test can reach p < 0.05 (2 / C(8, 4) = 0.029).
  size_t minTrials = 4;
  /// The sides' trials were interleaved in pairs (trial t of the baseline, then trial t of the
  /// candidate, in one process): with equal counts of at least minPairs, the verdict takes
  /// the paired log ratios (signed-rank test), which cancels drift both trials of a pair share.
  bool paired = false;
  /// 6 is the fewest pairs for which the exact two-sided test can reach p < 0.05 (2 / 64).
  size_t minPairs = 6;
  /// Fewer trials: the samples of the trials are pooled, and a change counts only from
  /// untrialedFactor * threshold on (20% by default), since samples of one run cannot show
  /// the drift between runs (docs/profiler.md).
  double untrialedFactor = 4;
  /// Fewer pooled samples than this on either side cannot show a significant change.
  size_t minSamples = 9;
  /// Minimum absolute effect on the median, ns: changes below it are noise of the clock and
  /// the tracer, whatever their relative size (sessions use kTimerResolutionMultiple times the
  /// measured timer resolution).
  double minAbsoluteNs = 0;
};

/// Result of compare(): the verdict and the numbers behind it.
struct Comparison {
  Verdict verdict = Verdict::Ambiguous;
  Summary baseline;  ///< Of all samples of all trials.
  Summary candidate;
  /// Each side's central time, ns: the median of its trials' medians when trialed, else the
  /// pooled median; NaN for a side without samples.
  double baselineMedian = 0, candidateMedian = 0;
  size_t baselineTrials = 0, candidateTrials = 0; ///< Trials with samples.
  /// Trial-level: the verdict came from the trials' medians (>= minTrials per side).
  bool trialed = false;
  /// Trial-level and paired: from the log ratios of the pairs' medians (signed-rank test).
  bool paired = false;
  /// Relative change, -0.1 = 10% faster. Trial-level: exp(Hodges-Lehmann shift of the log
  /// trial medians; paired: their centre of the pairs' log ratios) - 1; else candidate median / baseline median - 1 of the pooled samples (0
  /// when both are 0, +inf when only the baseline's is).
  double change = 0;
  /// Trial-level: the 1 - alpha confidence interval of `change`; NaN otherwise.
  double changeLow = 0, changeHigh = 0;
  /// On the log trial medians when trialed, on the pooled samples otherwise. Paired: the
  /// signed-rank test's p in test.pValue and its z in test.z (u1, u2: T+, T-).
  MannWhitneyResult test;
  /// test.pValue < alpha with enough data (trialed, or minSamples per side).
  bool significant = false;
  /// One line saying why, e.g. "5 vs 5 trials: p=0.0079 < 0.05, +12.1% [+8.3%, +15.0%]".
  std::string reason;
};

/// Compares candidate timings with baseline timings (ns; lower is better); method and sources
/// in docs/profiler.md ("Verdicts"). big = |change| >= the minimum relative effect (threshold;
/// untrialedFactor * threshold without enough trials) and |median difference| >=
/// minAbsoluteNs:
///   - either side without samples              -> Ambiguous;
///   - big and significant                      -> Faster / Slower by the sign of change;
///   - big and not significant                  -> Ambiguous (too noisy to tell);
///   - untrialed, |change| >= threshold, not big -> Ambiguous (needs trials to tell);
///   - otherwise                                -> Same (no change that matters was seen).
Comparison compare(const Trials &baseline, const Trials &candidate,
                   const CompareOptions &options);
/// One trial per side.
Comparison compare(const std::vector<int64_t> &baseline, const std::vector<int64_t> &candidate,
                   const CompareOptions &options);
/// compare() with default options but the given threshold, one trial per side.
Comparison compare(const std::vector<int64_t> &baseline, const std::vector<int64_t> &candidate,
                   double threshold = 0.05);

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_STATISTICS_H
