//===- Records.h - Plain rows written to and read from the profile DB -*- C++ -*-===//
//
// Plain structs, no SQLite types. Times are int64 nanoseconds; "wall" times count from the
// Unix epoch (system_clock), all others are durations or offsets on a steady clock.
// docs/db-schema.md describes the tables these rows map to.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_RECORDS_H
#define LOUPE_PROFILER_RECORDS_H

#include "loupe/profiler/Statistics.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace loupe::profiler {

/// dispatchId of a sample that times a whole repetition (one full call of the entry).
inline constexpr int64_t kWholeRep = -1;

/// What a run is: model, device and configuration. Written by Store::beginRun.
struct RunInfo {
  std::string model;             ///< Model path or name, as the user gave it.
  std::string deviceKind;        ///< "cpu", "cuda".
  std::string deviceName;        ///< e.g. "AMD EPYC 7B13", "NVIDIA H100 80GB HBM3".
  std::string deviceDetailsJson = "{}"; ///< Free-form JSON (driver, SM count, threads, ...).
  std::string configJson = "{}"; ///< Run settings: pipeline, backends, reps, mode (hot/cold)...
  std::string session;           ///< Session file or name; empty = none.
  std::string variant;           ///< Variant name within the session; empty = none.
  int64_t startedNs = 0;         ///< Wall ns since the Unix epoch; 0 = now.
  /// What surrounded the run (RunProvenance.h, runEnvironmentJson) as read when it began;
  /// empty: beginRun reads it then.
  std::string environmentJson;
  /// The batch this run is a trial of (one replay's runs of one variant); empty: none.
  std::string batch;
  int64_t trial = 0; ///< 0-based position in the batch.
};

/// One pass of a compile, in pipeline order.
struct PassRecord {
  int64_t idx = 0;        ///< 0-based position in the pipeline.
  std::string pass;       ///< Pass argument, e.g. "canonicalize".
  std::string options;    ///< Pass options text, e.g. "{max-iterations=10}".
  std::string phase;      ///< import|graph|cluster|lower|ral|llvm|artifact.
  std::string anchor;     ///< Anchor op name, e.g. "func.func".
  int64_t durationNs = 0; ///< Wall time of the pass.
  uint64_t irHash = 0;    ///< Hash of the IR after the pass (stored as INTEGER, bit-cast).
  bool changed = false;   ///< Whether the pass changed the IR.
  /// The source ops whose ops this pass changed and their new hash (0: gone), a delta over
  /// the earlier passes (compiler::PassSnapshot::locHashes): what pass attribution compares.
  std::vector<std::pair<std::string, uint64_t>> locHashes;
};

/// One compile (model -> artifact) belonging to a run.
struct CompileRecord {
  int64_t id = 0;           ///< Set by the store (addCompile's result, loadRun).
  std::string modelPath;
  std::string target;       ///< "cpu", "cuda".
  int64_t totalNs = 0;      ///< Wall time of the whole compile.
  std::string artifactPath; ///< Empty when no artifact was written.
  std::vector<PassRecord> passes;
};

/// A dispatch site of the compiled program (one ral.dispatch / library call).
struct DispatchRecord {
  int64_t dispatchId = 0; ///< Id the runtime reports in its begin/end events.
  std::string name;       ///< Kernel or library entry, e.g. "fusion_3_kLoop".
  std::string op;         ///< Base op(s), e.g. "tosa.matmul".
  std::string loc;        ///< Source location (the provenance key), e.g. "model.onnx:Gemm_0".
  std::string backend;    ///< codegen|openblas|onednn|cublas|cublaslt|cudnn|reference.
  int64_t clusterId = -1; ///< Fusion cluster, -1 if none.
  int64_t bytes = 0;      ///< Bytes of the distinct buffers it reads and writes; 0 if unknown.
  int64_t flops = 0;      ///< Floating-point operations it computes; 0 if unknown.
  /// Library-capable ops: the tuning table's key (op kind, operand shapes and dtypes,
  /// strides); empty otherwise.
  std::string signature;
};

/// What `loupe tune` measured for one op signature on one device (table `tuning`), and the
/// backend it keeps: later compiles with `--backends auto` choose `backend` for the signature.
struct TuningRecord {
  std::string signature;  ///< DispatchRecord::signature, e.g. "conv2d:1x226x226x3xf32:...".
  std::string deviceKind; ///< "cpu", "cuda".
  std::string deviceName; ///< As runs record it, e.g. "Intel(R) Xeon(R) ...".
  std::string op;         ///< The op kind: "conv2d", "matmul", ...
  std::string backend;    ///< The winner.
  std::string defaultBackend; ///< What the compiler chose without tuning.
  /// Per backend tried: {"backend", "median_ns", "change", "change_low", "change_high",
  /// "verdict", "trials"} (change: relative to the default backend's time), as a JSON array.
  std::string measuredJson = "[]";
  std::string loc;   ///< The source op it was measured on.
  std::string model; ///< The model it was measured in.
  std::string batch; ///< The tune's batch (runs.batch of its trials).
  int64_t tunedNs = 0; ///< Wall ns since the Unix epoch; 0 = now.
};

/// Cache state of a measurement (docs/profiler.md, Method): hot = repetitions back to back;
/// cold = the caches (CPU last-level cache, GPU L2) flushed before every sample.
enum class CacheMode { Hot, Cold };
/// "hot", "cold" (the spelling stored in the DB and in run configs).
const char *cacheModeName(CacheMode mode);
/// Inverse of cacheModeName; nullopt for anything else.
std::optional<CacheMode> parseCacheMode(const std::string &name);

/// Why sampling stopped (docs/profiler.md, Method).
enum class StopReason {
  Exact,   ///< The exact count asked for (`--reps N`).
  Noise,   ///< The relative noise fell under the target after at least the minimum samples.
  MaxReps, ///< The sample limit (`--max-reps`).
  MaxTime, ///< The time limit (`--max-ms`), after at least the minimum samples.
};
/// "exact", "noise", "max_reps", "max_time".
const char *stopReasonName(StopReason reason);
/// Inverse of stopReasonName; nullopt for anything else.
std::optional<StopReason> parseStopReason(const std::string &name);

/// How a run's samples were taken: one per measured run (table `measurements`).
struct MeasurementRecord {
  CacheMode mode = CacheMode::Hot;
  int64_t warmupReps = 0; ///< Untimed repetitions before sampling.
  int64_t warmupNs = 0;   ///< Their wall time, ns.
  int64_t reps = 0;       ///< Samples taken (measured repetitions).
  int64_t sampleNs = 0;   ///< Wall time of sampling, flushes and clock reads included, ns.
  /// Relative noise of the whole-repetition durations when sampling stopped (relativeNoise,
  /// Measure.h: relative standard error of the median); NaN when undefined (< 2 samples).
  double noise = 0;
  StopReason stop = StopReason::Exact;
  int64_t flushBytes = 0; ///< Bytes written before each sample to flush the caches; 0 when hot.
  /// Why samples have no SM clock on a GPU run (NVML missing, ...); empty when they have one
  /// and on the CPU.
  std::string clockNote;
  /// GPU runs: where the dispatch times came from ("CUPTI <path> (API n)", "CUDA events (CUPTI
  /// is held by another subscriber: <why>)" or "host clock only (<why>)"); empty on the CPU.
  std::string kernelTiming;
  /// Page faults the process took inside the measured repetitions, per repetition
  /// (getrusage's minor faults before and after each): about 0 when every buffer is reused;
  /// NaN when unknown.
  double minorFaultsPerRep = std::nan("");
  /// CPU: stretches on one thread begun in the measured repetitions, when waits for threads
  /// the scheduler did not run (another process on the core) took over 30% of the time
  /// (ral::ContentionGovernor); -1 when unknown.
  int64_t threadStalls = -1;
  /// The artifact's transient buffers (manifest "buffer_plan", ral::BufferPlan): the arena,
  /// the sum of the buffers placed in it, and the bytes allocated outside it; -1 when the
  /// artifact has no plan.
  int64_t arenaBytes = -1, plannedBytes = -1, unplannedBytes = -1;
};

/// One timing sample.
struct SampleRecord {
  int64_t rep = 0;                ///< 0-based measured repetition (warmup not counted).
  int64_t dispatchId = kWholeRep; ///< kWholeRep for the whole repetition.
  /// Dispatch samples: offsets from the start of their repetition. Whole-rep samples: offsets
  /// from the start of the first measured repetition. endNs - startNs is the duration.
  int64_t startNs = 0;
  int64_t endNs = 0;
  /// SM clock of the GPU read right after the sample's repetition, MHz (NVML); every sample
  /// of a repetition has the same. nullopt on the CPU or without NVML.
  std::optional<int32_t> smClockMhz;
  int64_t durationNs() const { return endNs - startNs; }
};

/// Numerical check of one output against expected values.
struct CheckRecord {
  int64_t outputIdx = 0;
  bool passed = false;
  double maxAbsErr = 0;
  double maxRelErr = 0;
  int64_t worstIndex = -1; ///< Flat index of the worst element, -1 if none.
  double expected = 0;     ///< Expected value at worstIndex (NaN round-trips).
  double actual = 0;       ///< Actual value at worstIndex (NaN round-trips).
};

/// A library kernel that failed at run time and the kernel the runtime called instead (the
/// dispatch's fallback, ral::FallbackEvent), counted over the executions of a run.
struct FallbackRecord {
  int64_t dispatchId = 0;
  std::string failedKernel;   ///< RAL API prefix, e.g. "ral_batch_gemm_onednn".
  std::string fallbackKernel; ///< The kernel called next, e.g. "ral_batch_gemm_openblas".
  std::string message;        ///< The failed kernel's error (its first occurrence).
  int64_t executions = 0;     ///< Executions (warmup included) in which this fallback happened.
};

/// A GPU kernel execution (CUPTI CONCURRENT_KERNEL); Nsight Systems column names.
struct KernelRecord {
  int64_t rep = 0;
  int64_t dispatchId = kWholeRep; ///< External correlation to the dispatch, kWholeRep if none.
  int64_t start = 0; ///< ns on the collector's clock (raw CUPTI timestamps, as nsys stores them).
  int64_t end = 0;
  int64_t deviceId = 0;
  int64_t streamId = 0;
  int64_t correlationId = 0;
  std::string name; ///< Demangled kernel name.
  int32_t gridX = 0, gridY = 0, gridZ = 0;
  int32_t blockX = 0, blockY = 0, blockZ = 0;
  int32_t registersPerThread = 0;
  int64_t staticSharedMemory = 0;  ///< Bytes.
  int64_t dynamicSharedMemory = 0; ///< Bytes.
};

/// A memory copy or set (CUPTI MEMCPY/MEMSET); Nsight Systems column names.
struct MemcpyRecord {
  int64_t rep = 0;
  int64_t dispatchId = kWholeRep;
  int64_t start = 0; ///< ns on the collector's clock, as KernelRecord::start.
  int64_t end = 0;
  int64_t deviceId = 0;
  int64_t streamId = 0;
  int64_t correlationId = 0;
  int64_t bytes = 0;
  int32_t copyKind = 0; ///< CUpti_ActivityMemcpyKind; -1 for a memset.
  int32_t srcKind = 0;  ///< CUpti_ActivityMemoryKind.
  int32_t dstKind = 0;
};

/// A stored verdict of compare() between two runs, for one dispatch or the whole rep.
struct ComparisonRecord {
  int64_t id = 0; ///< Set by the store.
  int64_t baselineRunId = 0;
  int64_t candidateRunId = 0;
  int64_t dispatchId = kWholeRep;
  Verdict verdict = Verdict::Ambiguous;
  double baselineMedianNs = 0;
  double candidateMedianNs = 0;
  double change = 0; ///< Relative median change, as Comparison::change.
  double pValue = 1;
  double threshold = 0.05;
  int64_t createdNs = 0; ///< Wall ns since the Unix epoch; 0 = now.
  std::string name;      ///< The row: dispatch name, "source ops <loc>", "whole repetition".
  double changeLow = 0, changeHigh = 0; ///< Confidence interval of change; NaN: none.
  int64_t baselineTrials = 1, candidateTrials = 1;
  bool underLoad = false; ///< Either side was measured on a loaded machine.
  std::string reason;     ///< Comparison::reason.
};

/// Interrupted: left running by a process that no longer runs (Store::open marks it).
enum class RunStatus { Running, Complete, Failed, Interrupted };
/// "running", "complete", "failed", "interrupted".
const char *runStatusName(RunStatus status);

/// A row of listRuns.
struct RunSummary {
  int64_t id = 0;
  RunStatus status = RunStatus::Running; ///< Interrupted after a crash, at the next open.
  std::string model;
  std::string deviceKind;
  std::string deviceName;
  std::string session;
  std::string variant;
  int64_t startedNs = 0;  ///< Wall ns since the Unix epoch.
  int64_t finishedNs = 0; ///< 0 while running.
  std::string error;      ///< Set when failed.
};

/// Everything stored about one run.
struct RunData {
  RunSummary summary;
  std::string deviceDetailsJson;
  std::string configJson;
  /// The process that began the run (RunProvenance.h); empty and 0 for imports and runs stored
  /// before schema version 6.
  std::string host;
  int64_t pid = 0;
  /// What surrounded the run when it began (runEnvironmentJson); "{}" when not recorded.
  std::string environmentJson = "{}";
  std::string batch; ///< RunInfo::batch; empty for a run outside a batch.
  int64_t trial = 0;
  std::vector<CompileRecord> compiles; ///< By id; passes by idx.
  std::vector<DispatchRecord> dispatches; ///< By dispatchId.
  /// Samples by dispatchId (kWholeRep first), each list by (rep, startNs).
  std::map<int64_t, std::vector<SampleRecord>> samples;
  std::vector<CheckRecord> checks;   ///< By outputIdx.
  std::vector<KernelRecord> kernels; ///< By (rep, start).
  std::vector<MemcpyRecord> memcpys; ///< By (rep, start).
  std::vector<FallbackRecord> fallbacks; ///< By (dispatchId, failedKernel).
  /// How the samples were taken; nullopt for runs stored before schema version 3 and imports.
  std::optional<MeasurementRecord> measurement;

  /// The durations (ns) of one dispatch's samples (kWholeRep: whole repetitions), in order.
  std::vector<int64_t> durations(int64_t dispatchId) const {
    std::vector<int64_t> out;
    if (auto it = samples.find(dispatchId); it != samples.end())
      for (const SampleRecord &s : it->second)
        out.push_back(s.durationNs());
    return out;
  }
};

// Field-wise equality, for tests and de-duplication.
inline bool operator==(const PassRecord &a, const PassRecord &b) {
  return std::tie(a.idx, a.pass, a.options, a.phase, a.anchor, a.durationNs, a.irHash,
                  a.changed, a.locHashes) == std::tie(b.idx, b.pass, b.options, b.phase,
                                                      b.anchor, b.durationNs, b.irHash,
                                                      b.changed, b.locHashes);
}
inline bool operator==(const DispatchRecord &a, const DispatchRecord &b) {
  return std::tie(a.dispatchId, a.name, a.op, a.loc, a.backend, a.clusterId, a.bytes, a.flops,
                  a.signature) == std::tie(b.dispatchId, b.name, b.op, b.loc, b.backend,
                                           b.clusterId, b.bytes, b.flops, b.signature);
}
inline bool operator==(const SampleRecord &a, const SampleRecord &b) {
  return std::tie(a.rep, a.dispatchId, a.startNs, a.endNs, a.smClockMhz) ==
         std::tie(b.rep, b.dispatchId, b.startNs, b.endNs, b.smClockMhz);
}

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_RECORDS_H
