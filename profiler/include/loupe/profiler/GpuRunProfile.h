//===- GpuRunProfile.h - CUPTI kernel timings of one run ---------*- C++ -*-===//
//
// What a runner adds around the repetitions of a cuda artifact so that each dispatch's time is
// its kernels' GPU time from CUPTI (CONCURRENT_KERNEL records correlated to the dispatch
// through the external id the collector pushes), not the host time of an asynchronous launch.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_GPURUNPROFILE_H
#define LOUPE_PROFILER_GPURUNPROFILE_H

#include "loupe/profiler/CuptiCollector.h"

namespace loupe::profiler {

class GpuRunProfile {
public:
  /// Starts the CUPTI collector, which forwards every tracer event to `next` (the CPU
  /// collector). When CUPTI cannot start, active() is false and note() says why; tracer() is
  /// then `next` and the run has host timings only.
  explicit GpuRunProfile(ral::Tracer *next);

  bool active() const { return collector_ != nullptr; }
  /// "CUPTI <path> (API <version>)" when active, else why not ("no NVIDIA driver: ...").
  const std::string &note() const { return note_; }
  /// The tracer to run the artifact with.
  ral::Tracer *tracer() { return collector_ ? collector_.get() : next_; }
  /// Bracket each repetition; warmup ones (`measured` false) are dropped.
  void beginRep(bool measured);
  void endRep();

  /// Stops the collector and takes its rows. An invalid collection (dropped records, bad
  /// timestamps) is an error naming why: the run must then be stored as failed.
  ral::Status finish();
  const std::vector<KernelRecord> &kernels() const { return kernels_; }
  const std::vector<MemcpyRecord> &memcpys() const { return memcpys_; }

private:
  std::unique_ptr<CuptiCollector> collector_;
  ral::Tracer *next_;
  std::string note_;
  std::vector<KernelRecord> kernels_;
  std::vector<MemcpyRecord> memcpys_;
};

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_GPURUNPROFILE_H
