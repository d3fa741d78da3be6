//===- ComparePanel.h - Two runs, dispatch by dispatch ------------*- C++ -*-===//
//
// Pick a baseline and a candidate run (of the current model) and a threshold; the worker loads
// both and runs profiler::compare on every dispatch's samples and on whole repetitions. The
// table shows both medians, the ratio candidate/baseline, the change and the verdict
// (SAME / FASTER / SLOWER / AMBIGUOUS: Mann-Whitney U p < 0.05 with >= 9 samples each AND
// |median change| >= threshold); the bar chart (ImDrawList) puts both medians side by side.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_PANELS_COMPAREPANEL_H
#define LOUPE_VISUALIZER_PANELS_COMPAREPANEL_H

#include "loupe/visualizer/Actions.h"
#include "loupe/visualizer/ViewModel.h"

#include <array>
#include <vector>

namespace loupe::visualizer {

class ComparePanel {
public:
  enum Column { ColId, ColName, ColBaseline, ColCandidate, ColRatio, ColVerdict, ColCount };

  void draw(ViewModel &vm, Actions &actions);

  /// Rows (indices into CompareView::rows) in display order.
  const std::vector<int> &sortedRows(const ViewModel &vm);
  void setSort(Column column, bool ascending);
  /// How many dispatch rows got each verdict (Same, Faster, Slower, Ambiguous).
  std::array<int, 4> verdictCounts(const ViewModel &vm) const;
  /// Bars drawn in the last frame (culled to the visible part of the chart).
  int lastDrawnBars() const { return drawnBars_; }

private:
  void drawPickers(ViewModel &vm, Actions &actions);
  void drawTable(const CompareView &c);
  void drawBars(const CompareView &c);

  Column sortColumn_ = ColId;
  bool sortAscending_ = true;
  bool sortDirty_ = true;
  const CompareView *sortedFor_ = nullptr;
  std::vector<int> order_;
  float thresholdPercent_ = 5.0f;
  int drawnBars_ = 0;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_PANELS_COMPAREPANEL_H
