//===- Runner.h - Compile, run, measure, check, store -----------*- C++ -*-===//
//
// The one implementation of "compile this model and run it" that the CLI (`loupe run`,
// `loupe replay`) and the GUI share.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_SESSIONS_RUNNER_H
#define LOUPE_SESSIONS_RUNNER_H

#include "loupe/Pipelines/Compiler.h"
#include "loupe/profiler/Check.h"
#include "loupe/profiler/Measure.h"
#include "loupe/profiler/Records.h"
#include "loupe/profiler/Statistics.h"
#include "loupe/ral/Artifact.h"
#include "loupe/sessions/Session.h"

#include <atomic>
#include <functional>
#include <map>
#include <optional>

namespace loupe::sessions {

using profiler::OutputCheck;

/// Exit codes of the CLI (DESIGN.md): what a RunOutcome maps to.
enum ExitCode { kExitOk = 0, kExitMismatch = 1, kExitBadInput = 2, kExitInternal = 3 };

struct RunRequest {
  std::string model;                 ///< .mlir/.onnx (compiled first) or a compiled .so.
  compiler::CompileOptions compile;  ///< Ignored for a .so.
  RunSettings run;
  std::string dbPath;                ///< Profile DB to store the run in; empty: none.
  std::string sessionName;           ///< Recorded with the run.
  std::string variant;               ///< Variant of the session, recorded with the run.
};

/// Timing summary of one dispatch over the measured repetitions.
struct DispatchStats {
  ral::DispatchInfo info;
  std::vector<int64_t> samplesNs; ///< One per measured repetition.
  profiler::Summary summary;      ///< Of samplesNs, ns.
  double share = 0;               ///< Median / sum of all dispatch medians.
};

/// One cache mode's measurement (RunSettings::mode "both" measures hot, then cold), stored as
/// a run of its own.
struct ModeOutcome {
  profiler::MeasurementRecord measurement; ///< Mode, warmup, samples taken, noise, stop reason.
  std::vector<int64_t> repNs;              ///< Wall time of each measured repetition.
  profiler::Summary runSummary;            ///< Of repNs.
  std::vector<DispatchStats> dispatches;   ///< By dispatch id.
  std::optional<double> smClockMhz;        ///< Median SM clock of the samples; GPU with NVML.
  /// cuda: CUPTI's kernel and copy rows of the samples (where dispatch times came from is
  /// measurement.kernelTiming); empty on the CPU.
  std::vector<profiler::KernelRecord> kernels;
  std::vector<profiler::MemcpyRecord> memcpys;
  int64_t runId = -1;                      ///< Id in the profile DB, -1 if not stored.
};

struct RunOutcome {
  int exitCode = kExitOk;
  std::string error;                             ///< Set when exitCode is 2 or 3.
  std::optional<compiler::CompileResult> compile; ///< Absent when a .so was given.
  std::string artifactPath;
  ral::Manifest manifest;
  std::string deviceName;                        ///< "cpu: <model name>, N threads"
  /// Every measured mode, in order. repNs, runSummary, dispatches and runId below are the
  /// first mode's (what callers that know one mode read).
  std::vector<ModeOutcome> modes;
  std::vector<int64_t> repNs;                    ///< Wall time of each measured repetition.
  profiler::Summary runSummary;                  ///< Of repNs.
  std::vector<DispatchStats> dispatches;         ///< By dispatch id.
  std::vector<ral::Tensor> outputs;              ///< Outputs of the last repetition.
  /// Library kernels that failed at run time and what ran instead (ral::FallbackEvent), one
  /// per (dispatch, failed kernel, fallback kernel) in the order first seen; warmup included.
  std::vector<profiler::FallbackRecord> fallbacks;
  bool checked = false;
  std::vector<OutputCheck> checks;
  int64_t runId = -1;                            ///< Id in the profile DB, -1 if not stored.
  bool cancelled = false;
};

/// Reports progress: a stage ("compile", "warmup", "run", "store") and a fraction in [0, 1].
using ProgressFn = std::function<void(const std::string &stage, double fraction)>;

/// Compiles (unless given an artifact), loads, measures in each mode of request.run.mode
/// (profiler::measureArtifact: warmup, samples, stopping rule, cold flushes), records kernel
/// fallbacks, checks outputs and stores each mode as a run. Never throws; failures are in the
/// outcome (exit code and message). `cancel` is polled between repetitions.
RunOutcome runModel(const RunRequest &request, const ProgressFn &progress = {},
                    const std::atomic<bool> *cancel = nullptr);

/// Binds the tensors a run will feed to the compile: their shapes bind symbolic input dims,
/// and the small ones (<= 4 KiB) are the values of inputs read as shape tensors
/// (CompileOptions::inputTensorValues).
void bindInputTensors(compiler::CompileOptions &options, const std::vector<ral::Tensor> &inputs);

/// The measurement options of these run settings (and back).
profiler::MeasureOptions measureOptionsFor(const RunSettings &run);
void setMeasureOptions(RunSettings &run, const profiler::MeasureOptions &options);

/// The compile options of a run with these pipeline settings (always up to the artifact).
compiler::CompileOptions compileOptionsFor(const PipelineSettings &pipeline);
/// The pipeline settings a run's compile options stand for (inverse of compileOptionsFor).
PipelineSettings pipelineSettingsOf(const compiler::CompileOptions &options);

/// The request of the session's top-level settings (no variant recorded).
RunRequest requestFromSession(const Session &session, const std::string &dbPath);
/// The request of one variant of the session ("base" included), recorded under its name.
RunRequest requestForVariant(const Session &session, const Variant &variant,
                             const std::string &dbPath);

} // namespace loupe::sessions

#endif // LOUPE_SESSIONS_RUNNER_H
