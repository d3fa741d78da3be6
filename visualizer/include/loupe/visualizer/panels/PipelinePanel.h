//===- PipelinePanel.h - Every pass of the last compile -----------*- C++ -*-===//
//
// A table of the compile's snapshots: index, phase, pass (with options in a tooltip), anchor,
// wall time and whether the pass changed the IR, filtered by "changed only" and a name search.
// Selecting a row selects the pass the IR and Diff panels show; Up/Down (PageUp/PageDown,
// Home/End) step through the visible rows while the panel's window is focused.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_PANELS_PIPELINEPANEL_H
#define LOUPE_VISUALIZER_PANELS_PIPELINEPANEL_H

#include "loupe/visualizer/Actions.h"
#include "loupe/visualizer/ViewModel.h"

#include <string>
#include <vector>

namespace loupe::visualizer {

class PipelinePanel {
public:
  /// Draws into the current window.
  void draw(ViewModel &vm, Actions &actions);

  /// "compile cache: disk hit (3 hits, 1 misses)" for a compile the cache answered, with the
  /// process's counts; "" when the compile did not use the cache.
  static std::string cacheSummary(const compiler::CompileResult &result,
                                  const compiler::CompileCacheStats &stats);

  void setChangedOnly(bool on) { changedOnly_ = on; dirty_ = true; }
  bool changedOnly() const { return changedOnly_; }
  /// Case-insensitive substring of the pass name, options, phase or anchor.
  void setSearch(std::string search) { search_ = std::move(search); dirty_ = true; }
  const std::string &search() const { return search_; }

  /// Snapshot indices shown, in order (kSourcePass first when the model is .mlir), after the
  /// filter; recomputed when the compile or the filter changes.
  const std::vector<int> &visibleRows(const ViewModel &vm);
  /// Moves the selection `delta` visible rows (clamped); returns the selected pass.
  int step(ViewModel &vm, int delta);

private:
  void refilter(const ViewModel &vm);

  bool changedOnly_ = false;
  std::string search_;
  bool dirty_ = true;
  const CompileView *filteredFor_ = nullptr;
  std::vector<int> rows_;
  bool scrollToSelection_ = false;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_PANELS_PIPELINEPANEL_H
