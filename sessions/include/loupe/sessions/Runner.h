//===- Runner.h - Compile, run, measure, check, store -----------*- C++ -*-===//
//
// The one implementation of "compile this model and run it" that the CLI (`loupe run`,
// `loupe replay`) and the GUI share; running is profiler::runArtifact (loupe-run's path).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_SESSIONS_RUNNER_H
#define LOUPE_SESSIONS_RUNNER_H

#include "loupe/Pipelines/Compiler.h"
#include "loupe/profiler/Run.h"
#include "loupe/ral/Artifact.h"
#include "loupe/sessions/Session.h"

#include <atomic>
#include <functional>
#include <map>
#include <optional>

namespace loupe::sessions {

using profiler::DispatchStats;
using profiler::ExitCode;
using profiler::kExitBadInput;
using profiler::kExitInternal;
using profiler::kExitMismatch;
using profiler::kExitOk;
using profiler::ModeOutcome;
using profiler::OutputCheck;

struct RunRequest {
  std::string model;                 ///< .mlir/.onnx (compiled first) or a compiled .so.
  compiler::CompileOptions compile;  ///< Ignored for a .so.
  RunSettings run;
  std::string dbPath;                ///< Profile DB to store the run in; empty: none.
  std::string sessionName;           ///< Recorded with the run.
  std::string variant;               ///< Variant of the session, recorded with the run.
  /// A later trial: runs this artifact (the first trial's) instead of compiling `model` again;
  /// the run is still recorded under `model`, without a compile.
  std::string compiledArtifact;
  std::string batch;                 ///< Recorded with the run: the batch it is a trial of.
  int64_t trial = 0;
};

/// A run of a model: its compile (absent when a .so was given) and the artifact's run.
struct RunOutcome : profiler::ArtifactRun {
  std::optional<compiler::CompileResult> compile;
};

/// Reports progress: a stage ("compile", "warmup", "run", "store") and a fraction in [0, 1].
using ProgressFn = std::function<void(const std::string &stage, double fraction)>;

/// Compiles (unless given an artifact), then runs it on the one run path
/// (profiler::runArtifact: inputs, measurement in each mode of request.run.mode, kernel
/// fallbacks, checks) and stores each mode as a run with the compile's snapshots. Never
/// throws; failures are in the outcome (exit code and message). `cancel` is polled between
/// repetitions.
RunOutcome runModel(const RunRequest &request, const ProgressFn &progress = {},
                    const std::atomic<bool> *cancel = nullptr);

/// The profile DB's record of a compile: every pass snapshot with its per-source-op hashes.
profiler::CompileRecord compileRecord(const compiler::CompileResult &compile,
                                      const std::string &model, const std::string &target);

/// Binds the tensors a run will feed to the compile: their shapes bind symbolic input dims,
/// and the small ones (<= 4 KiB) are the values of inputs read as shape tensors
/// (CompileOptions::inputTensorValues).
void bindInputTensors(compiler::CompileOptions &options, const std::vector<ral::Tensor> &inputs);

/// The compile options of a run with these pipeline settings (always up to the artifact).
compiler::CompileOptions compileOptionsFor(const PipelineSettings &pipeline);

/// The request of the session's top-level settings (no variant recorded).
RunRequest requestFromSession(const Session &session, const std::string &dbPath);
/// The request of one variant of the session ("base" included), recorded under its name.
RunRequest requestForVariant(const Session &session, const Variant &variant,
                             const std::string &dbPath);

} // namespace loupe::sessions

#endif // LOUPE_SESSIONS_RUNNER_H
