//===- Controller.h - The workbench's document and its jobs -------*- C++ -*-===//
//
// Owns the ViewModel and the two worker threads, and turns user actions into jobs:
//  - the "jobs" worker compiles (compiler::compileModel with keepIrText) and runs
//    (sessions::runModel: the same code as `loupe run` and `loupe replay`);
//  - the "data" worker reads the profile DB (profiler::Store, one Store per job) and builds the
//    Profile and Compare snapshots, so browsing runs stays possible while a run is measured.
// Every result comes back as an immutable snapshot that beginFrame() swaps into the ViewModel.
// Panels call the actions; none of them blocks.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_CONTROLLER_H
#define LOUPE_VISUALIZER_CONTROLLER_H

#include "loupe/visualizer/Actions.h"
#include "loupe/visualizer/Settings.h"
#include "loupe/visualizer/ViewModel.h"
#include "loupe/visualizer/Worker.h"

#include <functional>
#include <memory>
#include <map>
#include <string>

namespace loupe::visualizer {

struct ControllerOptions {
  /// Profile DB; empty: profiler::defaultDatabasePath().
  std::string dbPath;
  /// Settings folder (recent.txt); empty: no recent-files persistence.
  std::string configDir;
  /// Compile as soon as a model or session is opened.
  bool compileOnOpen = true;
  /// Shapes binding the symbolic input dims of a model opened alone (`--input-shape`); a
  /// session brings its own (pipeline.input_shapes).
  std::map<std::string, std::vector<int64_t>> inputShapes;
};

class Controller : public Actions {
public:
  explicit Controller(ControllerOptions options);
  ~Controller() override;
  Controller(const Controller &) = delete;
  Controller &operator=(const Controller &) = delete;

  ViewModel &vm() { return vm_; }
  const ViewModel &vm() const { return vm_; }
  RecentFiles &recent() { return recent_; }

  // --- Document --------------------------------------------------------------------------
  /// Opens a session (.json) or a model (.mlir, .onnx, .so) by extension. False (and a log
  /// entry) when it cannot be opened.
  bool open(const std::string &path) override;
  /// A new session around `model`, with default run settings; test data next to the model
  /// (`<dir>/<stem>/test_data_set_0`) is used as inputs and expected outputs when present.
  bool openModel(const std::string &model);
  bool openSession(const std::string &path);
  /// Writes the session as shown (sessionToSave: model, pipeline, run settings, variants and
  /// the Compare panel's two sides as `compare`) to `path` (empty: the path it was loaded
  /// from or last saved to). False (and a log entry) on error.
  bool saveSession(const std::string &path = "");

  // --- Jobs ------------------------------------------------------------------------------
  /// Compiles the current model with the session's pipeline, keeping per-pass IR text.
  void compile() override;
  /// Compiles, runs, checks and stores the current model with the session's run settings.
  void run() override;
  /// Cancels a queued or running run (the runner stops between repetitions).
  void cancelRun() override;
  /// Re-reads the runs of the current model from the DB.
  void refreshRuns() override;
  /// Loads run `runId` into the Profile panel.
  void loadProfile(int64_t runId) override;
  /// Compares `candidate` with `baseline` for the Compare panel.
  void compareRuns(int64_t baseline, int64_t candidate, double threshold) override;
  /// Compiles the compared runs' settings again with IR text, on the jobs worker.
  void compileCompared() override;
  /// Compares the newest complete runs of two variants of this session in the DB; without
  /// such runs the panel offers to run them.
  void compareVariants(const std::string &baseline, const std::string &candidate,
                       double threshold) override;
  /// Runs the two variants (requestForVariant: stored under their names) on the jobs worker,
  /// then compares them.
  void runVariants(const std::string &baseline, const std::string &candidate) override;

  // --- Frame -----------------------------------------------------------------------------
  /// Start of a frame, UI thread: applies finished results, copies job progress.
  void beginFrame();
  /// A job is queued or running or a result waits: keep drawing frames.
  bool busy() const;
  /// Tests and the screenshot mode: apply results until idle. False on timeout.
  bool waitIdle(double timeoutSeconds);
  /// Called from worker threads when something changed (the host posts an empty event).
  void setWake(std::function<void()> wake);
  /// Number of results applied by the last beginFrame (tests).
  size_t appliedLastFrame() const { return appliedLastFrame_; }

private:
  void resetDocument();
  void afterOpen(const std::string &path);
  /// Queues the comparison of two runs without changing which variants are picked.
  void postCompare(int64_t baseline, int64_t candidate, double threshold);
  /// Newest complete run of variant `name` of this session in the runs list, or -1.
  int64_t newestRunOf(const std::string &name) const;
  /// Logs a finished run's summary and check.
  void logOutcome(const sessions::RunOutcome &o, const std::string &prefix);

  ControllerOptions options_;
  ViewModel vm_;
  RecentFiles recent_;
  uint64_t generation_ = 0; ///< Bumped when another document is opened.
  uint64_t compileSerial_ = 0;
  size_t appliedLastFrame_ = 0;
  bool runQueued_ = false;
  // Workers last: destroyed (joined) first, while the members their jobs use still exist.
  std::unique_ptr<Worker> jobs_;
  std::unique_ptr<Worker> data_;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_CONTROLLER_H
