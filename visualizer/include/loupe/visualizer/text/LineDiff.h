//===- LineDiff.h - Line diff of two IR documents, with hunks and row models -*- C++ -*-===//
//
// Algorithm: lines are normalised (DiffOptions), interned to integers, the common prefix and
// suffix are trimmed, and the rest goes to Myers' O(ND) difference algorithm with the
// linear-space middle-snake refinement (E. W. Myers, "An O(ND) Difference Algorithm and Its
// Variations", Algorithmica 1(2):251-266, 1986; see MyersDiff.h). Two 100,000-line modules
// that differ in a few places diff in milliseconds.
//
// Bounded cost: the Myers search counts its work; past DiffOptions::maxCost (default 2e7
// units, about 0.1-0.2 s on the shared 2-core machine) the parts not yet aligned fall back to
// patience diff on lines unique to both sides, then to whole deletions followed by whole
// insertions (see MyersDiff.h), and approximate() is true. The script is still correct
// (applying it to the old text gives the new one) but may be longer than the shortest, so the
// UI never hangs on pathological inputs (e.g. two unrelated 100k-line files).
//
// Output, for panels that draw rows with an ImGuiListClipper:
//  - ops(): the edit script, one op per line of either document;
//  - hunks(): changes with `context` lines around them, as ranges of ops() and lines;
//  - rows(SideBySide): pairs of optional left/right lines; a block of k deletions and m
//    insertions becomes min(k, m) Changed rows then the rest as Deleted or Inserted rows;
//  - rows(Unified): one row per op, deletions before insertions within a block.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_TEXT_LINEDIFF_H
#define LOUPE_VISUALIZER_TEXT_LINEDIFF_H

#include "loupe/visualizer/text/DiffOptions.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loupe::visualizer::text {

class IrDocument;

enum class DiffOpKind : uint8_t { Equal, Delete, Insert };

/// One line of the edit script. oldLine/newLine are 0-based document lines. For Delete,
/// newLine is the new line the deletion sits before; for Insert, oldLine the old line the
/// insertion sits before (both may equal the line count).
struct DiffOp {
  DiffOpKind kind = DiffOpKind::Equal;
  /// Left out of the comparison (DiffOptions::ignoreLocations); never part of a change.
  bool ignored = false;
  uint32_t oldLine = 0;
  uint32_t newLine = 0;
};

/// A change with its context: ops()[opBegin, opEnd), covering old lines
/// [oldBegin, oldBegin + oldCount) and new lines [newBegin, newBegin + newCount).
struct DiffHunk {
  size_t opBegin = 0;
  size_t opEnd = 0;
  uint32_t oldBegin = 0;
  uint32_t oldCount = 0;
  uint32_t newBegin = 0;
  uint32_t newCount = 0;
  uint32_t deleted = 0;  ///< Deleted lines in the hunk.
  uint32_t inserted = 0; ///< Inserted lines in the hunk.
};

enum class DiffLayout : uint8_t { SideBySide, Unified };

enum class DiffRowKind : uint8_t {
  Equal,    ///< Same line on both sides.
  Changed,  ///< Side by side only: a deleted line next to the inserted line replacing it.
  Deleted,  ///< Old line only.
  Inserted, ///< New line only.
  Ignored,  ///< Left out of the comparison; one or both sides.
  Skipped,  ///< collapseUnchanged: `count` equal lines from (oldLine, newLine) not shown.
};

struct DiffRow {
  int32_t oldLine = -1; ///< -1: no old line on this row.
  int32_t newLine = -1; ///< -1: no new line on this row.
  uint32_t count = 1;   ///< Lines the row stands for (> 1 only for Skipped).
  int32_t hunk = -1;    ///< Index in hunks() of the hunk the row belongs to, or -1.
  DiffRowKind kind = DiffRowKind::Equal;
};

class LineDiff {
public:
  /// An empty diff (no lines).
  LineDiff() = default;

  /// Diffs the lines of two documents. O(N + M) to normalise and intern, then as MyersDiff.h.
  static LineDiff compute(const IrDocument &oldDoc, const IrDocument &newDoc,
                          const DiffOptions &options = {});
  /// Same on plain line lists (the views must outlive the call only).
  static LineDiff compute(const std::vector<std::string_view> &oldLines,
                          const std::vector<std::string_view> &newLines,
                          const DiffOptions &options = {});

  const std::vector<DiffOp> &ops() const { return ops_; }
  const std::vector<DiffHunk> &hunks() const { return hunks_; }
  const std::vector<DiffRow> &rows(DiffLayout layout) const {
    return layout == DiffLayout::SideBySide ? sideBySide_ : unified_;
  }
  /// No change (ignored lines aside).
  bool identical() const { return hunks_.empty(); }
  /// The cost bound was hit and the script may be longer than the shortest.
  bool approximate() const { return approximate_; }
  size_t deletedLines() const { return deleted_; }
  size_t insertedLines() const { return inserted_; }

  /// Row (in `layout`) of the first changed line of hunk h. O(1).
  size_t hunkRow(DiffLayout layout, size_t h) const;
  /// Row of the first changed line of the first hunk starting after `row`; nullopt if none
  /// (the caller decides whether to wrap). O(log hunks).
  std::optional<size_t> nextHunk(DiffLayout layout, size_t row) const;
  /// Row of the first changed line of the last hunk starting before `row`. O(log hunks).
  std::optional<size_t> previousHunk(DiffLayout layout, size_t row) const;
  /// `@@ -oldBegin+1,oldCount +newBegin+1,newCount @@` (unified diff, 1-based lines).
  std::string hunkHeader(size_t h) const;

private:
  void buildHunks(size_t context);
  void buildRows(bool collapse);
  std::vector<DiffOp> ops_;
  std::vector<DiffHunk> hunks_;
  std::vector<DiffRow> sideBySide_;
  std::vector<DiffRow> unified_;
  std::vector<size_t> hunkRowSideBySide_;
  std::vector<size_t> hunkRowUnified_;
  bool approximate_ = false;
  size_t deleted_ = 0;
  size_t inserted_ = 0;
};

} // namespace loupe::visualizer::text

#endif // LOUPE_VISUALIZER_TEXT_LINEDIFF_H
