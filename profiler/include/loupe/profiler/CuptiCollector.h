//===- CuptiCollector.h - GPU activity through CUPTI (dlopen) ---*- C++ -*-===//
//
// Records every kernel, copy and set a run issues on an NVIDIA GPU with CUPTI's activity API:
// CONCURRENT_KERNEL (never KERNEL, which serialises kernels), MEMCPY, MEMSET, DRIVER, RUNTIME
// and EXTERNAL_CORRELATION, in 4 MB buffers that CUPTI fills and hands back on its own thread
// (flushed every `flushPeriodMs` and at stop()). Rows come out as KernelRecord / MemcpyRecord
// (CuptiRecords.h parses them), tagged with the repetition and dispatch that issued them.
//
// libcupti is dlopen()ed (search order of ral::openCudaLibrary: LOUPE_CUDA_LIB_DIRS,
// $CUDA_HOME/lib64 and extras/CUPTI/lib64, /usr/local/cuda/lib64 and extras/CUPTI/lib64, then
// the system loader); nothing links CUDA. CUPTI is process-wide: one collector at a time.
//
// A run is valid only when CUPTI dropped no record and every timestamp passed
// validateTimestamps (summary().valid()); store an invalid run as failed with
// summary().invalidReason().
//
// Dispatch attribution: the collector is a ral::Tracer. Set it as the execution's tracer
// (ExecutionContext::setTracer / Artifact::run), chaining the CPU collector with setNext().
// Its dispatch begin/end push and pop a CUPTI external correlation id on the executing thread,
// which is the thread that launches the dispatch's GPU work. A runtime that cannot install a
// tracer calls cuptiDispatchHooks() instead (docs/profiler.md).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_CUPTICOLLECTOR_H
#define LOUPE_PROFILER_CUPTICOLLECTOR_H

#include "loupe/profiler/CuptiRecords.h"
#include "loupe/profiler/ForwardingTracer.h"
#include "loupe/profiler/Records.h"
#include "loupe/ral/Status.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace loupe::profiler {

class Store;

/// Why the collector is or is not running.
enum class CuptiState {
  kActive,          ///< Collecting.
  kNotFound,        ///< libcupti not found (status lists every place searched).
  kNoDriver,        ///< No NVIDIA driver (libcuda.so.1) on this machine.
  kOtherSubscriber, ///< Another CUPTI client (Nsight Systems/Compute) holds CUPTI: use CUDA events.
  kError,           ///< Anything else (old library, CUPTI error, a collector already active).
};
/// "active", "not found", "no driver", "other subscriber", "error".
const char *cuptiStateName(CuptiState state);

struct CuptiOptions {
  size_t bufferBytes = 4u << 20; ///< Size of each activity buffer handed to CUPTI.
  uint32_t flushPeriodMs = 100;  ///< CUPTI's periodic flush (cuptiActivityFlushPeriod); 0: off.
  /// libcupti sonames tried in order (tests replace them to exercise "not found").
  std::vector<std::string> sonames = {"libcupti.so.13", "libcupti.so.12", "libcupti.so.11.8",
                                      "libcupti.so"};
};

/// What the collector saw so far.
struct CuptiSummary {
  uint64_t droppedRecords = 0; ///< cuptiActivityGetNumDroppedRecords, summed over buffers.
  uint64_t buffers = 0;        ///< Buffers completed by CUPTI.
  uint64_t kernels = 0, memcpys = 0, apiRecords = 0, skippedRecords = 0;
  uint64_t warmupRecords = 0;       ///< Rows of warmup repetitions (not kept).
  uint64_t unattributedRecords = 0; ///< Rows with no Loupe external id (rep/dispatch -1).
  std::vector<std::string> problems; ///< Bad timestamps, parse and CUPTI errors.

  bool valid() const { return droppedRecords == 0 && problems.empty(); }
  /// "CUPTI dropped 12 activity records (buffers too small or flushed too late); kernel ..."
  /// or "" when valid.
  std::string invalidReason() const;
};

/// What a runtime calls around the GPU work of one dispatch, on the thread that launches it,
/// when it cannot use the collector as its ral::Tracer. No-ops while no collector is active.
struct CuptiDispatchHooks {
  void (*begin)(int64_t dispatchId);
  void (*end)(int64_t dispatchId);
};
CuptiDispatchHooks cuptiDispatchHooks();

class CuptiCollector : public ForwardingTracer {
public:
  struct Start {
    CuptiState state = CuptiState::kError;
    ral::Status status; ///< Ok when active; else why not, naming what is missing.
    std::unique_ptr<CuptiCollector> collector; ///< Set when active.
    /// kOtherSubscriber: time with CUDA events instead (and say why: status).
    bool fallBackToCudaEvents() const { return state == CuptiState::kOtherSubscriber; }
  };

  /// Loads CUPTI, subscribes, registers the buffer callbacks and enables the activity kinds.
  /// Never throws or aborts; every failure is a state plus a Status (kUnavailable, except
  /// kError ones from a bad option: kInvalidArgument):
  ///  - kNotFound: "CUPTI not found: libcupti.so.13 not found in LOUPE_CUDA_LIB_DIRS (unset), ...";
  ///  - kNoDriver: "no NVIDIA driver: libcuda.so.1 not found in ...";
  ///  - kOtherSubscriber: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED from cuptiSubscribe;
  ///  - kError: built without CUPTI headers, a library lacking symbols, another collector
  ///    active in this process, any other CUPTI error (with cuptiGetResultString's text).
  static Start start(const CuptiOptions &options = CuptiOptions());

  /// Stops (as stop()) if still running.
  ~CuptiCollector() override;
  CuptiCollector(const CuptiCollector &) = delete;
  CuptiCollector &operator=(const CuptiCollector &) = delete;

  /// Starts a repetition: measured ones are numbered 0, 1, ... (as CpuCollector), warmup ones
  /// are not and their rows are dropped. Pushes the repetition's external id on this thread.
  void beginRep(bool measured = true);
  /// Ends the repetition (pops its id). Call on the thread that called beginRep.
  void endRep();

  /// ral::Tracer: push / pop the dispatch's external id around forwarding the event (every
  /// other event is only forwarded: ForwardingTracer).
  void onDispatchBegin(const ral::DispatchEvent &event) override;
  void onDispatchEnd(const ral::DispatchEvent &event) override;
  void dispatchBegin(int64_t dispatchId) override;
  void dispatchEnd(int64_t dispatchId) override;

  /// Asks CUPTI to hand back the buffers it holds (cuptiActivityFlushAll); their rows become
  /// available to takeRows once parsed.
  ral::Status flush();
  /// Moves out the rows parsed so far whose dispatch is known (or all of them after stop()).
  /// Rows whose correlation record has not arrived yet stay until a later call.
  void takeRows(std::vector<KernelRecord> &kernels, std::vector<MemcpyRecord> &memcpys);
  /// flush() + takeRows() + Store::addKernels/addMemcpys for `runId`: the periodic write.
  ral::Status drainTo(Store &store, int64_t runId);
  /// Forces the final flush, disables the activity kinds and unsubscribes; adds the timestamp
  /// checks of everything collected to the summary. Idempotent.
  ral::Status stop();

  CuptiSummary summary() const;
  /// Path of the libcupti in use and its cuptiGetVersion.
  const std::string &libraryPath() const { return libraryPath_; }
  uint32_t libraryApiVersion() const { return libraryVersion_; }

  class Impl; ///< CUPTI bindings (CuptiCollector.cpp).

private:
  CuptiCollector() = default;
  void push(int64_t dispatchId);
  void pop();
  /// Parsed buffers (from CUPTI's thread) are appended here.
  void addBatch(ActivityBatch &&batch, uint64_t dropped);

  Impl *impl_ = nullptr;
  std::string libraryPath_;
  uint32_t libraryVersion_ = 0;
  std::atomic<int64_t> rep_{-1};   ///< Current rep, -1 for warmup / none.
  int64_t measuredReps_ = 0;
  bool stopped_ = false;

  mutable std::mutex mutex_; ///< Guards everything below (CUPTI's thread writes).
  ActivityBatch pending_;    ///< Rows not taken yet; ids of every correlation seen.
  std::vector<KernelRecord> allKernels_; ///< For the final timestamp check.
  std::vector<MemcpyRecord> allMemcpys_;
  CuptiSummary summary_;

  friend class Impl;
};

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_CUPTICOLLECTOR_H
