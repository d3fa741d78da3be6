//===- Actions.h - What panels may ask the workbench to do --------*- C++ -*-===//
//
// Panels draw a ViewModel and ask for work through this interface; Controller implements it
// with worker jobs, tests with a recorder. None of these calls blocks.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_ACTIONS_H
#define LOUPE_VISUALIZER_ACTIONS_H

#include <cstdint>
#include <string>

namespace loupe::visualizer {

class Actions {
public:
  virtual ~Actions() = default;
  /// Opens a session (.json) or a model (.mlir, .onnx, .so); false when it cannot be read.
  virtual bool open(const std::string &path) = 0;
  /// Recompiles the current model with the session's pipeline settings.
  virtual void compile() = 0;
  /// Runs the current model with the session's run settings.
  virtual void run() = 0;
  virtual void cancelRun() = 0;
  virtual void refreshRuns() = 0;
  virtual void loadProfile(int64_t runId) = 0;
  virtual void compareRuns(int64_t baseline, int64_t candidate, double threshold) = 0;
  /// Compares the newest stored runs of two variants of the session ("base" or a name).
  virtual void compareVariants(const std::string &baseline, const std::string &candidate,
                               double threshold) = 0;
  /// Compiles the two runs of the Compare panel again with IR text (ViewModel::crossCompile),
  /// for the Diff panel's "across compiles" mode.
  virtual void compileCompared() = 0;
  /// Runs two variants of the session, one after the other, then compares them.
  virtual void runVariants(const std::string &baseline, const std::string &candidate) = 0;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_ACTIONS_H
