//===- ViewModel.h - What the workbench shows ---------------------*- C++ -*-===//
//
// The GUI's data: immutable snapshots built on the worker (a compile with its per-pass IR, a
// run's outcome, the runs of the model in the profile DB, one run's profile, a comparison of two
// runs) plus the UI state panels share (selection, navigation requests, the log). Snapshots are
// shared_ptr<const ...>: the worker builds them, the UI thread swaps the pointer in between
// frames, and a panel holding an old one keeps a valid object.
//
// No ImGui, GLFW, GL or SQLite type appears here; panels and tests build it freely.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_VIEWMODEL_H
#define LOUPE_VISUALIZER_VIEWMODEL_H

#include "loupe/Pipelines/Compiler.h"
#include "loupe/profiler/Records.h"
#include "loupe/profiler/Statistics.h"
#include "loupe/sessions/Comparison.h"
#include "loupe/sessions/Runner.h"
#include "loupe/sessions/Session.h"
#include "loupe/visualizer/Devices.h"
#include "loupe/visualizer/Worker.h"
#include "loupe/visualizer/clusters/ClusterComparison.h"
#include "loupe/visualizer/graph/GraphModel.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loupe::visualizer {

namespace gpu {
struct GpuActivity;
} // namespace gpu

/// Index of the pseudo-pass "source": the model file itself (.mlir models only).
inline constexpr int kSourcePass = -1;
/// "No pass": nothing selected, or a message about no pass in particular.
inline constexpr int kNoPass = -2;

/// One compile as the GUI shows it (CompileOptions::keepIrText = true).
struct CompileView {
  uint64_t generation = 0; ///< Document generation it was requested for (Controller).
  std::string modelPath;
  compiler::CompileOptions options;
  compiler::CompileResult result;
  std::string sourceText;   ///< The model file's text when it is .mlir; empty otherwise.
  /// Per snapshot, the index of the snapshot holding its IR text: itself when it changed the
  /// IR, else the last earlier one that did; kNoPass when none has text.
  std::vector<int> irSource;
  int64_t wallNs = 0; ///< Wall time of the compile job, ns.
  /// Ops, dispatches and their backend choices (graph and dispatch panels); never null.
  std::shared_ptr<const graph::GraphModel> graph;

  int passCount() const { return static_cast<int>(result.snapshots.size()); }
  bool hasSource() const { return !sourceText.empty(); }
  /// IR after pass `index` (kSourcePass: the source text); empty when unknown.
  const std::string &irAfter(int index) const;
  compiler::IrKind irKindAfter(int index) const;
  /// Label of a pass for lists and titles: "12 graph/canonicalize" or "source".
  std::string passLabel(int index) const;
};

/// Builds a CompileView (fills irSource, sourceText and graph) from a finished compile.
std::shared_ptr<const CompileView> makeCompileView(std::string modelPath,
                                                   compiler::CompileOptions options,
                                                   compiler::CompileResult result,
                                                   uint64_t generation, int64_t wallNs);

/// The compiles of the two runs the Compare panel shows, side by side for the Diff panel's
/// "across compiles" mode: each run's stored settings compiled again, with IR text (so runs
/// made by replay, which keep hashes only, can be read; the compile cache keeps it cheap).
struct CrossCompileView {
  int64_t baselineRunId = -1, candidateRunId = -1;
  std::shared_ptr<const CompileView> baseline, candidate; ///< Null when `error` is set.
  std::string error;
};

/// A Run job's result.
struct RunView {
  sessions::RunRequest request;
  sessions::RunOutcome outcome;
  int64_t wallNs = 0;
};

/// Runs of the current model in the profile DB, newest first (Store::listRuns).
struct RunListView {
  std::string dbPath;
  std::string modelFilter;
  std::vector<profiler::RunSummary> runs;
  /// The DB's tuning table for the session's device (`loupe tune`), by op signature.
  std::map<std::string, profiler::TuningRecord> tuning;
  std::string error; ///< Set when the DB could not be read.
};

/// One dispatch's statistics in a run, ns.
struct DispatchRow {
  int64_t id = 0;
  std::string name, op, loc, backend;
  int64_t cluster = -1;   ///< Its cluster's id in the run's program; -1: none or not recorded.
  size_t calls = 0;       ///< Measured samples.
  double medianNs = 0;
  double iqrNs = 0;
  double share = 0;       ///< Median / sum of all dispatch medians.
  int64_t minNs = 0, maxNs = 0;
};

/// One dispatch execution in a repetition: offsets from the repetition's start, ns.
struct TimelineSlice {
  int64_t startNs = 0;
  int64_t endNs = 0;
  int32_t row = 0; ///< Index into ProfileView::rows.
};

/// One run loaded from the DB (Store::loadRun), summarised for the Profile panel.
struct ProfileView {
  profiler::RunSummary run;
  std::string configJson;
  std::string deviceDetailsJson;
  /// GPU runs: where the dispatch times came from (MeasurementRecord::kernelTiming: CUPTI, CUDA
  /// events or the host clock, and why); empty on the CPU, for imports and older runs.
  std::string kernelTiming;
  /// Where the run ran: "on HOST (pid N): load 1.20 0.95 0.80, 2 CPUs, ..." (RunProvenance.h);
  /// empty for imports and runs stored before schema version 6.
  std::string provenance;
  std::string environmentJson;
  profiler::Summary whole;             ///< Whole repetitions.
  std::vector<DispatchRow> rows;       ///< By dispatch id.
  std::vector<std::vector<TimelineSlice>> reps; ///< Per repetition, sorted by startNs.
  std::vector<int64_t> repDurationNs;  ///< Per repetition.
  std::vector<profiler::CheckRecord> checks;
  /// Library kernels that failed at run time and what ran instead, by (dispatch, kernel).
  std::vector<profiler::FallbackRecord> fallbacks;
  /// Its GPU kernels, copies and sets by stream (gpu/GpuActivity.h); null when it has none.
  std::shared_ptr<const gpu::GpuActivity> gpu;
  std::string error;
};

/// Builds a ProfileView from stored run data.
std::shared_ptr<const ProfileView> makeProfileView(const profiler::RunData &data);

/// One dispatch (or the whole repetition) compared between two runs (sessions::compareTimings,
/// what replay reports use too).
using CompareRow = sessions::DispatchComparison;

struct CompareView {
  profiler::RunSummary baseline, candidate;
  /// The runs' stored settings (sessions::runConfigJson): Save turns them into variants.
  std::string baselineConfigJson, candidateConfigJson;
  double threshold = 0.05;
  CompareRow total;              ///< Whole repetitions.
  std::vector<CompareRow> rows;  ///< Dispatches, matched by id (and name), by id.
  clusters::ClusterComparison clusters; ///< Clusters, matched by their source ops.
  std::string error;
};

/// Compares two stored runs dispatch by dispatch (sessions::compareTimings) and cluster by
/// cluster (clusters::compareClusters).
std::shared_ptr<const CompareView> makeCompareView(const profiler::RunData &baseline,
                                                   const profiler::RunData &candidate,
                                                   double threshold);
/// The same with the dispatch comparison given: what the workbench shows, taken on both runs'
/// trials (sessions::compareTrials, paired and attributed as `loupe compare`).
std::shared_ptr<const CompareView> makeCompareView(const profiler::RunData &baseline,
                                                   const profiler::RunData &candidate,
                                                   sessions::RunComparison comparison);

enum class LogLevel { Info, Warning, Error };

struct LogEntry {
  LogLevel level = LogLevel::Info;
  std::string source; ///< "compile", "run", "db", "session", ...
  std::string text;   ///< May span lines (MLIR diagnostics with notes).
  int pass = kNoPass; ///< Snapshot the message is about, if any.
};

/// The Log panel's messages; append-only except clear().
class Log {
public:
  void add(LogLevel level, std::string source, std::string text, int pass = kNoPass);
  void info(std::string source, std::string text) { add(LogLevel::Info, std::move(source), std::move(text)); }
  void error(std::string source, std::string text) { add(LogLevel::Error, std::move(source), std::move(text)); }
  const std::vector<LogEntry> &entries() const { return entries_; }
  void clear() { entries_.clear(); ++generation_; }
  /// Changes whenever entries change (panels cache per generation).
  uint64_t generation() const { return generation_; }
  size_t errorCount() const;

private:
  std::vector<LogEntry> entries_;
  uint64_t generation_ = 0;
};

/// The central tabs.
enum class Tab { Ir, Diff, Graph, Dispatches, Profile, Compare };
/// Every tab in display order.
inline constexpr Tab kTabs[] = {Tab::Ir, Tab::Diff, Tab::Graph, Tab::Dispatches, Tab::Profile,
                                Tab::Compare};
const char *tabName(Tab tab);

/// Shared UI state: what is selected and where panels were asked to go.
struct Navigation {
  int selectedPass = kNoPass;          ///< Snapshot shown by the IR panel.
  std::optional<int> diffBase;         ///< Pass A of the diff; unset: the pass before B.
  std::optional<int> diffTarget;       ///< Pass B of the diff; unset: the selected pass.
  /// The Diff panel compares the same pass of the Compare panel's two compiles
  /// (ViewModel::crossCompile) instead of two passes of this compile.
  bool diffAcrossCompiles = false;
  int crossDiffPass = 0;               ///< The pass it compares then.
  /// Request to the IR panel: show this document line (0-based) of the selected pass.
  int irGotoLine = -1;
  /// Request to the IR panel: show the first line of the selected pass whose `loc` resolves to
  /// this name ("Conv_3", "model.mlir:12:4").
  std::string irGotoLocation;
  std::optional<Tab> tabRequest;       ///< Request to bring a central tab to the front.
  int64_t profileRunId = -1;           ///< Run shown in the Profile panel.
  /// The Profile panel's device picker: only runs on this device are listed; unset: all.
  std::optional<Device> device;
  int64_t baselineRunId = -1;          ///< Runs picked in the Compare panel.
  int64_t candidateRunId = -1;
  /// Variants of the session picked in the Compare panel ("base" or a variant name); both set
  /// when it compares variants (their newest runs), both empty when it compares runs by id.
  std::string baselineVariant, candidateVariant;
  double compareThreshold = 0.05;
  /// Graph, dispatch and profile panels: the selected op (index into GraphModel::nodes),
  /// dispatch (DispatchSummary::id) and cluster (ClusterSummary::id) of the compile shown, -1
  /// when none; `graphFocus` asks the graph to centre on them.
  int selectedNode = -1;
  int64_t selectedDispatch = -1;
  int64_t selectedCluster = -1;
  bool graphFocus = false;
  bool comparesVariants() const { return !baselineVariant.empty() && !candidateVariant.empty(); }
  /// Selects op `node` of `model` (an index; -1: none) with the cluster it is drawn in and the
  /// dispatch that stands for it.
  void selectOp(const graph::GraphModel &model, int node);
  /// Selects cluster `id` of `model` alone (no op), and its kernel when it has exactly one.
  void selectCluster(const graph::GraphModel &model, int64_t id);
  /// Asks for the graph tab, centred on the selection.
  void showInGraph() {
    tabRequest = Tab::Graph;
    graphFocus = true;
  }
};

struct ViewModel {
  /// The document: what Save writes and replay reproduces (model, pipeline, run settings,
  /// variants; sessionToSave adds what the Compare panel shows).
  sessions::Session session;
  bool sessionDirty = false;  ///< Changed since opened or saved.
  std::string dbPath;         ///< Profile DB the runs go to and are read from.

  std::shared_ptr<const CompileView> compile;
  std::shared_ptr<const RunView> lastRun;
  std::shared_ptr<const RunListView> runs;
  std::shared_ptr<const ProfileView> profile;
  std::shared_ptr<const CompareView> comparison;
  std::shared_ptr<const CrossCompileView> crossCompile;
  bool crossCompiling = false; ///< A compileCompared job is queued or running.

  bool compiling = false;     ///< A compile job for the current document is queued or running.
  bool running = false;       ///< A run job is queued or running.
  JobProgress progress;       ///< Copied from the worker at the start of every frame.

  Navigation nav;
  Log log;

  bool hasModel() const { return !session.model.empty(); }
  /// Selects pass `index` and resets the IR panel's goto request.
  void selectPass(int index);
  /// Selects pass `index` and asks the IR panel to show document line `line` (0-based).
  void showIrLine(int index, int line);
  /// Selects pass `index` and asks the IR panel to show the first op with location `name`.
  void showIrLocation(int index, std::string name);
};

/// The session exactly as shown, for Save: the document's model, pipeline and run settings
/// and variants, and the Compare panel's two sides as `compare`. Variants picked by name stay
/// as they are; runs picked by id become variants made of their stored settings
/// (sessions::variantFromRunConfig) unless "base" or a variant has the same settings, named
/// after the run's variant, else "run<id>". Error when the comparison shown is not loaded.
ral::StatusOr<sessions::Session> sessionToSave(const ViewModel &vm);

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_VIEWMODEL_H
