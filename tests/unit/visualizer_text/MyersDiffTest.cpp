//===- MyersDiffTest.cpp - Shortest edit scripts against a DP reference -----===//

#include "loupe/visualizer/text/MyersDiff.h"

#include <gtest/gtest.h>

#include <random>

using namespace loupe::visualizer::text;

namespace {

size_t lcsLength(const std::vector<uint32_t> &a, const std::vector<uint32_t> &b) {
  std::vector<std::vector<size_t>> dp(a.size() + 1, std::vector<size_t>(b.size() + 1, 0));
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      dp[i][j] = a[i - 1] == b[j - 1] ? dp[i - 1][j - 1] + 1 : std::max(dp[i - 1][j], dp[i][j - 1]);
  return dp[a.size()][b.size()];
}

/// The unmarked elements of a and b, in order, are equal pairwise; returns their count.
size_t checkCommon(const std::vector<uint32_t> &a, const std::vector<uint32_t> &b,
                   const MyersResult &r) {
  std::vector<uint32_t> ka, kb;
  for (size_t i = 0; i < a.size(); ++i)
    if (!r.deleted[i])
      ka.push_back(a[i]);
  for (size_t j = 0; j < b.size(); ++j)
    if (!r.inserted[j])
      kb.push_back(b[j]);
  EXPECT_EQ(ka, kb);
  return ka.size();
}

std::vector<uint32_t> randomSeq(std::mt19937 &rng, size_t n, uint32_t alphabet) {
  std::vector<uint32_t> s(n);
  for (uint32_t &x : s)
    x = rng() % alphabet;
  return s;
}

} // namespace

TEST(MyersDiffTest, EdgeCases) {
  std::vector<uint32_t> e, a = {1, 2, 3};
  MyersResult r = myersDiff(e.data(), 0, e.data(), 0);
  EXPECT_TRUE(r.deleted.empty());
  r = myersDiff(a.data(), 3, e.data(), 0);
  EXPECT_EQ(r.deleted, (std::vector<uint8_t>{1, 1, 1}));
  r = myersDiff(e.data(), 0, a.data(), 3);
  EXPECT_EQ(r.inserted, (std::vector<uint8_t>{1, 1, 1}));
  r = myersDiff(a.data(), 3, a.data(), 3);
  EXPECT_EQ(r.deleted, (std::vector<uint8_t>{0, 0, 0}));
  EXPECT_FALSE(r.approximate);
  // The classic example of the paper: ABCABBA -> CBABAC, D = 5.
  std::vector<uint32_t> x = {'A', 'B', 'C', 'A', 'B', 'B', 'A'}, y = {'C', 'B', 'A', 'B', 'A', 'C'};
  r = myersDiff(x.data(), x.size(), y.data(), y.size());
  EXPECT_EQ(checkCommon(x, y, r), 4u);
}

TEST(MyersDiffTest, MinimalOnRandomInputs) {
  std::mt19937 rng(11);
  for (int round = 0; round < 2000; ++round) {
    uint32_t alphabet = 1 + rng() % 6;
    std::vector<uint32_t> a = randomSeq(rng, rng() % 40, alphabet);
    std::vector<uint32_t> b = randomSeq(rng, rng() % 40, alphabet);
    MyersResult r = myersDiff(a.data(), a.size(), b.data(), b.size());
    ASSERT_FALSE(r.approximate);
    ASSERT_EQ(checkCommon(a, b, r), lcsLength(a, b)) << "round " << round;
  }
}

TEST(MyersDiffTest, CostBoundGivesValidScript) {
  std::mt19937 rng(5);
  std::vector<uint32_t> a = randomSeq(rng, 3000, 4), b = randomSeq(rng, 3000, 4);
  MyersResult exact = myersDiff(a.data(), a.size(), b.data(), b.size());
  MyersResult bounded = myersDiff(a.data(), a.size(), b.data(), b.size(), 20000);
  EXPECT_FALSE(exact.approximate);
  EXPECT_TRUE(bounded.approximate);
  EXPECT_LT(bounded.cost, exact.cost);
  size_t common = checkCommon(a, b, bounded);
  EXPECT_LE(common, checkCommon(a, b, exact));
}

TEST(MyersDiffTest, CostBoundFallsBackToUniqueAnchors) {
  // Two shuffles of mostly unique elements: past the bound, patience alignment on the unique
  // elements still finds a long common subsequence.
  std::mt19937 rng(17);
  std::vector<uint32_t> a(4000);
  for (uint32_t k = 0; k < a.size(); ++k)
    a[k] = k % 10 == 0 ? 7 : k; // a few repeated elements
  std::vector<uint32_t> b = a;
  for (int swaps = 0; swaps < 600; ++swaps)
    std::swap(b[rng() % b.size()], b[rng() % b.size()]);
  MyersResult exact = myersDiff(a.data(), a.size(), b.data(), b.size());
  MyersResult bounded = myersDiff(a.data(), a.size(), b.data(), b.size(), 1000);
  EXPECT_FALSE(exact.approximate);
  EXPECT_TRUE(bounded.approximate);
  size_t common = checkCommon(a, b, bounded), best = checkCommon(a, b, exact);
  EXPECT_LE(common, best);
  EXPECT_GT(common, best * 9 / 10);
}
