//===- DispatchPanel.h - Every dispatch, its backend and overrides -*- C++ -*-===//
//
// The dispatch table of the last compile: id, dispatch, kernel op, source ops (loc), kind, the
// compiler cluster it belongs to (a link: explained in the graph panel), backend, plevel, the
// alternatives the backend registry offers for the op on the device (with plevels and whether
// they run here) and the fallback kernels the runtime calls if it fails, an override drop-down
// for every library-capable dispatch (matmul, batch_matmul, conv2d) and why the compiler chose
// its backend (the rule in a word; the whole reason in its tooltip and, for the selected row,
// under the table).
//
// Overrides are edited here and kept pending; Recompile writes them into the session
// (`pipeline.backendOverrides`, keyed by the op's loc) and compiles; Save writes them into the session
// file too. The session-wide backend order and fusion switch sit above the table.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_PANELS_DISPATCHPANEL_H
#define LOUPE_VISUALIZER_PANELS_DISPATCHPANEL_H

#include "loupe/visualizer/Actions.h"
#include "loupe/visualizer/Style.h"
#include "loupe/visualizer/ViewModel.h"

#include <imgui.h>

#include <functional>
#include <map>
#include <string>

namespace loupe::visualizer {

class DispatchPanel {
public:
  /// Saves the session (the workbench's File > Save: Save As when it has no file yet).
  using SaveFn = std::function<void()>;
  void setSave(SaveFn save) { save_ = std::move(save); }

  void draw(ViewModel &vm, Actions &actions);

  /// The overrides as edited (loc -> backend), applied or not.
  const std::map<std::string, std::string> &overrides() const { return edited_; }
  /// Edits differ from the session's overrides.
  bool hasPendingEdits(const ViewModel &vm) const;
  /// What the drop-down does: override `loc` with `backend` ("" returns it to the default).
  void setOverride(const std::string &loc, const std::string &backend);
  /// Recompile: the edits become the session's overrides, then the model compiles.
  void recompile(ViewModel &vm, Actions &actions);
  /// Save: the edits become the session's overrides, then the session is saved.
  void save(ViewModel &vm);

  /// Screen rectangles of the last frame (tests click them): the override drop-down of the
  /// dispatch with id `id`, an item of the open drop-down's list, the Recompile button.
  /// A zero-size rectangle when it was not drawn.
  ScreenRect overrideRect(int64_t id) const;
  /// The backend the tuned column showed for dispatch `id` in the last frame ("" for none).
  std::string tunedBackend(int64_t id) const;
  /// The cluster link of the dispatch with id `id`.
  ScreenRect clusterRect(int64_t id) const;
  ScreenRect popupItemRect(const std::string &backend) const;
  ScreenRect recompileRect() const { return recompileRect_; }

private:
  void syncWithSession(const ViewModel &vm);
  void drawToolbar(ViewModel &vm, Actions &actions);
  void drawTable(ViewModel &vm);
  void drawClusterCell(ViewModel &vm, const compiler::DispatchSummary &s);
  /// The backend `loupe tune` kept for the dispatch's op signature; the measured matrix in its
  /// tooltip (the DB's tuning table, RunListView::tuning).
  void drawTunedCell(const ViewModel &vm, const compiler::DispatchSummary &s);

  SaveFn save_;
  std::map<std::string, std::string> edited_;
  std::map<std::string, std::string> basis_; ///< The session's overrides edited_ started from.
  bool synced_ = false;
  std::string filter_;
  std::map<int64_t, ScreenRect> overrideRects_;
  std::map<int64_t, std::string> tunedShown_;
  std::map<int64_t, ScreenRect> clusterRects_;
  std::map<std::string, ScreenRect> popupRects_;
  ScreenRect recompileRect_;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_PANELS_DISPATCHPANEL_H
