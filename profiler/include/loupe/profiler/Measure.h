//===- Measure.h - Warmup, sampling and the noise stopping rule --*- C++ -*-===//
//
// How a run is measured (DESIGN.md "profiler", docs/profiler.md "Method"), shared by
// `loupe-run` and the sessions runner (`loupe run`, `loupe replay`, the GUI):
//
//  1. warm up by a time budget (Triton's do_bench: warmup=25 ms) or an exact count;
//  2. take samples - repetitions timed by the CpuCollector - until the median is known well
//     enough: at least minReps, then stop as soon as the relative noise is under the target,
//     or at maxReps, or at maxMs once minReps are in; or exactly `reps` when asked;
//  3. cold mode flushes the caches before every sample, outside the timed region
//     (CacheFlush.h); on a GPU the SM clock is read after every sample (SmClock.h).
//
// The noise is the relative standard error of the median, estimated from the IQR:
//     noise = sqrt(pi/2) * (IQR / 1.349) / sqrt(n) / median
// (IQR / 1.349 estimates sigma of a normal distribution, robustly; sqrt(pi/2) sigma / sqrt(n)
// is the asymptotic standard error of the median of n normal samples). nvbench's stdrel
// criterion stops on the relative standard deviation (--max-noise 0.5%, --min-samples 10,
// --min-time 0.5 s, --timeout 15 s); that measures the spread of the distribution, which does
// not shrink with more samples, so a noisy machine always runs to the timeout. The standard
// error of the median shrinks as 1/sqrt(n): a noisy stream takes more samples until the
// median is as precise as asked (or a limit stops it), a steady one stops at minReps.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_MEASURE_H
#define LOUPE_PROFILER_MEASURE_H

#include "loupe/profiler/CacheFlush.h"
#include "loupe/profiler/CpuCollector.h"
#include "loupe/profiler/CudaEventTimer.h"
#include "loupe/profiler/Records.h"
#include "loupe/profiler/SmClock.h"
#include "loupe/ral/Artifact.h"
#include "loupe/ral/Status.h"
#include "loupe/ral/Tracer.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loupe::ral {
class CudaDriver;
}

namespace loupe::ral {
class ThreadPool;
} // namespace loupe::ral

namespace loupe::profiler {

class GpuRunProfile;

/// The knobs of a measurement (CLI flags in brackets; docs/cli.md).
struct MeasureOptions {
  int warmupReps = -1;   ///< Exact untimed repetitions [--warmup]; -1: by time, warmupMs.
  double warmupMs = 100; ///< Warmup budget, ms [--warmup-ms]; at least one repetition runs.
  int reps = 0;          ///< Exact sample count [--reps]; 0: adaptive (the stopping rule).
  int minReps = 10;      ///< Adaptive: samples before the rule may stop [--min-reps], >= 10.
  int maxReps = 1000;    ///< Adaptive: at most this many samples [--max-reps].
  double maxMs = 5000;   ///< Adaptive: sampling time limit, ms, honoured after minReps [--max-ms].
  double noise = 0.02;   ///< Adaptive: target relative noise, 0.02 = 2% [--noise].
};

/// A MeasureOptions field out of its range: its name in sessions ("min_reps"), its CLI flag
/// ("--min-reps") and the rule it breaks ("must be >= 10 (at least 10 samples)").
struct MeasureOptionError {
  std::string field;
  std::string flag;
  std::string rule;
};
/// The one range check of the measuring options, for the CLI and sessions alike: warmupReps >=
/// -1, warmupMs >= 0, reps >= 0, 10 <= minReps <= maxReps, maxMs > 0, 0 < noise < 1. Every
/// field out of range, in declaration order.
std::vector<MeasureOptionError> rangeErrors(const MeasureOptions &options);
/// The first of rangeErrors as a kInvalidArgument naming the CLI flag ("--min-reps must be >=
/// 10 ..."); ok when there is none.
ral::Status validate(const MeasureOptions &options);

/// "hot" -> {Hot}, "cold" -> {Cold}, "both" -> {Hot, Cold}; nullopt for anything else.
std::optional<std::vector<CacheMode>> parseCacheModes(const std::string &name);

/// The relative noise of duration samples (formula above): 0 when the IQR is 0, +inf with
/// fewer than 2 samples or a median <= 0 under a positive IQR.
double relativeNoise(const std::vector<int64_t> &durationsNs);

/// The steady clock's measured resolution on this host, ns: the smallest positive difference
/// of back-to-back reads (the VM's clock source decides it; 10-40 ns on kvm-clock). Measured
/// once per process; at least 1.
int64_t timerResolutionNs();

/// The stopping rule: whether sampling stops after the samples so far (`durationsNs`, whole
/// repetitions in order) taken in `elapsedNs`; nullopt: take another. With options.reps > 0:
/// Exact at reps. Else, with n samples: MaxReps at n >= maxReps; below minReps never; Noise
/// when relativeNoise <= options.noise; MaxTime when elapsedNs >= maxMs. `noise`, when given,
/// receives relativeNoise (computed only from minReps on; +inf before).
std::optional<StopReason> stopAfter(const MeasureOptions &options,
                                    const std::vector<int64_t> &durationsNs, int64_t elapsedNs,
                                    double *noise = nullptr);

/// Whether warmup is done after `repsDone` repetitions taking `elapsedNs`: the exact count
/// when options.warmupReps >= 0, else at least one repetition and elapsedNs >= warmupMs.
bool warmupDone(const MeasureOptions &options, int64_t repsDone, int64_t elapsedNs);

/// One measurement: the samples of one cache mode and how they were taken.
struct Measurement {
  MeasurementRecord record;
  CpuCollector collector; ///< The samples: repetitions and dispatches.
  /// Per sample (repetition): the SM clock read right after it, MHz; nullopt without one.
  std::vector<std::optional<int32_t>> smClockMhz;
  bool cancelled = false; ///< Stopped by the cancel flag; the samples are incomplete.
  /// GPU (MeasureEnv::cupti): CUPTI's kernel and copy rows of the samples (where dispatch
  /// times came from is record.kernelTiming, GpuRunProfile::note); empty on the CPU.
  std::vector<KernelRecord> kernels;
  std::vector<MemcpyRecord> memcpys;
  /// GPU, CUDA-events fallback: the GPU span of every GPU dispatch execution of the samples
  /// (CudaEventTimer.h), by repetition and begin order; empty otherwise. Not kernel rows: an
  /// event pair times a whole dispatch, so `kernels` stays empty.
  std::vector<GpuDispatchTiming> eventTimings;
  /// Durations of dispatch `id`, ns:
  ///  - CUPTI kernels: one per sample, its kernels' summed GPU time (a dispatch that launched
  ///    no kernel has none);
  ///  - CUDA events (eventTimings): one per execution, its GPU span for the GPU dispatches the
  ///    events timed, the host clock's for the others;
  ///  - else one per execution, the host clock's.
  std::vector<int64_t> dispatchDurations(int64_t id) const;
  /// The collector's rows (CpuCollector::samples) with each repetition's SM clock. With CUDA
  /// events, a timed GPU dispatch's row ends at its start + its GPU span (the start stays the
  /// host offset at which it was issued), so the stored durations are the GPU ones.
  std::vector<SampleRecord> samples() const;
};

/// The median of the clocks that were read (MHz); nullopt when none was.
std::optional<double> medianSmClockMhz(const std::vector<std::optional<int32_t>> &clocks);

/// Runs one repetition of the workload, forwarding its dispatch events to `tracer` (never null).
using RepetitionFn = std::function<ral::Status(ral::Tracer *tracer)>;

/// What a measurement uses besides the options; every member is optional.
struct MeasureEnv {
  /// Also receives every event of warmup and measured repetitions (e.g. fallback counting).
  ral::Tracer *next = nullptr;
  CacheFlusher *flusher = nullptr; ///< Cold mode: flushes before every sample (required).
  SmClock *clock = nullptr;        ///< Read after every sample.
  std::string clockNote;           ///< Why there is no clock on a GPU (into the record).
  size_t dispatchesPerRep = 0;     ///< Sizes the collector's reservation.
  /// Progress: stage "warmup" or "run" and a fraction in [0, 1].
  std::function<void(const char *stage, double fraction)> progress;
  const std::atomic<bool> *cancel = nullptr; ///< Polled between repetitions.
  /// A GPU workload: time its dispatches with CUPTI during sampling (GpuRunProfile.h). When
  /// another subscriber holds CUPTI they are timed with CUDA events on `cuda`; when CUPTI
  /// cannot start otherwise the host clock is used. MeasurementRecord::kernelTiming says which
  /// and why; an invalid CUPTI collection or a CUDA-events error fails the measurement.
  bool cupti = false;
  /// The artifact's CUDA driver (probeDevice), for the CUDA-events fallback; may be null.
  const ral::CudaDriver *cuda = nullptr;
  /// With `cupti`: makes the run's GpuRunProfile, forwarding to `next`. Empty: CUPTI's own
  /// start and `cuda` (tests inject a CUPTI start result and a fake event clock).
  std::function<std::unique_ptr<GpuRunProfile>(ral::Tracer *next)> makeGpuProfile;
  /// measureArtifact: busy-waits this long after each execution, inside the repetition
  /// (RunSettings::injectDelayUs).
  int64_t injectedDelayNs = 0;
  /// The CPU pool the workload runs on: its stalls during sampling go into the record.
  const ral::ThreadPool *pool = nullptr;
};

/// Warms up, then samples `run` in `mode` as `options` say (validate() first). Errors: the
/// first failing repetition's status; a failed flush; dispatch events that do not pair up
/// (kInternal). A failed clock read leaves that sample without a clock (and says why in
/// record.clockNote); it never fails the measurement.
ral::StatusOr<Measurement> measure(const MeasureOptions &options, CacheMode mode,
                                   const RepetitionFn &run, const MeasureEnv &env = {});

/// What measuring an artifact's device needs: the cold-mode flusher of the artifact's target
/// (CPU: 2 x the last-level cache; "cuda"/"gpu": 2 x the GPU's L2) and, on a GPU, the SM clock
/// (or clockNote saying why not). Errors: the GPU flush buffer cannot be allocated.
struct DeviceProbes {
  std::unique_ptr<CacheFlusher> flusher; ///< Null unless asked for (cold).
  std::unique_ptr<SmClock> clock;        ///< Null on the CPU or without NVML.
  std::string clockNote;                 ///< Why a GPU has no clock; "" otherwise.
  ral::CudaDriver *cuda = nullptr;       ///< The artifact's driver on a GPU; null on the CPU.
};
ral::StatusOr<DeviceProbes> probeDevice(const ral::Artifact &artifact, bool needFlusher);

/// Measures `artifact` on `inputs` (writing `outputs`) in each of `modes`, in order, with
/// probeDevice's flusher, clock and CUDA driver: measure() for each, `env` (next, progress,
/// cancel) shared.
/// Stops at the first error, or after a cancelled measurement (returned, marked cancelled).
ral::StatusOr<std::vector<Measurement>> measureArtifact(const ral::Artifact &artifact,
                                                        const std::vector<ral::Tensor> &inputs,
                                                        std::vector<ral::Tensor> &outputs,
                                                        const MeasureOptions &options,
                                                        const std::vector<CacheMode> &modes,
                                                        MeasureEnv env = {});

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_MEASURE_H
