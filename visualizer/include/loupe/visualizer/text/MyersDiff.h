//===- MyersDiff.h - Shortest edit script of two integer sequences ---*- C++ -*-===//
//
// E. W. Myers, "An O(ND) Difference Algorithm and Its Variations", Algorithmica 1(2), 1986:
// the greedy forward/backward search for the middle snake with divide and conquer (section
// 4b, the linear-space refinement), after trimming the common prefix and suffix of every
// subproblem. The bisection follows diff-match-patch's diff_bisect (N. Fraser, Apache-2.0).
//
// Time O((N + M) * D) and space O(N + M), D the edit distance. The work (diagonals visited
// plus elements compared; about 5-10 ns per unit on the shared 2-core machine) is counted.
// Past `maxCost`, the subproblems not yet solved fall back to patience diff (B. Cohen): align
// the elements that occur exactly once in both ranges along a longest increasing chain and
// recurse into the gaps (at most 8 levels; gaps of at most 64 x 64 elements are solved exactly
// by dynamic programming; what is left is wholly deleted and inserted). The script stays valid
// but may be longer than the shortest, `approximate` is set, and the time is
// O(maxCost + 8 (N + M) log(N + M)).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_TEXT_MYERSDIFF_H
#define LOUPE_VISUALIZER_TEXT_MYERSDIFF_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace loupe::visualizer::text {

struct MyersResult {
  /// deleted[i]: a[i] is not in the common subsequence. Same size as a.
  std::vector<uint8_t> deleted;
  /// inserted[j]: b[j] is not in the common subsequence. Same size as b.
  std::vector<uint8_t> inserted;
  /// The cost bound was hit: the script is valid but may not be the shortest.
  bool approximate = false;
  /// Work done, in the units of maxCost.
  uint64_t cost = 0;
};

/// Marks the elements of a[0, n) and b[0, m) outside a longest common subsequence (exact
/// unless approximate). The unmarked elements of a and b, in order, are equal pairwise.
MyersResult myersDiff(const uint32_t *a, size_t n, const uint32_t *b, size_t m,
                      uint64_t maxCost = 20'000'000);
/// Same on 64-bit elements (e.g. line hashes).
MyersResult myersDiff(const uint64_t *a, size_t n, const uint64_t *b, size_t m,
                      uint64_t maxCost = 20'000'000);

} // namespace loupe::visualizer::text

#endif // LOUPE_VISUALIZER_TEXT_MYERSDIFF_H
