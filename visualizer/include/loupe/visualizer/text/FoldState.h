//===- FoldState.h - Which regions are folded, and the visible-line mapping -*- C++ -*-===//
//
// Owned by the UI (mutable), separate from the immutable IrDocument. The IR panel runs an
// ImGuiListClipper over visibleLineCount() rows and maps each row with visibleToDocumentLine.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_TEXT_FOLDSTATE_H
#define LOUPE_VISUALIZER_TEXT_FOLDSTATE_H

#include "loupe/visualizer/text/FoldRegion.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace loupe::visualizer::text {

class FoldState {
public:
  /// A run of hidden document lines [first, last] (inclusive), with the number of hidden lines
  /// before it.
  struct HiddenRange {
    uint32_t first = 0;
    uint32_t last = 0;
    size_t hiddenBefore = 0;
  };

  FoldState() = default;
  /// `regions` as IrDocument::foldRegions() (sorted by start, properly nested); `lineCount` the
  /// document's. Nothing folded.
  FoldState(std::vector<FoldRegion> regions, size_t lineCount);

  const std::vector<FoldRegion> &regions() const { return regions_; }
  size_t lineCount() const { return lineCount_; }
  /// Index in regions() of the region whose `{` is on `line`. O(log R).
  std::optional<size_t> regionStartingAt(size_t line) const;

  bool isFolded(size_t startLine) const;
  /// Fold/unfold/toggle the region starting at `startLine`; false (and no change) when no
  /// region starts there. Each change costs O(R) (the hidden ranges are rebuilt).
  bool fold(size_t startLine);
  bool unfold(size_t startLine);
  bool toggle(size_t startLine);
  /// Folds every region of exactly `depth` (0: the module, 1: functions in it, ...).
  void foldDepth(uint32_t depth);
  void foldAll();
  void unfoldAll();
  /// Unfolds every folded region that hides `line` (e.g. after a search lands inside one).
  /// Returns true when something was unfolded.
  bool reveal(size_t line);

  /// Merged hidden ranges, sorted, disjoint (a fold inside a folded region adds nothing).
  const std::vector<HiddenRange> &hiddenRanges() const { return hidden_; }
  size_t visibleLineCount() const { return lineCount_ - hiddenTotal_; }
  /// True when `line` is inside a folded region. O(log F), F = hiddenRanges().size().
  bool isHidden(size_t line) const;
  /// Document line of visible row v (v < visibleLineCount()). O(log F).
  size_t visibleToDocumentLine(size_t v) const;
  /// Visible row of document line d; a hidden line maps to the row of the `{` line of the
  /// outermost folded region hiding it. O(log F).
  size_t documentToVisibleLine(size_t d) const;

private:
  void rebuild();
  std::vector<FoldRegion> regions_;
  std::vector<uint8_t> folded_; // per region
  std::vector<HiddenRange> hidden_;
  size_t lineCount_ = 0;
  size_t hiddenTotal_ = 0;
};

} // namespace loupe::visualizer::text

#endif // LOUPE_VISUALIZER_TEXT_FOLDSTATE_H
