//===- ProfilePanel.h - Runs of the model and one run's dispatches -*- C++ -*-===//
//
// Left: the runs of the current model in the profile DB (Store::listRuns, newest first).
// Right: the selected run (Store::loadRun): its whole-repetition summary, a per-dispatch table
// sortable by id, name, loc, backend, calls, median, IQR and share (ImGuiTableFlags_Sortable; the order is
// cached per run and sort spec), and the timeline of one repetition (TimelineView).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_PANELS_PROFILEPANEL_H
#define LOUPE_VISUALIZER_PANELS_PROFILEPANEL_H

#include "loupe/visualizer/Actions.h"
#include "loupe/visualizer/ViewModel.h"
#include "loupe/visualizer/timeline/TimelineView.h"

#include <vector>

namespace loupe::visualizer {

class ProfilePanel {
public:
  /// Columns of the dispatch table, in display order.
  enum Column { ColId, ColName, ColLoc, ColBackend, ColCalls, ColMedian, ColIqr, ColShare,
                ColCount };

  void draw(ViewModel &vm, Actions &actions);

  /// Sorts the dispatch table (what a click on a header does).
  void setSort(Column column, bool ascending);
  Column sortColumn() const { return sortColumn_; }
  bool sortAscending() const { return sortAscending_; }
  /// Row indices (into ProfileView::rows) in display order.
  const std::vector<int> &sortedRows(const ViewModel &vm);
  /// Screen rectangle of a column header in the last frame (tests click on it).
  void headerRect(Column column, float *minX, float *minY, float *maxX, float *maxY) const;

  int repetition() const { return rep_; }
  void setRepetition(int rep) { rep_ = rep; }
  TimelineView &timeline() { return timeline_; }

private:
  void drawRuns(ViewModel &vm, Actions &actions);
  void drawDispatches(ViewModel &vm);

  Column sortColumn_ = ColMedian;
  bool sortAscending_ = false;
  bool sortDirty_ = true;
  bool pushSortToTable_ = false;
  const ProfileView *sortedFor_ = nullptr;
  std::vector<int> order_;
  float headers_[ColCount][4] = {};
  int rep_ = 0;
  int64_t timelineFor_ = -1;
  TimelineView timeline_;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_PANELS_PROFILEPANEL_H
