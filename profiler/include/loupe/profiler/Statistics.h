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

/// How a candidate's timings compare with a baseline's.
enum class Verdict { Same, Faster, Slower, Ambiguous };
/// "SAME", "FASTER", "SLOWER", "AMBIGUOUS" (the spelling stored in the DB and in reports).
const char *verdictName(Verdict verdict);
/// Inverse of verdictName (exact spelling); nullopt for anything else.
std::optional<Verdict> parseVerdict(std::string_view name);

struct CompareOptions {
  /// Smallest relative change of the median that matters (0.05 = 5%).
  double threshold = 0.05;
  /// Significance level of the Mann-Whitney test.
  double alpha = 0.05;
  /// Fewer samples than this on either side cannot show a significant change.
  size_t minSamples = 9;
};

/// Result of compare(): the verdict and the numbers behind it.
struct Comparison {
  Verdict verdict = Verdict::Ambiguous;
  Summary baseline;
  Summary candidate;
  /// (candidate median - baseline median) / baseline median: -0.1 = 10% faster. 0 when both
  /// medians are 0, +inf when only the baseline's is.
  double change = 0;
  MannWhitneyResult test;
  /// test.pValue < alpha and both sides have >= minSamples samples.
  bool significant = false;
  /// One line saying why, e.g. "p=0.0003 < 0.05 and median -12.1% (|change| >= 5%)".
  std::string reason;
};

/// Compares candidate timings with baseline timings (ns; lower is better). Exact rule, with
/// big = |change| >= threshold, enough = both sides have >= minSamples samples,
/// significant = enough and p < alpha:
///   - either side empty                      -> Ambiguous;
///   - not enough:        big -> Ambiguous,   small -> Same;
///   - significant:       big -> Faster/Slower by the sign of change,
///                        small -> Ambiguous (a real but smaller-than-threshold shift);
///   - not significant:   big -> Ambiguous (noise too large to tell), small -> Same.
/// So Faster/Slower needs both statistical and practical significance.
Comparison compare(const std::vector<int64_t> &baseline, const std::vector<int64_t> &candidate,
                   const CompareOptions &options);
/// compare() with default options but the given threshold.
Comparison compare(const std::vector<int64_t> &baseline, const std::vector<int64_t> &candidate,
                   double threshold = 0.05);

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_STATISTICS_H
