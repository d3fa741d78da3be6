//===- CuptiCollector.cpp - GPU activity through CUPTI (dlopen) -------------===//
//
// CUPTI is process-wide and calls back through plain function pointers without user data, so
// the active collector is a global guarded by gActiveMutex: the buffer-completed callback
// (CUPTI's thread, or the thread calling cuptiActivityFlushAll) parses under it, stop()
// clears it after the final forced flush.
//
//===----------------------------------------------------------------------===//

#include "loupe/profiler/CuptiCollector.h"

#include "loupe/profiler/Store.h"
#include "loupe/ral/CudaDriver.h"

#include <cstdlib>
#include <dlfcn.h>

#if LOUPE_PROFILER_HAVE_CUPTI_HEADERS
#include <cupti.h>
#endif

namespace loupe::profiler {

using ral::Status;

const char *cuptiStateName(CuptiState state) {
  switch (state) {
  case CuptiState::kActive:
    return "active";
  case CuptiState::kNotFound:
    return "not found";
  case CuptiState::kNoDriver:
    return "no driver";
  case CuptiState::kOtherSubscriber:
    return "other subscriber";
  case CuptiState::kError:
    return "error";
  }
  return "error";
}

std::string CuptiSummary::invalidReason() const {
  std::string out;
  if (droppedRecords)
    out = "CUPTI dropped " + std::to_string(droppedRecords) +
          " activity records (buffers filled faster than they were flushed); the run's GPU "
          "timings are incomplete";
  for (const std::string &p : problems)
    out += (out.empty() ? "" : "; ") + p;
  return out;
}

namespace {
std::mutex gActiveMutex;
CuptiCollector *gActive = nullptr; ///< Guarded by gActiveMutex.
std::atomic<CuptiCollector *> gActiveForHooks{nullptr};
} // namespace

CuptiDispatchHooks cuptiDispatchHooks() {
  return {[](int64_t id) {
            if (CuptiCollector *c = gActiveForHooks.load(std::memory_order_acquire))
              c->dispatchBegin(id);
          },
          [](int64_t id) {
            if (CuptiCollector *c = gActiveForHooks.load(std::memory_order_acquire))
              c->dispatchEnd(id);
          }};
}

#if LOUPE_PROFILER_HAVE_CUPTI_HEADERS

namespace {
struct CuptiSymbols {
#define LOUPE_CUPTI_PFN(symbol) decltype(&::symbol) symbol = nullptr;
#include "CuptiSymbols.def"
#undef LOUPE_CUPTI_PFN
};

const CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET,            CUPTI_ACTIVITY_KIND_DRIVER,
    CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
};
} // namespace

class CuptiCollector::Impl {
public:
  CuptiSymbols sym;
  CUpti_SubscriberHandle subscriber = nullptr;
  size_t bufferBytes = 4u << 20;

  std::string error(CUptiResult rc, const char *call) const {
    const char *text = nullptr;
    if (sym.cuptiGetResultString && sym.cuptiGetResultString(rc, &text) != CUPTI_SUCCESS)
      text = nullptr;
    return std::string(call) + " failed: " + (text ? text : "CUPTI error") + " (" +
           std::to_string(static_cast<int>(rc)) + ")";
  }

  static void CUPTIAPI onSubscriberCallback(void *, CUpti_CallbackDomain, CUpti_CallbackId,
                                            const void *) {}

  static void CUPTIAPI onBufferRequested(uint8_t **buffer, size_t *size, size_t *maxRecords) {
    size_t bytes = 4u << 20;
    {
      std::lock_guard<std::mutex> lock(gActiveMutex);
      if (gActive)
        bytes = gActive->impl_->bufferBytes;
    }
    bytes = (bytes + 7) & ~size_t(7);
    *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, bytes));
    *size = *buffer ? bytes : 0; // No buffer: CUPTI drops records, and counts them.
    *maxRecords = 0;             // As many as fit.
  }

  static void CUPTIAPI onBufferCompleted(CUcontext context, uint32_t streamId, uint8_t *buffer,
                                         size_t, size_t validSize) {
    std::lock_guard<std::mutex> lock(gActiveMutex);
    if (gActive && buffer) {
      const CuptiSymbols &sym = gActive->impl_->sym;
      ActivityBatch batch;
      CUpti_Activity *record = nullptr;
      for (;;) {
        CUptiResult rc = sym.cuptiActivityGetNextRecord(buffer, validSize, &record);
        if (rc == CUPTI_ERROR_MAX_LIMIT_REACHED)
          break;
        if (rc != CUPTI_SUCCESS) {
          batch.problems.push_back(gActive->impl_->error(rc, "cuptiActivityGetNextRecord") +
                                   "; the rest of the buffer is lost");
          break;
        }
        const uint8_t *at = reinterpret_cast<const uint8_t *>(record);
        if (Status s = decodeActivityRecord(at, validSize - static_cast<size_t>(at - buffer), batch);
            !s) {
          batch.problems.push_back(s.message());
          break;
        }
      }
      size_t dropped = 0;
      if (CUptiResult rc = sym.cuptiActivityGetNumDroppedRecords(context, streamId, &dropped);
          rc != CUPTI_SUCCESS)
        batch.problems.push_back(gActive->impl_->error(rc, "cuptiActivityGetNumDroppedRecords"));
      gActive->addBatch(std::move(batch), dropped);
    }
    std::free(buffer);
  }
};

CuptiCollector::Start CuptiCollector::start(const CuptiOptions &options) {
  Start out;
  auto fail = [&](CuptiState state, Status status) {
    out.state = state;
    out.status = std::move(status);
    return std::move(out);
  };
  if (options.bufferBytes < 1024)
    return fail(CuptiState::kError,
                ral::invalidArgument("CUPTI buffer size " + std::to_string(options.bufferBytes) +
                                     " bytes is too small (at least 1 KiB; 4 MB by default)"));
  {
    std::lock_guard<std::mutex> lock(gActiveMutex);
    if (gActive)
      return fail(CuptiState::kError,
                  ral::unavailable("a CUPTI collector is already active in this process "
                                   "(CUPTI is process-wide: stop it first)"));
  }

  std::string path;
  ral::StatusOr<void *> library =
      ral::openCudaLibrary(options.sonames, &path, "CUPTI is not installed", /*includeCupti=*/true);
  if (!library)
    return fail(CuptiState::kNotFound,
                ral::unavailable("CUPTI not found: " + library.status().message()));
  auto impl = std::make_unique<Impl>();
  impl->bufferBytes = options.bufferBytes;
  std::string missing;
#define LOUPE_CUPTI_PFN(symbol)                                                                   \
  impl->sym.symbol = reinterpret_cast<decltype(&::symbol)>(dlsym(*library, #symbol));             \
  if (!impl->sym.symbol)                                                                          \
    missing += (missing.empty() ? "" : ", ") + std::string(#symbol);
#include "CuptiSymbols.def"
#undef LOUPE_CUPTI_PFN
  if (!missing.empty())
    return fail(CuptiState::kError,
                ral::unavailable(path + " lacks " + missing +
                                 " (a CUPTI older than the headers Loupe was built with, API " +
                                 std::to_string(CUPTI_API_VERSION) + "?)"));
  uint32_t version = 0;
  impl->sym.cuptiGetVersion(&version);

  // CUPTI needs the driver; without it every call fails with CUPTI_ERROR_UNKNOWN, so say so.
  std::string driverPath;
  ral::StatusOr<void *> driver = ral::openCudaLibrary({"libcuda.so.1", "libcuda.so"}, &driverPath,
                                                      "no NVIDIA driver on this machine");
  if (!driver)
    return fail(CuptiState::kNoDriver,
                ral::unavailable("no NVIDIA driver: " + driver.status().message() +
                                 " (CUPTI found at " + path + ")"));

  CUptiResult rc = impl->sym.cuptiSubscribe(&impl->subscriber, &Impl::onSubscriberCallback, nullptr);
  if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
    return fail(CuptiState::kOtherSubscriber,
                ral::unavailable("another CUPTI client is attached to this process (Nsight "
                                 "Systems or Nsight Compute?) and CUPTI allows only one "
                                 "subscriber: GPU timings fall back to CUDA events, without "
                                 "per-kernel CUPTI records (" +
                                 impl->error(rc, "cuptiSubscribe") + ")"));
  if (rc != CUPTI_SUCCESS)
    return fail(CuptiState::kError, ral::unavailable(impl->error(rc, "cuptiSubscribe") +
                                                     " (CUPTI at " + path + ")"));

  std::unique_ptr<CuptiCollector> collector(new CuptiCollector());
  collector->libraryPath_ = path;
  collector->libraryVersion_ = version;
  Impl *raw = impl.release();
  collector->impl_ = raw;
  {
    std::lock_guard<std::mutex> lock(gActiveMutex);
    if (gActive) { // Lost a race with another start().
      raw->sym.cuptiUnsubscribe(raw->subscriber);
      collector->stopped_ = true;
      return fail(CuptiState::kError,
                  ral::unavailable("a CUPTI collector is already active in this process"));
    }
    gActive = collector.get();
  }
  Status status = Status::ok();
  rc = raw->sym.cuptiActivityRegisterCallbacks(&Impl::onBufferRequested, &Impl::onBufferCompleted);
  if (rc != CUPTI_SUCCESS)
    status = ral::unavailable(raw->error(rc, "cuptiActivityRegisterCallbacks"));
  for (CUpti_ActivityKind kind : kKinds) {
    if (!status)
      break;
    rc = raw->sym.cuptiActivityEnable(kind);
    if (rc != CUPTI_SUCCESS)
      status = ral::unavailable(raw->error(rc, "cuptiActivityEnable") + " for activity kind " +
                                std::to_string(static_cast<int>(kind)));
  }
  if (status && options.flushPeriodMs > 0) {
    rc = raw->sym.cuptiActivityFlushPeriod(options.flushPeriodMs);
    if (rc != CUPTI_SUCCESS)
      status = ral::unavailable(raw->error(rc, "cuptiActivityFlushPeriod"));
  }
  if (!status) {
    (void)collector->stop(); // Disables what was enabled, unsubscribes; `status` says why.
    return fail(CuptiState::kError, status);
  }
  gActiveForHooks.store(collector.get(), std::memory_order_release);
  out.state = CuptiState::kActive;
  out.collector = std::move(collector);
  return out;
}

void CuptiCollector::push(int64_t dispatchId) {
  if (!stopped_)
    impl_->sym.cuptiActivityPushExternalCorrelationId(
        CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
        encodeExternalId(rep_.load(std::memory_order_relaxed), dispatchId));
}

void CuptiCollector::pop() {
  if (!stopped_)
    impl_->sym.cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
                                                     nullptr);
}

Status CuptiCollector::flush() {
  if (stopped_)
    return Status::ok();
  CUptiResult rc = impl_->sym.cuptiActivityFlushAll(0);
  if (rc != CUPTI_SUCCESS)
    return ral::internalError(impl_->error(rc, "cuptiActivityFlushAll"));
  return Status::ok();
}

Status CuptiCollector::stop() {
  if (stopped_ || !impl_)
    return Status::ok();
  Status status = Status::ok();
  gActiveForHooks.store(nullptr, std::memory_order_release);
  const CuptiSymbols &sym = impl_->sym;
  if (CUptiResult rc = sym.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      rc != CUPTI_SUCCESS)
    status = ral::internalError(impl_->error(rc, "cuptiActivityFlushAll(FORCED)"));
  for (CUpti_ActivityKind kind : kKinds)
    sym.cuptiActivityDisable(kind); // Fails only for kinds never enabled.
  if (CUptiResult rc = sym.cuptiUnsubscribe(impl_->subscriber); rc != CUPTI_SUCCESS && status)
    status = ral::internalError(impl_->error(rc, "cuptiUnsubscribe"));
  {
    std::lock_guard<std::mutex> lock(gActiveMutex);
    if (gActive == this)
      gActive = nullptr;
  }
  stopped_ = true;
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::string &p : validateTimestamps(allKernels_, allMemcpys_))
    summary_.problems.push_back(std::move(p));
  if (!status)
    summary_.problems.push_back(status.message());
  return status;
}

CuptiCollector::~CuptiCollector() {
  (void)stop(); // Cleanup: a caller that cares called stop() itself.
  delete impl_;
}

#else // !LOUPE_PROFILER_HAVE_CUPTI_HEADERS

class CuptiCollector::Impl {};

CuptiCollector::Start CuptiCollector::start(const CuptiOptions &) {
  Start out;
  out.state = CuptiState::kError;
  out.status = ral::unavailable("built without CUPTI headers (cupti.h): the CUPTI collector is "
                                "not available; rebuild with the CUDA toolkit headers");
  return out;
}
void CuptiCollector::push(int64_t) {}
void CuptiCollector::pop() {}
Status CuptiCollector::flush() { return Status::ok(); }
Status CuptiCollector::stop() {
  stopped_ = true;
  return Status::ok();
}
CuptiCollector::~CuptiCollector() { delete impl_; }

#endif

// --- Header-independent parts ---------------------------------------------------------

void CuptiCollector::beginRep(bool measured) {
  rep_.store(measured ? measuredReps_ : kWarmupRep, std::memory_order_relaxed);
  push(kWholeRep);
}

void CuptiCollector::endRep() {
  pop();
  if (rep_.load(std::memory_order_relaxed) != kWarmupRep)
    ++measuredReps_;
  rep_.store(-1, std::memory_order_relaxed);
}

void CuptiCollector::onDispatchBegin(const ral::DispatchEvent &event) {
  push(event.dispatchId);
  ForwardingTracer::onDispatchBegin(event);
}

void CuptiCollector::onDispatchEnd(const ral::DispatchEvent &event) {
  ForwardingTracer::onDispatchEnd(event);
  pop();
}

void CuptiCollector::dispatchBegin(int64_t dispatchId) {
  push(dispatchId);
  ForwardingTracer::dispatchBegin(dispatchId);
}

void CuptiCollector::dispatchEnd(int64_t dispatchId) {
  ForwardingTracer::dispatchEnd(dispatchId);
  pop();
}

void CuptiCollector::addBatch(ActivityBatch &&batch, uint64_t dropped) {
  std::lock_guard<std::mutex> lock(mutex_);
  summary_.buffers += 1;
  summary_.droppedRecords += dropped;
  summary_.kernels += batch.kernels.size();
  summary_.memcpys += batch.memcpys.size();
  summary_.apiRecords += batch.apis.size();
  summary_.skippedRecords += batch.skippedRecords;
  for (std::string &p : batch.problems)
    summary_.problems.push_back(std::move(p));
  batch.problems.clear();
  batch.apis.clear(); // Counted; the store has no table for them.
  allKernels_.insert(allKernels_.end(), batch.kernels.begin(), batch.kernels.end());
  allMemcpys_.insert(allMemcpys_.end(), batch.memcpys.begin(), batch.memcpys.end());
  pending_.append(std::move(batch));
}

void CuptiCollector::takeRows(std::vector<KernelRecord> &kernels,
                              std::vector<MemcpyRecord> &memcpys) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Before stop(), rows whose correlation record has not arrived yet wait for it.
  auto ready = [&](int64_t correlationId) {
    return stopped_ || pending_.externalIds.count(static_cast<uint32_t>(correlationId)) != 0;
  };
  std::vector<KernelRecord> k, keepK;
  std::vector<MemcpyRecord> m, keepM;
  for (KernelRecord &row : pending_.kernels)
    (ready(row.correlationId) ? k : keepK).push_back(std::move(row));
  for (MemcpyRecord &row : pending_.memcpys)
    (ready(row.correlationId) ? m : keepM).push_back(row);
  pending_.kernels = std::move(keepK);
  pending_.memcpys = std::move(keepM);
  Attribution a = attributeRows(k, m, pending_.externalIds);
  summary_.warmupRecords += a.warmup;
  summary_.unattributedRecords += a.unattributed;
  kernels.insert(kernels.end(), std::make_move_iterator(k.begin()), std::make_move_iterator(k.end()));
  memcpys.insert(memcpys.end(), m.begin(), m.end());
}

Status CuptiCollector::drainTo(Store &store, int64_t runId) {
  Status flushed = flush();
  std::vector<KernelRecord> kernels;
  std::vector<MemcpyRecord> memcpys;
  takeRows(kernels, memcpys);
  if (!kernels.empty())
    if (Status s = store.addKernels(runId, kernels); !s)
      return s;
  if (!memcpys.empty())
    if (Status s = store.addMemcpys(runId, memcpys); !s)
      return s;
  return flushed;
}

CuptiSummary CuptiCollector::summary() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return summary_;
}

} // namespace loupe::profiler
