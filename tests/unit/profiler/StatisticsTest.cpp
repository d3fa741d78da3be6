//===- StatisticsTest.cpp - Order statistics, Mann-Whitney U, verdicts ------===//
//
// Expected values computed by hand (and checked with a brute-force enumeration of the exact
// null distribution); scipy.stats.mannwhitneyu gives the same numbers.
//
//===----------------------------------------------------------------------===//

#include "loupe/profiler/Statistics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace loupe::profiler;

namespace {

std::vector<int64_t> range(int64_t from, int64_t count, int64_t step = 1) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < count; ++i)
    v.push_back(from + i * step);
  return v;
}

std::vector<int64_t> scaled(const std::vector<int64_t> &v, double factor) {
  std::vector<int64_t> out;
  for (int64_t x : v)
    out.push_back(static_cast<int64_t>(std::llround(static_cast<double>(x) * factor)));
  return out;
}

} // namespace

TEST(Statistics, MedianOddAndEven) {
  EXPECT_DOUBLE_EQ(median({5, 1, 3}), 3.0);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7.0);
  EXPECT_TRUE(std::isnan(median({})));
}

TEST(Statistics, QuantilesUseLinearInterpolation) {
  // numpy.percentile([1..10], [25, 75]) = [3.25, 7.75].
  std::vector<int64_t> v = range(1, 10);
  EXPECT_DOUBLE_EQ(quantile(v, 0.25), 3.25);
  EXPECT_DOUBLE_EQ(quantile(v, 0.75), 7.75);
  EXPECT_DOUBLE_EQ(quantile(v, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(v, 1.0), 10.0);
  // h = 5 * 0.25 = 1.25 -> 15 + 0.25 * (36 - 15); h = 3.75 -> 39 + 0.75 * (40 - 39).
  Summary s = summarize({41, 7, 39, 15, 40, 36});
  EXPECT_EQ(s.count, 6u);
  EXPECT_EQ(s.min, 7);
  EXPECT_EQ(s.max, 41);
  EXPECT_DOUBLE_EQ(s.mean, 178.0 / 6.0);
  EXPECT_DOUBLE_EQ(s.median, 37.5);
  EXPECT_DOUBLE_EQ(s.q1, 20.25);
  EXPECT_DOUBLE_EQ(s.q3, 39.75);
  EXPECT_DOUBLE_EQ(s.iqr(), 19.5);
}

TEST(Statistics, SummaryOfEmptyAndHugeValues) {
  Summary e = summarize({});
  EXPECT_EQ(e.count, 0u);
  EXPECT_TRUE(std::isnan(e.median));
  EXPECT_TRUE(std::isnan(e.mean));
  // The mean must not overflow int64.
  int64_t big = INT64_MAX / 2 + 1;
  Summary b = summarize({big, big, big});
  EXPECT_DOUBLE_EQ(b.mean, static_cast<double>(big));
}

// scipy.stats.mannwhitneyu documentation example (ages of male and female faculty).
TEST(MannWhitney, TextbookExampleExactAndAsymptotic) {
  std::vector<int64_t> males = {19, 22, 16, 29, 24};
  std::vector<int64_t> females = {20, 11, 17, 12};
  MannWhitneyResult exact = mannWhitneyU(males, females);
  EXPECT_TRUE(exact.exact);
  EXPECT_DOUBLE_EQ(exact.u1, 17.0);
  EXPECT_DOUBLE_EQ(exact.u2, 3.0);
  // P(U <= 3) = 7 / 126 arrangements; two-sided: 14 / 126.
  EXPECT_NEAR(exact.pValue, 14.0 / 126.0, 1e-12);

  MannWhitneyResult approx = mannWhitneyU(males, females, MannWhitneyMethod::Asymptotic);
  EXPECT_FALSE(approx.exact);
  EXPECT_DOUBLE_EQ(approx.u1, 17.0);
  // mu = 10, sigma = sqrt(20 * 10 / 12), z = (7 - 0.5) / sigma.
  EXPECT_NEAR(approx.z, 6.5 / std::sqrt(200.0 / 12.0), 1e-12);
  EXPECT_NEAR(approx.pValue, 0.11134688653314041, 1e-12);
}

TEST(MannWhitney, TiesUseMidranksAndTieCorrection) {
  // Pooled ranks: 1 -> 1, 2 -> 3 (x3), 3 -> 6 (x3), 4 -> 8, 5 -> 9, 6 -> 10, 7 -> 11.
  // R1 = 1 + 3 + 3 + 6 + 8 = 21, U1 = 21 - 15 = 6; sum(t^3 - t) = 48, n = 11.
  std::vector<int64_t> a = {1, 2, 2, 3, 4};
  std::vector<int64_t> b = {2, 3, 3, 5, 6, 7};
  MannWhitneyResult r = mannWhitneyU(a, b); // ties force the asymptotic method
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u1, 6.0);
  EXPECT_DOUBLE_EQ(r.u2, 24.0);
  double sigma = std::sqrt(30.0 / 12.0 * (12.0 - 48.0 / 110.0));
  EXPECT_NEAR(r.z, -8.5 / sigma, 1e-12);
  EXPECT_NEAR(r.pValue, 0.11390314458853065, 1e-12);
  // Exact was asked for but cannot be used with ties.
  EXPECT_FALSE(mannWhitneyU(a, b, MannWhitneyMethod::Exact).exact);
}

TEST(MannWhitney, ExactLargerSampleAndSymmetry) {
  std::vector<int64_t> a = range(20, 10, 2); // 20, 22, ..., 38
  std::vector<int64_t> b = range(31, 10, 2); // 31, 33, ..., 49
  MannWhitneyResult r = mannWhitneyU(a, b);
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u1, 10.0); // 32 > 31; 34 > 31, 33; 36 > 3 of b; 38 > 4 of b
  // 139 of the C(20, 10) = 184756 arrangements have U <= 10.
  EXPECT_NEAR(r.pValue, 2.0 * 139.0 / 184756.0, 1e-12);
  MannWhitneyResult swapped = mannWhitneyU(b, a);
  EXPECT_DOUBLE_EQ(swapped.u1, 90.0);
  EXPECT_NEAR(swapped.pValue, r.pValue, 1e-15);
  // Asymptotic on the same data: z = -(40 - 0.5) / sqrt(100 * 21 / 12).
  MannWhitneyResult approx = mannWhitneyU(a, b, MannWhitneyMethod::Asymptotic);
  EXPECT_NEAR(approx.z, -39.5 / std::sqrt(175.0), 1e-12);
  EXPECT_NEAR(approx.pValue, 0.0028272720911168138, 1e-12);
}

// The exact p-value equals a brute-force count over all C(m+n, m) rank arrangements.
TEST(MannWhitney, ExactMatchesEnumeration) {
  for (int m = 1; m <= 6; ++m)
    for (int n = 1; n <= 6; ++n) {
      // Sample a takes ranks 0, 2, 4, ... (as far as they go), b the rest: some fixed U.
      std::vector<int64_t> a, b;
      for (int i = 0; i < m + n; ++i)
        ((i % 2 == 0 && static_cast<int>(a.size()) < m) || static_cast<int>(b.size()) == n ? a : b)
            .push_back(i);
      MannWhitneyResult r = mannWhitneyU(a, b);
      ASSERT_TRUE(r.exact);
      double k = std::min(r.u1, r.u2);
      // Enumerate which of the m+n positions belong to the first sample.
      std::vector<bool> pick(m + n, false);
      std::fill(pick.begin(), pick.begin() + m, true);
      double atMost = 0, total = 0;
      do {
        double u = 0; // pairs (a, b) with a above b
        int bsBelow = 0;
        for (int i = 0; i < m + n; ++i) {
          if (pick[i])
            u += bsBelow;
          else
            ++bsBelow;
        }
        total += 1;
        atMost += u <= k ? 1 : 0;
      } while (std::prev_permutation(pick.begin(), pick.end()));
      EXPECT_NEAR(r.pValue, std::min(1.0, 2 * atMost / total), 1e-12) << m << " vs " << n;
    }
}

TEST(MannWhitney, DegenerateInputs) {
  EXPECT_DOUBLE_EQ(mannWhitneyU(std::vector<int64_t>{}, {1, 2}).pValue, 1.0);
  MannWhitneyResult allEqual = mannWhitneyU(std::vector<int64_t>{5, 5, 5}, {5, 5});
  EXPECT_DOUBLE_EQ(allEqual.u1, 3.0);
  EXPECT_DOUBLE_EQ(allEqual.pValue, 1.0);
  // Large identical samples: p = 1 (continuity correction), never above 1.
  std::vector<int64_t> v = range(1000, 200);
  EXPECT_DOUBLE_EQ(mannWhitneyU(v, v).pValue, 1.0);
}

TEST(Verdict, Names) {
  for (Verdict v : {Verdict::Same, Verdict::Faster, Verdict::Slower, Verdict::Ambiguous})
    EXPECT_EQ(parseVerdict(verdictName(v)), v);
  EXPECT_STREQ(verdictName(Verdict::Faster), "FASTER");
  EXPECT_FALSE(parseVerdict("faster").has_value());
}

TEST(HodgesLehmann, ExactIntervalUsesTheCriticalValueOfU) {
  // Published two-sided 5% critical values of U (e.g. Siegel & Castellan, table J): the interval
  // runs from the (c+1)-th smallest to the (c+1)-th largest of the m*n differences.
  auto c = [](size_t m, size_t n) {
    std::vector<double> x, y;
    for (size_t i = 0; i < m; ++i)
      x.push_back(static_cast<double>(i));
    for (size_t j = 0; j < n; ++j)
      y.push_back(1000.0 + static_cast<double>(j) * 0.37); // distinct differences
    ShiftEstimate s = hodgesLehmann(x, y);
    std::vector<double> d;
    for (double a : x)
      for (double b : y)
        d.push_back(b - a);
    std::sort(d.begin(), d.end());
    size_t k = std::find(d.begin(), d.end(), s.low) - d.begin();
    EXPECT_EQ(d[d.size() - 1 - k], s.high);
    return k;
  };
  EXPECT_EQ(c(4, 4), 0u);
  EXPECT_EQ(c(5, 5), 2u);
  EXPECT_EQ(c(6, 6), 5u);
  EXPECT_EQ(c(8, 8), 13u);
  EXPECT_EQ(c(10, 10), 23u);
  EXPECT_EQ(c(5, 10), 8u);
}

TEST(HodgesLehmann, EstimateAndIntervalOnFixedData) {
  // R: wilcox.test(6:10, 1:5, conf.int = TRUE) -> estimate 5, 95% interval [2, 8].
  ShiftEstimate s = hodgesLehmann({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(s.estimate, 5);
  EXPECT_DOUBLE_EQ(s.low, 2);
  EXPECT_DOUBLE_EQ(s.high, 8);
  // numpy: np.median(np.subtract.outer([3.1, 0.2, 7.5], [1.0, 2.5])) = 1.35, the middle of
  // the differences -2.3 -0.8 0.6 2.1 5.0 6.5.
  EXPECT_NEAR(hodgesLehmann({1.0, 2.5}, {3.1, 0.2, 7.5}).estimate, 1.35, 1e-12);
  // 3 vs 3 cannot exclude anything at 5%: the interval is unbounded.
  ShiftEstimate tiny = hodgesLehmann({1, 2, 3}, {10, 11, 12});
  EXPECT_TRUE(std::isinf(tiny.low) && std::isinf(tiny.high));
  EXPECT_TRUE(std::isnan(hodgesLehmann({}, {1.0}).estimate));
}

TEST(HodgesLehmann, IntervalExcludesZeroExactlyWhenTheTestRejects) {
  // Shifting y through x: the exact test and the interval agree at every step.
  std::vector<double> x = {10, 12, 15, 19, 24, 30};
  for (double shift = -30; shift <= 30; shift += 0.75) {
    std::vector<double> y;
    for (double v : {11.3, 13.9, 16.2, 21.7, 25.1, 28.4})
      y.push_back(v + shift);
    ShiftEstimate s = hodgesLehmann(x, y);
    MannWhitneyResult t = mannWhitneyU(x, y, MannWhitneyMethod::Exact);
    bool rejects = t.pValue < 0.05, excludes = s.low > 0 || s.high < 0;
    EXPECT_EQ(rejects, excludes) << "shift " << shift << " p " << t.pValue;
  }
}

TEST(SignedRank, ExactAndAsymptoticOnFixedData) {
  // |d| ranks 3 1 5 7 2 4 6, one negative (rank 1): T+ = 27, T- = 1, exact p = 2 * 2 / 128.
  SignedRankResult r = wilcoxonSignedRank({1.2, -0.5, 2.3, 3.1, 0.8, 1.9, 2.7});
  EXPECT_EQ(r.n, 7u);
  EXPECT_DOUBLE_EQ(r.tPlus, 27);
  EXPECT_DOUBLE_EQ(r.tMinus, 1);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.pValue, 4.0 / 128.0, 1e-15);
  // Zeros are dropped; ties among |d| take the normal approximation with tie correction:
  // d = 1 1 -2 3 3 3 (zeros dropped), midranks 1.5 1.5 3 5 5 5, T+ = 18, T- = 3,
  // sigma^2 = 6*7*13/24 - ((8-2) + (27-3))/48 = 22.75 - 0.625, z = (18 - 10.5)/sigma.
  SignedRankResult tied = wilcoxonSignedRank({1, 0, 1, -2, 3, 0, 3, 3});
  EXPECT_EQ(tied.n, 6u);
  EXPECT_FALSE(tied.exact);
  EXPECT_DOUBLE_EQ(tied.tPlus, 18);
  double z = 7.5 / std::sqrt(22.75 - 0.625);
  EXPECT_NEAR(tied.z, z, 1e-12);
  EXPECT_NEAR(tied.pValue, std::erfc(z / std::sqrt(2.0)), 1e-12);
  EXPECT_DOUBLE_EQ(wilcoxonSignedRank({0, 0}).pValue, 1.0);
}

TEST(SignedRank, IntervalUsesTheCriticalValueOfT) {
  // Published two-sided 5% critical values of T (e.g. Siegel & Castellan, table H): n = 6..10
  // -> 0, 2, 3, 5, 8. The interval runs from the (c+1)-th smallest Walsh average.
  for (auto [n, critical] : std::vector<std::pair<size_t, size_t>>{{6, 0}, {7, 2}, {8, 3}, {9, 5}, {10, 8}}) {
    std::vector<double> d;
    for (size_t i = 0; i < n; ++i)
      d.push_back(1.0 + static_cast<double>(i * i) * 0.13); // distinct Walsh averages
    std::vector<double> walsh;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i; j < n; ++j)
        walsh.push_back((d[i] + d[j]) / 2);
    std::sort(walsh.begin(), walsh.end());
    ShiftEstimate s = hodgesLehmannPaired(d);
    EXPECT_EQ(s.low, walsh[critical]) << n;
    EXPECT_EQ(s.high, walsh[walsh.size() - 1 - critical]) << n;
  }
  EXPECT_TRUE(std::isinf(hodgesLehmannPaired({1, 2, 3, 4, 5}).low)) << "5 pairs bound nothing";
  // numpy: np.median([(a + b) / 2 for i, a in enumerate(d) for b in d[i:]]) = 1.725 for
  // d = [0.5, 1.2, 2.2, 3.0].
  EXPECT_NEAR(hodgesLehmannPaired({0.5, 1.2, 2.2, 3.0}).estimate, 1.725, 1e-12);
}

/// `count` trials of `perTrial` samples around `median`, each trial scaled by its own drift.
Trials trials(double median, const std::vector<double> &drifts, int64_t perTrial = 20) {
  Trials out;
  for (double drift : drifts)
    out.push_back(scaled(range(1000, perTrial), median / 1009.5 * drift));
  return out;
}

TEST(Verdict, TrialsTellDriftFromAChange) {
  // A/A with 10% run-to-run drift: within each run the samples differ by 2%, so a
  // sample-level test would call the first pair of trials different; trial medians do not.
  std::vector<double> drift = {1.00, 1.10, 0.97, 1.06, 1.02};
  std::vector<double> driftB = {1.08, 0.99, 1.04, 0.96, 1.07};
  Comparison aa = compare(trials(1e6, drift), trials(1e6, driftB), CompareOptions{});
  EXPECT_TRUE(aa.trialed);
  EXPECT_EQ(aa.baselineTrials, 5u);
  EXPECT_EQ(aa.verdict, Verdict::Same) << aa.reason;
  EXPECT_LT(aa.changeLow, 0);
  EXPECT_GT(aa.changeHigh, 0);

  // The same drift with a real +20% on every candidate trial: SLOWER, interval above 0.
  std::vector<double> slower;
  for (double d : driftB)
    slower.push_back(d * 1.2);
  Comparison c = compare(trials(1e6, drift), trials(1e6, slower), CompareOptions{});
  EXPECT_EQ(c.verdict, Verdict::Slower) << c.reason;
  EXPECT_TRUE(c.significant);
  EXPECT_GT(c.changeLow, 0);
  EXPECT_GT(c.change, 0.12);
  EXPECT_LT(c.change, 0.28);
  // Complete separation of 5 vs 5 trials: exact p = 2 / 252.
  EXPECT_NEAR(c.test.pValue, 2.0 / 252.0, 1e-12);

  // +8% with 10% drift: p = 2 * 7 / 252 >= 0.05, |change| >= 5% -> AMBIGUOUS.
  std::vector<double> shifted;
  for (double d : driftB)
    shifted.push_back(d * 1.08);
  EXPECT_EQ(compare(trials(1e6, drift), trials(1e6, shifted), CompareOptions{}).verdict,
            Verdict::Ambiguous);
}

TEST(Verdict, PairedTrialsCancelAStepBothSidesShare) {
  // The process slows by 20% from the third pair on (as a thread pool settling does): A/A
  // trials are unpaired-indistinguishable, and a +8% candidate is found only when paired.
  std::vector<double> step = {1.0, 1.0, 1.2, 1.2, 1.2, 1.2, 1.2};
  std::vector<double> slower;
  for (size_t i = 0; i < step.size(); ++i)
    slower.push_back(step[i] * (i == 2 ? 1.0 : 1.08)); // one pair straddles the step
  CompareOptions paired;
  paired.paired = true;
  Comparison c = compare(trials(1e6, step), trials(1e6, slower), paired);
  EXPECT_TRUE(c.paired);
  EXPECT_EQ(c.verdict, Verdict::Slower) << c.reason;
  EXPECT_NEAR(c.change, 0.08, 0.005);
  EXPECT_GT(c.changeLow, 0);
  Comparison unpaired = compare(trials(1e6, step), trials(1e6, slower), CompareOptions{});
  EXPECT_FALSE(unpaired.paired);
  EXPECT_NE(unpaired.verdict, Verdict::Slower) << unpaired.reason;
  // A/A under the same step: SAME, paired or not.
  EXPECT_EQ(compare(trials(1e6, step), trials(1e6, step), paired).verdict, Verdict::Same);
  // Fewer than 6 pairs fall back to the unpaired test.
  std::vector<double> five(step.begin(), step.begin() + 5);
  EXPECT_FALSE(compare(trials(1e6, five), trials(1e6, five), paired).paired);
}

TEST(Verdict, MinimumAbsoluteEffect) {
  // 50 ns -> 60 ns on every trial: +20% and significant, but below a 250 ns floor.
  std::vector<double> flat(5, 1.0);
  CompareOptions options;
  options.minAbsoluteNs = 250;
  Comparison c = compare(trials(50, flat, 20), trials(60, flat, 20), options);
  EXPECT_TRUE(c.significant);
  EXPECT_EQ(c.verdict, Verdict::Same) << c.reason;
  options.minAbsoluteNs = 5;
  EXPECT_EQ(compare(trials(50, flat, 20), trials(60, flat, 20), options).verdict,
            Verdict::Slower);
}

TEST(Verdict, OneTrialNeedsAFourTimesLargerChange) {
  std::vector<int64_t> base = range(1000, 20);
  // Significant -20% / +25% of one trial each: at or above 4 x 5%.
  Comparison faster = compare(base, scaled(base, 0.75));
  EXPECT_FALSE(faster.trialed);
  EXPECT_EQ(faster.verdict, Verdict::Faster) << faster.reason;
  EXPECT_TRUE(faster.significant);
  EXPECT_NEAR(faster.change, -0.25, 1e-3);
  EXPECT_TRUE(std::isnan(faster.changeLow));
  EXPECT_EQ(compare(base, scaled(base, 1.25)).verdict, Verdict::Slower);

  // Identical: SAME.
  Comparison same = compare(base, base);
  EXPECT_EQ(same.verdict, Verdict::Same) << same.reason;
  EXPECT_DOUBLE_EQ(same.change, 0.0);

  // A significant -15% of one trial each could be drift between the runs: AMBIGUOUS.
  Comparison drift = compare(base, scaled(base, 0.85));
  EXPECT_TRUE(drift.significant);
  EXPECT_EQ(drift.verdict, Verdict::Ambiguous) << drift.reason;
  // Significant but +3%: SAME (below the threshold).
  EXPECT_EQ(compare(base, range(1030, 20)).verdict, Verdict::Same);

  // +30% median but noise far larger: not significant -> AMBIGUOUS.
  std::vector<int64_t> noisy = range(10, 20, 10);        // median 105
  std::vector<int64_t> noisyShifted = range(40, 20, 10); // median 135
  Comparison unclear = compare(noisy, noisyShifted);
  EXPECT_FALSE(unclear.significant);
  EXPECT_EQ(unclear.verdict, Verdict::Ambiguous) << unclear.reason;
  // Not significant and small: SAME.
  EXPECT_EQ(compare(noisy, range(11, 20, 10)).verdict, Verdict::Same);
}

TEST(Verdict, TooFewSamples) {
  std::vector<int64_t> base = range(1000, 8);
  // 8 < 9 samples: never FASTER/SLOWER, even for a 2x change.
  Comparison big = compare(base, scaled(base, 2.0));
  EXPECT_FALSE(big.significant);
  EXPECT_EQ(big.verdict, Verdict::Ambiguous) << big.reason;
  EXPECT_EQ(compare(base, range(1001, 8)).verdict, Verdict::Same);
  // 9 each is enough.
  std::vector<int64_t> nine = range(1000, 9);
  EXPECT_EQ(compare(nine, scaled(nine, 2.0)).verdict, Verdict::Slower);
  // Empty sides.
  EXPECT_EQ(compare({}, base).verdict, Verdict::Ambiguous);
  EXPECT_EQ(compare(base, {}).verdict, Verdict::Ambiguous);
}

TEST(Verdict, CustomOptions) {
  CompareOptions options;
  options.minSamples = 3;
  options.threshold = 0.10;
  std::vector<int64_t> base = {100, 101, 102, 103, 104};
  std::vector<int64_t> cand = {50, 51, 52, 53, 54};
  // Exact p for complete separation of 5 vs 5: 2 / C(10, 5) = 2 / 252.
  Comparison c = compare(base, cand, options);
  EXPECT_NEAR(c.test.pValue, 2.0 / 252.0, 1e-12);
  EXPECT_EQ(c.verdict, Verdict::Faster) << c.reason;
}
