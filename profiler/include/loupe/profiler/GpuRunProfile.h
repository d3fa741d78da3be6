//===- GpuRunProfile.h - GPU timings of one run ------------------*- C++ -*-===//
//
// What a runner adds around the repetitions of a cuda artifact so that each dispatch's time is
// GPU time, not the host time of an asynchronous launch:
//  - CUPTI: its kernels' GPU time (CONCURRENT_KERNEL records correlated to the dispatch through
//    the external id the collector pushes), with per-kernel and per-copy rows;
//  - CUDA events, when another CUPTI subscriber (Nsight Systems/Compute) holds CUPTI: the span
//    of each GPU dispatch on its stream (CudaEventTimer.h), without per-kernel rows;
//  - else the host clock, and note() says why.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_GPURUNPROFILE_H
#define LOUPE_PROFILER_GPURUNPROFILE_H

#include "loupe/profiler/CudaEventTimer.h"
#include "loupe/profiler/CuptiCollector.h"

namespace loupe::ral {
class CudaDriver;
}

namespace loupe::profiler {

/// Where a GPU run's dispatch times come from.
enum class GpuTiming {
  kCupti,      ///< CUPTI kernel records.
  kCudaEvents, ///< CUDA events around each GPU dispatch (CUPTI held by another subscriber).
  kHost,       ///< The host clock (CUPTI unavailable, and no event fallback).
};

class GpuRunProfile {
public:
  /// Starts the CUPTI collector, which forwards every tracer event to `next` (the CPU
  /// collector). When CUPTI is held by another subscriber, times GPU dispatches with CUDA
  /// events on `cuda` (the artifact's driver, which must outlive this) instead; when CUPTI
  /// cannot start otherwise, or `cuda` is null, the run has host timings only. note() says
  /// which, and why.
  GpuRunProfile(ral::Tracer *next, const ral::CudaDriver *cuda);
  /// As above with CUPTI's start result given, and the clock of the CUDA-events fallback
  /// (null: none). For tests, which inject kOtherSubscriber and a fake clock.
  GpuRunProfile(ral::Tracer *next, CuptiCollector::Start start,
                std::unique_ptr<GpuEventClock> eventClock);

  GpuTiming timing() const { return timing_; }
  /// CUPTI or CUDA events collect (not the host clock).
  bool active() const { return timing_ != GpuTiming::kHost; }
  /// What MeasurementRecord::kernelTiming says: "CUPTI <path> (API <version>)", "CUDA events (CUPTI
  /// is held by another subscriber: <CUPTI's status>)", or "host clock only (<why>)".
  const std::string &note() const { return note_; }
  /// The tracer to run the artifact with.
  ral::Tracer *tracer();
  /// Bracket each repetition; warmup ones (`measured` false) are dropped. endRep returns the
  /// CUDA-events timer's error of that repetition (CudaEventTimer::endRep), else Ok.
  void beginRep(bool measured);
  ral::Status endRep();

  /// Stops the collector and takes its rows (or the timer's timings). An invalid CUPTI
  /// collection (dropped records, bad timestamps) or a CUDA-events error is an error naming
  /// why: the run must then be stored as failed.
  ral::Status finish();
  const std::vector<KernelRecord> &kernels() const { return kernels_; }
  const std::vector<MemcpyRecord> &memcpys() const { return memcpys_; }
  /// kCudaEvents: the GPU dispatches' durations, by repetition and begin order.
  const std::vector<GpuDispatchTiming> &eventTimings() const { return eventTimings_; }

private:
  std::unique_ptr<CuptiCollector> collector_;
  std::unique_ptr<CudaEventTimer> timer_;
  ral::Tracer *next_;
  GpuTiming timing_ = GpuTiming::kHost;
  std::string note_;
  std::vector<KernelRecord> kernels_;
  std::vector<MemcpyRecord> memcpys_;
  std::vector<GpuDispatchTiming> eventTimings_;
};

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_GPURUNPROFILE_H
