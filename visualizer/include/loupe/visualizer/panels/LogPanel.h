//===- LogPanel.h - Diagnostics and job messages -------------------*- C++ -*-===//
//
// The workbench's log: compile, run, DB and session messages. MLIR diagnostics in them
// (text::parseDiagnostics: `file:line:col: error: ...`, `loc("conv1"): error: ...` as the
// compiler's DiagnosticCollector prints them, `error: loc("conv1"): ...`) are links:
// a click shows the IR line they point at (the model source for file locations in the .mlir
// model, else the op with that loc in the snapshot the message is about).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_PANELS_LOGPANEL_H
#define LOUPE_VISUALIZER_PANELS_LOGPANEL_H

#include "loupe/visualizer/Actions.h"
#include "loupe/visualizer/ViewModel.h"
#include "loupe/visualizer/text/Diagnostics.h"

#include <imgui.h>

#include <vector>

namespace loupe::visualizer {

class LogPanel {
public:
  void draw(ViewModel &vm, Actions &actions);

  /// Diagnostics found in entry `entry` (parsed once per log change).
  const std::vector<text::Diagnostic> &diagnostics(const ViewModel &vm, size_t entry);
  /// Follows diagnostic `d` of entry `entry` as a click does. False when it points nowhere
  /// the workbench can show.
  bool follow(ViewModel &vm, size_t entry, const text::Diagnostic &d);

  /// A link drawn in the last frame: the diagnostic's entry and log line, screen rectangle.
  struct Link {
    size_t entry = 0;
    size_t line = 0;
    ImVec2 min, max;
  };
  const std::vector<Link> &lastLinks() const { return links_; }

private:
  void reparse(const ViewModel &vm);

  uint64_t parsedGeneration_ = ~0ull;
  std::vector<std::vector<text::Diagnostic>> diagnostics_;
  bool autoScroll_ = true;
  size_t lastCount_ = 0;
  int levelFilter_ = 0; ///< 0 all, 1 warnings and errors, 2 errors
  std::vector<Link> links_;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_PANELS_LOGPANEL_H
