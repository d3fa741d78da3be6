//===- RunPanel.h - Run settings, progress and the last result ----*- C++ -*-===//
//
// Device, the backend order and fusion switch (BackendSettings), warmup, repetitions, inputs (random with a seed, or a test-data folder), the check
// folder and tolerances. These are the session's run settings: what Save writes. Run posts a
// job (sessions::runModel on the worker); while it runs the panel shows the runner's stage and a
// progress bar with Cancel. The result (timings, check) appears when the job is done.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_PANELS_RUNPANEL_H
#define LOUPE_VISUALIZER_PANELS_RUNPANEL_H

#include "loupe/visualizer/Actions.h"
#include "loupe/visualizer/ViewModel.h"

#include <functional>
#include <map>
#include <string>

namespace loupe::visualizer {

class RunPanel {
public:
  /// Called when the user asks to browse for a folder; the argument receives the choice.
  using BrowseFn = std::function<void(const std::string &title, std::string *target)>;

  void draw(ViewModel &vm, Actions &actions);
  void setBrowse(BrowseFn browse) { browse_ = std::move(browse); }

private:
  bool drawInputShapes(ViewModel &vm);

  BrowseFn browse_;
  /// The input-shape fields as typed, by input name (a half-typed "1," is kept while editing).
  std::map<std::string, std::string> shapeText_;
  std::string shapeModel_; ///< The model shapeText_ belongs to.
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_PANELS_RUNPANEL_H
