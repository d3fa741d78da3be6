//===- CpuCollector.h - Steady-clock timings of runs and dispatches -*- C++ -*-===//
//
// Times repetitions of a CPU run and the dispatches inside them with std::chrono::steady_clock.
// Recording appends to pre-reserved vectors (no allocation, no lock once reserved), so the
// timer costs about two clock reads per event. prepareRep() touches the pages the next
// repetition's records will fill, so that the page faults inside it (which a run reports) are
// the artifact's, not the timer's.
//
// Threading: one collector per executing thread. All begin/end calls must come from that
// thread; read results only after the last endRep(), after synchronising with it.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_CPUCOLLECTOR_H
#define LOUPE_PROFILER_CPUCOLLECTOR_H

#include "loupe/profiler/Records.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace loupe::profiler {

/// The CPU a CPU run is measured on: "<model name from /proc/cpuinfo> (N threads)".
std::string cpuDeviceName();

class CpuCollector {
public:
  /// One measured repetition; ns relative to the start of the first repetition.
  struct RepTiming {
    int64_t startNs = 0;
    int64_t endNs = 0;
    int64_t durationNs() const { return endNs - startNs; }
  };
  /// One dispatch execution; ns relative to the start of its repetition.
  struct DispatchTiming {
    int64_t rep = 0;
    int64_t dispatchId = 0;
    int64_t startNs = 0;
    int64_t endNs = 0;
    int64_t durationNs() const { return endNs - startNs; }
  };

  /// Reserves room for `reps` repetitions of `dispatchesPerRep` dispatches each.
  explicit CpuCollector(size_t reps = 0, size_t dispatchesPerRep = 0);

  /// Reserves storage so that recording that many events allocates nothing.
  void reserve(size_t reps, size_t dispatchesPerRep);

  /// Touches the records the next repetition will likely write (as many as the last one
  /// did, within the reserved capacity), so writing them faults no page. Optional; call it
  /// outside the repetition.
  void prepareRep();
  /// Starts a repetition. A beginRep() while one is open ends the open one first.
  void beginRep();
  /// Ends the open repetition; dispatches still open in it are dropped and counted in
  /// unmatchedEvents(). Without an open repetition: counted, otherwise ignored.
  void endRep();
  /// Starts timing `dispatchId` within the open repetition. Dispatches may nest.
  /// Outside a repetition: counted in unmatchedEvents(), otherwise ignored.
  void beginDispatch(int64_t dispatchId);
  /// Ends the innermost open dispatch with this id; other open dispatches stay open (overlap is
  /// allowed). With no such open dispatch: counted in unmatchedEvents(), otherwise ignored.
  void endDispatch(int64_t dispatchId);

  /// Completed repetitions, in order; rep i of dispatches() refers to reps()[i].
  const std::vector<RepTiming> &reps() const { return reps_; }
  /// Completed dispatches, in begin order.
  const std::vector<DispatchTiming> &dispatches() const { return dispatches_; }
  size_t numReps() const { return reps_.size(); }
  bool inRep() const { return inRep_; }

  /// Duration of every repetition, in order (ns).
  std::vector<int64_t> repDurations() const;
  /// Duration of every execution of `dispatchId`, in order (ns).
  std::vector<int64_t> dispatchDurations(int64_t dispatchId) const;
  /// Distinct dispatch ids seen, ascending.
  std::vector<int64_t> dispatchIds() const;
  /// All timings as store rows: one kWholeRep row per repetition, then the dispatches.
  std::vector<SampleRecord> samples() const;

  /// Events that had no partner (end without begin, begin never ended, event outside a rep).
  /// Non-zero means the tracer and the runtime disagree; the run should not be trusted.
  size_t unmatchedEvents() const { return unmatched_; }

  /// Forgets everything recorded (e.g. after warmup); keeps the reserved capacity.
  void clear();

  /// steady_clock now, ns.
  static int64_t nowNs();

private:
  std::vector<RepTiming> reps_;
  std::vector<DispatchTiming> dispatches_;
  /// Indices into dispatches_ of open dispatches, innermost last (endNs < 0 while open).
  std::vector<size_t> open_;
  int64_t originNs_ = 0; ///< Absolute start of the first repetition.
  int64_t repStartNs_ = 0; ///< Absolute start of the open repetition.
  size_t unmatched_ = 0;
  bool inRep_ = false;
  size_t repFirstDispatch_ = 0;  ///< dispatches_.size() when the open repetition began.
  size_t lastRepDispatches_ = 0; ///< Dispatches the last repetition recorded.
};

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_CPUCOLLECTOR_H
