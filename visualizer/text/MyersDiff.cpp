//===- MyersDiff.cpp - Middle-snake divide and conquer ----------------------===//

#include "loupe/visualizer/text/MyersDiff.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace loupe::visualizer::text {

namespace {

template <typename T> class Differ {
public:
  Differ(const T *a, const T *b, MyersResult &result, uint64_t maxCost)
      : a_(a), b_(b), r_(result), maxCost_(maxCost) {}

  /// Solves a[aLo, aHi) against b[bLo, bHi).
  void compare(ptrdiff_t aLo, ptrdiff_t aHi, ptrdiff_t bLo, ptrdiff_t bHi) {
    trim(aLo, aHi, bLo, bHi);
    if (aLo == aHi || bLo == bHi) {
      markAll(aLo, aHi, bLo, bHi);
      return;
    }
    if (r_.cost > maxCost_) {
      align(aLo, aHi, bLo, bHi, 0);
      return;
    }
    ptrdiff_t x = 0, y = 0;
    if (bisect(aLo, aHi - aLo, bLo, bHi - bLo, x, y) && !(x == 0 && y == 0) &&
        !(x == aHi - aLo && y == bHi - bLo)) {
      compare(aLo, aLo + x, bLo, bLo + y);
      compare(aLo + x, aHi, bLo + y, bHi);
    } else if (r_.cost > maxCost_) {
      align(aLo, aHi, bLo, bHi, 0);
    } else {
      markAll(aLo, aHi, bLo, bHi); // no element in common
    }
  }

private:
  void trim(ptrdiff_t &aLo, ptrdiff_t &aHi, ptrdiff_t &bLo, ptrdiff_t &bHi) {
    const ptrdiff_t lo = aLo;
    while (aLo < aHi && bLo < bHi && a_[aLo] == b_[bLo])
      ++aLo, ++bLo;
    const ptrdiff_t hi = aHi;
    while (aLo < aHi && bLo < bHi && a_[aHi - 1] == b_[bHi - 1])
      --aHi, --bHi;
    r_.cost += static_cast<uint64_t>((aLo - lo) + (hi - aHi)) / 16 + 1;
  }

  void markAll(ptrdiff_t aLo, ptrdiff_t aHi, ptrdiff_t bLo, ptrdiff_t bHi) {
    std::fill(r_.deleted.begin() + aLo, r_.deleted.begin() + aHi, 1);
    std::fill(r_.inserted.begin() + bLo, r_.inserted.begin() + bHi, 1);
  }

  /// The fallback once the budget is spent (patience diff, B. Cohen): align the elements that
  /// occur exactly once in both ranges, in a longest increasing chain, and recurse into the
  /// gaps between them; gaps of at most kSmall elements are solved exactly by dynamic
  /// programming, and what is left after kMaxLevels levels is deleted and inserted.
  /// O((n + m) log(n + m)) per level.
  void align(ptrdiff_t aLo, ptrdiff_t aHi, ptrdiff_t bLo, ptrdiff_t bHi, int level) {
    r_.approximate = true;
    trim(aLo, aHi, bLo, bHi);
    if (aLo == aHi || bLo == bHi) {
      markAll(aLo, aHi, bLo, bHi);
      return;
    }
    if ((aHi - aLo) * (bHi - bLo) <= kSmall * kSmall) {
      solveSmall(aLo, aHi, bLo, bHi);
      return;
    }
    std::vector<std::pair<ptrdiff_t, ptrdiff_t>> anchors;
    if (level < kMaxLevels)
      anchors = uniqueAnchors(aLo, aHi, bLo, bHi);
    if (anchors.empty()) {
      markAll(aLo, aHi, bLo, bHi);
      return;
    }
    ptrdiff_t a = aLo, b = bLo;
    for (auto [i, j] : anchors) {
      align(a, i, b, j, level + 1);
      a = i + 1;
      b = j + 1;
    }
    align(a, aHi, b, bHi, level + 1);
  }

  /// Pairs (i, j) with a_[i] == b_[j] occurring once in each range, longest chain increasing
  /// in both i and j (patience sorting).
  std::vector<std::pair<ptrdiff_t, ptrdiff_t>> uniqueAnchors(ptrdiff_t aLo, ptrdiff_t aHi,
                                                             ptrdiff_t bLo, ptrdiff_t bHi) {
    auto sorted = [](const T *s, ptrdiff_t lo, ptrdiff_t hi) {
      std::vector<std::pair<T, ptrdiff_t>> v;
      v.reserve(static_cast<size_t>(hi - lo));
      for (ptrdiff_t k = lo; k < hi; ++k)
        v.emplace_back(s[k], k);
      std::sort(v.begin(), v.end());
      return v;
    };
    const auto sa = sorted(a_, aLo, aHi), sb = sorted(b_, bLo, bHi);
    r_.cost += static_cast<uint64_t>(sa.size() + sb.size());
    std::vector<std::pair<ptrdiff_t, ptrdiff_t>> pairs; // (i, j), i ascending after sort
    for (size_t p = 0, q = 0; p < sa.size() && q < sb.size();) {
      if (sa[p].first < sb[q].first) {
        ++p;
      } else if (sb[q].first < sa[p].first) {
        ++q;
      } else {
        const T key = sa[p].first;
        size_t pe = p, qe = q;
        while (pe < sa.size() && sa[pe].first == key)
          ++pe;
        while (qe < sb.size() && sb[qe].first == key)
          ++qe;
        if (pe - p == 1 && qe - q == 1)
          pairs.emplace_back(sa[p].second, sb[q].second);
        p = pe;
        q = qe;
      }
    }
    std::sort(pairs.begin(), pairs.end());
    // Longest increasing subsequence of j: tails[k] = index in pairs of the smallest tail of
    // a chain of length k + 1.
    std::vector<size_t> tails, prev(pairs.size(), SIZE_MAX);
    for (size_t k = 0; k < pairs.size(); ++k) {
      auto it = std::lower_bound(tails.begin(), tails.end(), pairs[k].second,
                                 [&](size_t t, ptrdiff_t j) { return pairs[t].second < j; });
      if (it != tails.begin())
        prev[k] = *std::prev(it);
      if (it == tails.end())
        tails.push_back(k);
      else
        *it = k;
    }
    std::vector<std::pair<ptrdiff_t, ptrdiff_t>> chain;
    for (size_t k = tails.empty() ? SIZE_MAX : tails.back(); k != SIZE_MAX; k = prev[k])
      chain.push_back(pairs[k]);
    std::reverse(chain.begin(), chain.end());
    return chain;
  }

  /// Exact LCS by dynamic programming, for ranges with at most kSmall^2 cells.
  void solveSmall(ptrdiff_t aLo, ptrdiff_t aHi, ptrdiff_t bLo, ptrdiff_t bHi) {
    const ptrdiff_t n = aHi - aLo, m = bHi - bLo;
    std::vector<uint16_t> dp(static_cast<size_t>((n + 1) * (m + 1)), 0);
    auto at = [&](ptrdiff_t i, ptrdiff_t j) -> uint16_t & { return dp[static_cast<size_t>(i * (m + 1) + j)]; };
    for (ptrdiff_t i = n - 1; i >= 0; --i)
      for (ptrdiff_t j = m - 1; j >= 0; --j)
        at(i, j) = a_[aLo + i] == b_[bLo + j] ? at(i + 1, j + 1) + 1
                                              : std::max(at(i + 1, j), at(i, j + 1));
    r_.cost += static_cast<uint64_t>(n * m);
    ptrdiff_t i = 0, j = 0;
    while (i < n && j < m) {
      if (a_[aLo + i] == b_[bLo + j]) {
        ++i, ++j;
      } else if (at(i + 1, j) >= at(i, j + 1)) {
        r_.deleted[aLo + i++] = 1;
      } else {
        r_.inserted[bLo + j++] = 1;
      }
    }
    markAll(aLo + i, aHi, bLo + j, bHi);
  }

  static constexpr ptrdiff_t kSmall = 64;
  static constexpr int kMaxLevels = 8;

  /// Finds a point (x, y), relative to (aOff, bOff), on a shortest edit path of the n x m
  /// subproblem where the forward and reverse searches meet. False when the cost bound is
  /// hit or there is no common element.
  bool bisect(ptrdiff_t aOff, ptrdiff_t n, ptrdiff_t bOff, ptrdiff_t m, ptrdiff_t &sx,
              ptrdiff_t &sy) {
    const T *A = a_ + aOff;
    const T *B = b_ + bOff;
    const ptrdiff_t maxD = (n + m + 1) / 2;
    const ptrdiff_t vOffset = maxD;
    const ptrdiff_t vLength = 2 * maxD + 2;
    v1_.assign(static_cast<size_t>(vLength), -1);
    v2_.assign(static_cast<size_t>(vLength), -1);
    v1_[vOffset + 1] = 0;
    v2_[vOffset + 1] = 0;
    const ptrdiff_t delta = n - m;
    // With an odd delta the paths meet during a forward step, else during a reverse step.
    const bool front = (delta % 2) != 0;
    ptrdiff_t k1start = 0, k1end = 0, k2start = 0, k2end = 0;
    uint64_t cost = 0;
    for (ptrdiff_t d = 0; d < maxD; ++d) {
      for (ptrdiff_t k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
        const ptrdiff_t k1Offset = vOffset + k1;
        ptrdiff_t x1 = (k1 == -d || (k1 != d && v1_[k1Offset - 1] < v1_[k1Offset + 1]))
                           ? v1_[k1Offset + 1]
                           : v1_[k1Offset - 1] + 1;
        ptrdiff_t y1 = x1 - k1;
        const ptrdiff_t x1Start = x1;
        while (x1 < n && y1 < m && A[x1] == B[y1])
          ++x1, ++y1;
        cost += 1 + static_cast<uint64_t>(x1 - x1Start);
        v1_[k1Offset] = x1;
        if (x1 > n) {
          k1end += 2; // ran off the right edge
        } else if (y1 > m) {
          k1start += 2; // ran off the bottom edge
        } else if (front) {
          const ptrdiff_t k2Offset = vOffset + delta - k1;
          if (k2Offset >= 0 && k2Offset < vLength && v2_[k2Offset] != -1 &&
              x1 >= n - v2_[k2Offset]) {
            sx = x1;
            sy = y1;
            r_.cost += cost;
            return true;
          }
        }
      }
      for (ptrdiff_t k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
        const ptrdiff_t k2Offset = vOffset + k2;
        ptrdiff_t x2 = (k2 == -d || (k2 != d && v2_[k2Offset - 1] < v2_[k2Offset + 1]))
                           ? v2_[k2Offset + 1]
                           : v2_[k2Offset - 1] + 1;
        ptrdiff_t y2 = x2 - k2;
        const ptrdiff_t x2Start = x2;
        while (x2 < n && y2 < m && A[n - x2 - 1] == B[m - y2 - 1])
          ++x2, ++y2;
        cost += 1 + static_cast<uint64_t>(x2 - x2Start);
        v2_[k2Offset] = x2;
        if (x2 > n) {
          k2end += 2;
        } else if (y2 > m) {
          k2start += 2;
        } else if (!front) {
          const ptrdiff_t k1Offset = vOffset + delta - k2;
          if (k1Offset >= 0 && k1Offset < vLength && v1_[k1Offset] != -1) {
            const ptrdiff_t x1 = v1_[k1Offset];
            const ptrdiff_t y1 = vOffset + x1 - k1Offset;
            if (x1 >= n - x2) {
              sx = x1;
              sy = y1;
              r_.cost += cost;
              return true;
            }
          }
        }
      }
      if (r_.cost + cost > maxCost_) {
        r_.cost += cost;
        return false;
      }
    }
    r_.cost += cost;
    return false;
  }

  const T *a_;
  const T *b_;
  MyersResult &r_;
  uint64_t maxCost_;
  std::vector<ptrdiff_t> v1_, v2_;
};

} // namespace

template <typename T>
static MyersResult run(const T *a, size_t n, const T *b, size_t m, uint64_t maxCost) {
  MyersResult result;
  result.deleted.assign(n, 0);
  result.inserted.assign(m, 0);
  Differ<T> differ(a, b, result, maxCost);
  differ.compare(0, static_cast<ptrdiff_t>(n), 0, static_cast<ptrdiff_t>(m));
  return result;
}

MyersResult myersDiff(const uint32_t *a, size_t n, const uint32_t *b, size_t m, uint64_t maxCost) {
  return run(a, n, b, m, maxCost);
}

MyersResult myersDiff(const uint64_t *a, size_t n, const uint64_t *b, size_t m, uint64_t maxCost) {
  return run(a, n, b, m, maxCost);
}

} // namespace loupe::visualizer::text
