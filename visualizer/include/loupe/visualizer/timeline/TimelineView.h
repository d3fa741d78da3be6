//===- TimelineView.h - One repetition's work on a time axis ------*- C++ -*-===//
//
// Draws one repetition with ImDrawList: a ruler, then either a lane for the whole repetition
// and a lane for its dispatches (draw: CPU timings), or one labelled track per CUDA stream and
// kind of work (drawTracks: GPU kernels, copies, sets). The mouse wheel zooms around the cursor,
// dragging pans, a double click fits the repetition. Only what is on screen is drawn: the first
// slice of a lane is found with a binary search (slices are sorted by start and, in a lane, do
// not overlap), and runs of slices narrower than a few pixels are merged into one block, as
// Tracy does.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_TIMELINE_TIMELINEVIEW_H
#define LOUPE_VISUALIZER_TIMELINE_TIMELINEVIEW_H

#include "loupe/visualizer/ViewModel.h"
#include "loupe/visualizer/gpu/GpuActivity.h"

#include <imgui.h>

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
  /// Draws repetition `rep` of `gpu`: one track per entry of gpu.tracks, labelled on the left,
  /// its slices named and coloured after gpu.rows. Tracks share `height` (each at least one
  /// text line); when they need more the region grows and the window scrolls.
  void drawTracks(const gpu::GpuActivity &gpu, const gpu::RepActivity &rep, float height);

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

  /// Statistics of the last draw (tests, the metrics overlay), over every lane.
  int lastDrawnSlices() const { return drawn_; }
  int lastMergedBlocks() const { return merged_; }
  /// Lanes drawn by the last draw: 2 for draw(), the track count for drawTracks().
  int lastLanes() const { return lanes_; }
  /// Index into the slices of the hovered slice, -1 when none; drawTracks: of the hovered
  /// track's slices.
  int hoveredSlice() const { return hovered_; }
  /// drawTracks: index of the hovered slice's track, -1 when none.
  int hoveredTrack() const { return hoveredTrack_; }
  /// Screen rectangle of track `track`'s lane in the last drawTracks (tests hover on it).
  ImVec2 trackMin(int track) const;
  ImVec2 trackMax(int track) const;

private:
  /// The canvas both draws share: fits the view to `durationNs` when asked, reserves the
  /// available width x `height` pixels at the cursor (an InvisibleButton) and applies the
  /// wheel, drag and double click to the time axis, which starts `gutter` pixels from the left
  /// (track labels live there).
  void beginCanvas(int64_t durationNs, float height, float gutter);

  double viewStart_ = 0, viewEnd_ = 1;
  bool fitRequested_ = true;
  int64_t fittedDuration_ = -1;
  int drawn_ = 0, merged_ = 0, hovered_ = -1, hoveredTrack_ = -1, lanes_ = 0;
  // Set by beginCanvas for the draw in progress.
  ImVec2 origin_{0, 0}, end_{0, 0};
  float dataX_ = 0;
  bool canvasHovered_ = false;
  std::vector<ImVec2> trackRects_; ///< min, max per track of the last drawTracks.
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_TIMELINE_TIMELINEVIEW_H
