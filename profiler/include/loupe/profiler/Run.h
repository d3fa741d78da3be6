//===- Run.h - Run an artifact: bind inputs, measure, check, store ---*- C++ -*-===//
//
// The one run path (after IREE's tooling/run_module): load a compiled artifact, bind its
// inputs (given tensors or seeded random ones), measure it in each cache mode
// (measureArtifact), count kernel fallbacks, check its outputs and store each mode as a run.
// `loupe run`, `loupe replay` and the GUI reach it through sessions::runModel (which compiles
// first); `loupe-run` calls it directly. No compiler or GUI dependency.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_RUN_H
#define LOUPE_PROFILER_RUN_H

#include "loupe/profiler/Check.h"
#include "loupe/profiler/Measure.h"
#include "loupe/profiler/Records.h"
#include "loupe/profiler/Statistics.h"
#include "loupe/ral/Artifact.h"

#include <nlohmann/json_fwd.hpp>

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace loupe::profiler {

class Store;

/// Exit codes of every Loupe tool (DESIGN.md).
enum ExitCode { kExitOk = 0, kExitMismatch = 1, kExitBadInput = 2, kExitInternal = 3 };

/// The one mapping from a failure's Status to an exit code: kInternal -> 3, anything else
/// (bad input, not found, unsupported...) -> 2.
int exitCodeFor(const ral::Status &status);

/// How to run an artifact: what to feed it, how to measure it and what to check it against
/// (a session's "run" object, docs/sessions.md; `loupe run` / `loupe-run` flags).
struct RunSettings {
  /// How to warm up and how many repetitions to measure: the profiler's own options and
  /// defaults (warmup by time, adaptive sampling until the noise target), for the CLI,
  /// sessions and the GUI alike.
  MeasureOptions measure;
  std::string mode = "hot"; ///< "hot", "cold" (caches flushed before each sample) or "both".
  uint64_t seed = 0;       ///< Seed of random inputs, when `inputsDir` is empty.
  std::string inputsDir;   ///< ONNX test-data folder with input_N.pb|.npy; empty: random.
  std::string checkDir;    ///< Folder with expected output_N.pb|.npy; empty: no check.
  double rtol = 1e-3;      ///< Check passes when |actual - expected| <= atol + rtol*|expected|.
  double atol = 1e-5;      ///< Both finite and >= 0 (validTolerance).
  /// Busy-waits this long at the end of every repetition, inside its time: a known slowdown
  /// for validating comparisons (bench/aa); finite and >= 0. Sessions only ("inject_delay_us").
  double injectDelayUs = 0;
};

/// True for a usable check tolerance: finite and >= 0 (NaN would pass every comparison).
bool validTolerance(double tolerance);

/// Timing summary of one dispatch over the measured repetitions.
struct DispatchStats {
  ral::DispatchInfo info;
  std::vector<int64_t> samplesNs; ///< One per measured repetition.
  Summary summary;                ///< Of samplesNs, ns.
  double share = 0;               ///< Median / sum of all dispatch medians.
};

/// One cache mode's measurement (RunSettings::mode "both" measures hot, then cold), stored as
/// a run of its own.
struct ModeOutcome {
  MeasurementRecord measurement;         ///< Mode, warmup, samples taken, noise, stop reason.
  std::vector<int64_t> repNs;            ///< Wall time of each measured repetition.
  Summary runSummary;                    ///< Of repNs.
  std::vector<DispatchStats> dispatches; ///< By dispatch id.
  std::optional<double> smClockMhz;      ///< Median SM clock of the samples; GPU with NVML.
  /// cuda: CUPTI's kernel and copy rows of the samples (where dispatch times came from is
  /// measurement.kernelTiming); empty on the CPU.
  std::vector<KernelRecord> kernels;
  std::vector<MemcpyRecord> memcpys;
  std::vector<SampleRecord> samples;     ///< The rows the profile DB stores.
  int64_t runId = -1;                    ///< Id in the profile DB, -1 if not stored.
};

/// What running an artifact gave. On failure exitCode is 2 or 3 and `error` says why; the
/// fields filled before the failure stay.
struct ArtifactRun {
  int exitCode = kExitOk;
  std::string error;
  std::string artifactPath;
  ral::Manifest manifest;
  std::string deviceName; ///< "cpu: <model name>, N threads", or the GPU's description.
  /// What surrounded the measurement, read just before it (RunProvenance.h): load, CPUs, the
  /// thread and device environment. Stored with the run, shown in reports and the GUI.
  std::string environmentJson;
  /// Every measured mode, in order. repNs, runSummary, dispatches and runId below are the
  /// first mode's (what callers that know one mode read).
  std::vector<ModeOutcome> modes;
  std::vector<int64_t> repNs;
  Summary runSummary;
  std::vector<DispatchStats> dispatches;
  std::vector<ral::Tensor> outputs; ///< Outputs of the last repetition.
  /// Library kernels that failed at run time and what ran instead (ral::FallbackEvent), one
  /// per (dispatch, failed kernel, fallback kernel) in the order first seen; warmup included.
  std::vector<FallbackRecord> fallbacks;
  bool checked = false;
  std::vector<OutputCheck> checks;
  int64_t runId = -1;
  bool cancelled = false;

  /// True when a check ran and every output passed it.
  bool passed() const;
};

/// What runArtifact uses besides the settings; every member is optional.
struct RunEnv {
  /// The inputs, already read (they may have bound the compile); absent: read from
  /// settings.inputsDir, or random from settings.seed when that is empty.
  std::optional<ral::StatusOr<std::vector<ral::Tensor>>> inputs;
  /// Progress: a stage ("warmup", "run") and a fraction in [0, 1].
  std::function<void(const char *stage, double fraction)> progress;
  const std::atomic<bool> *cancel = nullptr; ///< Polled between repetitions.
};

/// Loads the artifact at `path` (ral::Artifact::load checks it first), binds its inputs
/// (uint16 test data where it takes bf16 is taken as bf16 bits; Artifact::checkInputs),
/// measures it in each mode of settings.mode, counts kernel fallbacks and checks its outputs
/// against settings.checkDir. Never throws: a mismatch gives exit code 1, bad input 2, an
/// internal error 3.
ArtifactRun runArtifact(const std::string &path, const RunSettings &settings,
                        const RunEnv &env = {});

/// Stores mode `mode` of `run` in `store` as a run described by `info` (its configJson gets
/// "mode"), with `compile` when the run compiled its model: dispatches, the measurement,
/// samples, kernel fallbacks, kernel and copy rows and checks. Sets run.modes[mode].runId (and
/// run.runId for mode 0). A failure leaves the run 'failed' (or 'running' if the process
/// dies), never half-hidden.
ral::Status storeRun(Store &store, RunInfo info, const CompileRecord *compile, ArtifactRun &run,
                     size_t mode);

/// A measurement's transient memory, as --json and reports give it: {"arena_bytes",
/// "planned_bytes", "unplanned_bytes" (null without a buffer plan), "minor_faults_per_rep"
/// (null when unknown)}; null when none of it is known.
nlohmann::json memoryJson(const MeasurementRecord &m);
/// memoryJson as one line of text: "arena 1.72 MiB for 12.18 MiB of buffers (14%), 0.0 KiB
/// outside it; 0.00 minor page faults per repetition"; empty for null.
std::string describeMemory(const nlohmann::json &memory);
/// A run's `thread_stalls` (MeasurementRecord::threadStalls) as text: "3 stretches on one
/// thread: waits for a thread another process kept from its core took over 30% of the time
/// (ral::ContentionGovernor)"; empty for none or a non-number.
std::string describeThreadStalls(const nlohmann::json &stalls);

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_RUN_H
