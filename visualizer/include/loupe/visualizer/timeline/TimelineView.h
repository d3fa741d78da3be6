//===- TimelineView.h - One repetition's dispatches on a time axis -*- C++ -*-===//
//
// Draws the dispatch slices of one repetition with ImDrawList: a ruler, a lane for the whole
// repetition and a lane for the dispatches. The mouse wheel zooms around the cursor, dragging
// pans, a double click fits the repetition. Only what is on screen is drawn: the first slice is
// found with a binary search (slices are sorted by start and, on the CPU, do not overlap), and
// runs of slices narrower than a few pixels are merged into one block, as Tracy does.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_TIMELINE_TIMELINEVIEW_H
#define LOUPE_VISUALIZER_TIMELINE_TIMELINEVIEW_H

#include "loupe/visualizer/ViewModel.h"

#include <cstdint>
#include <vector>

namespace loupe::visualizer {

class TimelineView {
public:
  /// Draws `slices` (sorted by startNs; offsets from the repetition's start, ns) of a
  /// repetition lasting `durationNs`, using `rows` for names, in a region of the current window
  /// `height` pixels tall and as wide as the available space.
  void draw(const std::vector<TimelineSlice> &slices, int64_t durationNs,
            const std::vector<DispatchRow> &rows, float height);

  /// Visible time range, ns from the repetition's start.
  double viewStartNs() const { return viewStart_; }
  double viewEndNs() const { return viewEnd_; }
  void setView(double startNs, double endNs);
  /// Shows [0, durationNs] (with a small margin) on the next draw.
  void fit() { fitRequested_ = true; }
  /// Zooms by `factor` (> 1 zooms in) keeping time `anchorNs` at the same place on screen.
  void zoom(double factor, double anchorNs);
  /// Moves the view by `deltaNs`.
  void pan(double deltaNs);

  /// Statistics of the last draw (tests, the metrics overlay).
  int lastDrawnSlices() const { return drawn_; }
  int lastMergedBlocks() const { return merged_; }
  /// Index into the slices of the hovered slice, -1 when none.
  int hoveredSlice() const { return hovered_; }

private:
  double viewStart_ = 0, viewEnd_ = 1;
  bool fitRequested_ = true;
  int64_t fittedDuration_ = -1;
  int drawn_ = 0, merged_ = 0, hovered_ = -1;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_TIMELINE_TIMELINEVIEW_H
