//===- DiffOptions.h - What a line diff treats as equal -------------*- C++ -*-===//
#ifndef LOUPE_VISUALIZER_TEXT_DIFFOPTIONS_H
#define LOUPE_VISUALIZER_TEXT_DIFFOPTIONS_H

#include <cstddef>
#include <cstdint>

namespace loupe::visualizer::text {

struct DiffOptions {
  /// Compare lines with SSA values (`%123`, `%arg0`, `%cst_4`), block labels (`^bb3`),
  /// alias names without a dot (`#map3`, `#loc12`) and LLVM metadata ids (`!12`) renamed to
  /// their order of first appearance within the line, per sigil: `%7 = addf %5, %6` and
  /// `%9 = addf %3, %4` both compare as `%0 = addf %1, %2`. Renumbering-only changes compare
  /// equal. Limitation: so do lines that differ only by a permutation of names
  /// (`addf %a, %b` vs `addf %b, %a`).
  bool ignoreSsaNames = false;
  /// Drop every `loc(...)` from lines, and leave `#name = loc(...)` alias definition lines out
  /// of the comparison (they show as Ignored rows and are never part of a hunk).
  bool ignoreLocations = false;
  /// Ignore all spaces and tabs (outside string literals too), like `diff -w`.
  bool ignoreWhitespace = false;
  /// Equal lines kept around each change in a hunk; hunks closer than 2 * context merge.
  size_t context = 3;
  /// Rows: replace each run of equal lines outside every hunk by one Skipped row.
  bool collapseUnchanged = false;
  /// Work bound of the Myers search (see MyersDiff.h); 5-10 ns per unit.
  uint64_t maxCost = 20'000'000;
};

} // namespace loupe::visualizer::text

#endif // LOUPE_VISUALIZER_TEXT_DIFFOPTIONS_H
