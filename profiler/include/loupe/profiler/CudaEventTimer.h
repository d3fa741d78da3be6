//===- CudaEventTimer.h - GPU dispatch times from CUDA events ----*- C++ -*-===//
//
// The GPU timing used when CUPTI cannot collect because another CUPTI subscriber (Nsight
// Systems or Compute) holds it (CuptiCollector::Start::fallBackToCudaEvents; DESIGN.md,
// "profiler"). For every GPU dispatch (DispatchEvent::device "gpu") the timer records one CUDA
// event on the dispatch's stream (DispatchEvent::stream) at its begin and one at its end; after
// each repetition it waits for them and turns each pair into the dispatch's GPU duration:
// cuEventElapsedTime, from when the stream reached the begin event to when it reached the end
// one. That span covers every kernel, copy and set the dispatch queued on its stream and the
// gaps between them; there are no per-kernel rows (CUPTI gives those).
//
// Events come from a pool: created on first need, recorded again in every repetition and
// destroyed with the timer, so a run creates as many as one repetition's dispatches need (two
// each), not two per dispatch per repetition.
//
// The calls go through GpuEventClock, so the logic runs in tests with a fake clock and no GPU;
// cudaEventClock() binds it to the RAL's CUDA driver (dlopen()ed libcuda, no CUDA header here).
//
// Threading: as CpuCollector, one timer per executing thread; beginRep/endRep and the tracer
// calls come from that thread.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_CUDAEVENTTIMER_H
#define LOUPE_PROFILER_CUDAEVENTTIMER_H

#include "loupe/profiler/ForwardingTracer.h"
#include "loupe/ral/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace loupe::ral {
class CudaDriver;
}

namespace loupe::profiler {

/// The CUDA event calls CudaEventTimer makes. Events and streams are opaque (CUevent, CUstream).
class GpuEventClock {
public:
  virtual ~GpuEventClock() = default;
  /// A new event (cuEventCreate, default flags: timing enabled).
  virtual ral::StatusOr<void *> createEvent() = 0;
  /// Releases an event of createEvent(); errors are ignored (called at teardown).
  virtual void destroyEvent(void *event) = 0;
  /// Records `event` on `stream` (cuEventRecord): it completes when the stream's work queued
  /// before it has.
  virtual ral::Status record(void *event, void *stream) = 0;
  /// Blocks until `event` has completed (cuEventSynchronize).
  virtual ral::Status synchronize(void *event) = 0;
  /// Time from `start` to `end`, both completed, in ns (cuEventElapsedTime gives ms as a float,
  /// with a resolution of about 0.5 us).
  virtual ral::StatusOr<int64_t> elapsedNs(void *start, void *end) = 0;
};

/// A GpuEventClock over `driver`, which must outlive it. Errors are the driver's
/// ("CUDA_ERROR_... in cuEventRecord").
std::unique_ptr<GpuEventClock> cudaEventClock(const ral::CudaDriver &driver);

/// One execution of a GPU dispatch timed with CUDA events.
struct GpuDispatchTiming {
  int64_t rep = 0;        ///< Measured repetition, 0-based (as CpuCollector's).
  int64_t dispatchId = 0; ///< DispatchEvent::dispatchId.
  int64_t durationNs = 0; ///< From the begin event to the end event on its stream, ns.
};

class CudaEventTimer : public ForwardingTracer {
public:
  /// Times with `clock`; every event goes on to `next` (may be null).
  explicit CudaEventTimer(std::unique_ptr<GpuEventClock> clock, ral::Tracer *next = nullptr);
  /// Destroys the pooled events.
  ~CudaEventTimer() override;
  CudaEventTimer(const CudaEventTimer &) = delete;
  CudaEventTimer &operator=(const CudaEventTimer &) = delete;

  /// Starts a repetition. Measured ones are numbered 0, 1, ... (as CpuCollector); the dispatches
  /// of the others (warmup) are not timed.
  void beginRep(bool measured = true);
  /// Ends the repetition: waits for its events and appends a timing per GPU dispatch that both
  /// began and ended in it, in begin order. Returns the first error of the repetition (also
  /// kept in status()): an event that could not be created or recorded (its dispatch is then
  /// not timed), a GPU dispatch without a stream (kInternal), a failed wait or elapsed time.
  /// Each names the dispatch and the repetition: "CUDA events: recording the begin of
  /// dispatch 3 (dispatch_3_matmul) in repetition 2: CUDA_ERROR_... in cuEventRecord".
  ral::Status endRep();

  /// ral::Tracer: GPU dispatches inside a measured repetition are timed (the begin event is
  /// recorded after forwarding, the end event before, so the pair brackets the dispatch as
  /// closely as it can); every event goes on to next(). Dispatches may nest; an end closes the
  /// innermost open dispatch with its id.
  void onDispatchBegin(const ral::DispatchEvent &event) override;
  void onDispatchEnd(const ral::DispatchEvent &event) override;
  // Id-only events carry no device or stream: forwarded, not timed (ForwardingTracer).

  /// Timings of the measured repetitions so far, by repetition then begin order.
  const std::vector<GpuDispatchTiming> &timings() const { return timings_; }
  /// The first error so far (see endRep), or Ok.
  const ral::Status &status() const { return status_; }
  /// GPU dispatch events that had no partner: an end without a begin, a begin never ended in
  /// its repetition, one outside any repetition. Such dispatches are not timed.
  size_t unmatchedEvents() const { return unmatched_; }
  /// Events created so far (the pool's size).
  size_t eventsCreated() const { return pool_.size(); }

private:
  /// One GPU dispatch of the open repetition: indices of its events in pool_ (kNone: not
  /// recorded).
  struct Pair {
    int64_t dispatchId = 0;
    const char *name = "";
    void *stream = nullptr;
    size_t begin = kNone, end = kNone;
    bool open = true;
  };
  static constexpr size_t kNone = static_cast<size_t>(-1);

  /// The next pooled event recorded on `stream`, or kNone (the error is kept).
  size_t recordNext(void *stream, const Pair &pair, const char *what);
  /// Keeps the first error of the repetition.
  void fail(const ral::Status &status);
  static bool isGpu(const ral::DispatchEvent &event);

  std::unique_ptr<GpuEventClock> clock_;
  std::vector<void *> pool_;
  size_t used_ = 0; ///< Pooled events recorded in the open repetition.
  std::vector<Pair> pairs_; ///< The open repetition's GPU dispatches, in begin order.
  std::vector<GpuDispatchTiming> timings_;
  int64_t rep_ = -1; ///< Open measured repetition; -1: none or warmup.
  bool inRep_ = false;
  int64_t measuredReps_ = 0;
  size_t unmatched_ = 0;
  ral::Status status_;
  ral::Status repStatus_; ///< First error of the open repetition.
};

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_CUDAEVENTTIMER_H
