//===- ComparePanel.h - Two runs, dispatch by dispatch ------------*- C++ -*-===//
//
// Pick a baseline and a candidate, either two runs (of the current model) or two variants of
// the session ("base" and the session's variants: their newest stored runs, or Run both),
// and a threshold; the worker loads both runs and compares them with sessions::compareTimings
// (profiler::compare on every dispatch's samples and on whole repetitions). The
// table shows both medians, the ratio candidate/baseline, the change and the verdict
// (SAME / FASTER / SLOWER / AMBIGUOUS: Mann-Whitney U p < 0.05 with >= 9 samples each AND
// |median change| >= threshold); the clusters table compares the runs cluster by cluster
// (clusters::compareClusters: matched by source ops, saying where the two programs clustered
// them otherwise); the bar chart (ImDrawList) puts both medians side by side.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_PANELS_COMPAREPANEL_H
#define LOUPE_VISUALIZER_PANELS_COMPAREPANEL_H

#include "loupe/visualizer/Actions.h"
#include "loupe/visualizer/Style.h"
#include "loupe/visualizer/ViewModel.h"

#include <array>
#include <map>
#include <optional>
#include <string>
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
  /// Whether the pickers choose variants of the session (else runs by id).
  bool variantMode() const { return variantMode_; }
  /// Switches the pickers to variants (picking the session's `compare`, else its first two
  /// variants, and asking for their comparison) or back to runs.
  void setVariantMode(ViewModel &vm, Actions &actions, bool variants);
  /// Opens the Diff panel on pass `pass` across the two compared runs' compiles (compiling
  /// them again with IR text unless that is done).
  static void openCrossDiff(ViewModel &vm, Actions &actions, int pass);
  /// The "IR diff" button of the row named `name` in the last frame (rows whose IR first
  /// differs at a known pass have one); empty when not drawn.
  ScreenRect diffButtonRect(const std::string &name) const;

private:
  void drawPickers(ViewModel &vm, Actions &actions);
  bool drawRunPickers(ViewModel &vm, int64_t &base, int64_t &cand);
  bool drawVariantPickers(ViewModel &vm, Actions &actions);
  void drawTable(const CompareView &c);
  void drawClusters(const clusters::ClusterComparison &c);
  void drawBars(const CompareView &c);
  /// A verdict as a coloured label; hover shows the reason.
  static void verdictCell(const profiler::Comparison &c);
  /// The summary's median, NaN when it has no samples.
  static double medianOr(const profiler::Summary &s);
  /// Each side's backend: "onednn", or "onednn -> codegen" when they differ.
  static void backendPair(const std::string &baseline, const std::string &candidate);
  /// The baseline and candidate medians ("missing" for a side without the row), the ratio
  /// ("-" when NaN) and the verdict, one table cell each.
  static void timingCells(const profiler::Comparison &c, bool inBaseline, bool inCandidate,
                          double ratio, int group = -1);

  Column sortColumn_ = ColId;
  bool sortAscending_ = true;
  bool sortDirty_ = true;
  const CompareView *sortedFor_ = nullptr;
  std::vector<int> order_;
  float thresholdPercent_ = 5.0f;
  std::optional<int> diffRequest_; ///< A row's "IR diff" button was pressed: its pass.
  std::map<std::string, ScreenRect> diffButtons_;
  bool variantMode_ = false;
  bool sawNavVariants_ = false; ///< nav compared variants at the last draw.
  std::string pickBaseline_, pickCandidate_; ///< Variant picks, also before both are set.
  int drawnBars_ = 0;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_PANELS_COMPAREPANEL_H
