//===- CudaEventTimer.cpp - GPU dispatch times from CUDA events -------------===//
#include "loupe/profiler/CudaEventTimer.h"

#include "loupe/ral/CudaDriver.h"

#include <cmath>
#include <cstring>
#include <string>

namespace loupe::profiler {

namespace {

/// The RAL's CUDA driver as a GpuEventClock.
class DriverEventClock : public GpuEventClock {
public:
  explicit DriverEventClock(const ral::CudaDriver &driver) : driver_(driver) {}
  ral::StatusOr<void *> createEvent() override { return driver_.createEvent(); }
  void destroyEvent(void *event) override { (void)driver_.destroyEvent(event); } // Cleanup.
  ral::Status record(void *event, void *stream) override {
    return driver_.recordEvent(event, stream);
  }
  ral::Status synchronize(void *event) override { return driver_.synchronizeEvent(event); }
  ral::StatusOr<int64_t> elapsedNs(void *start, void *end) override {
    ral::StatusOr<float> ms = driver_.elapsedMs(start, end);
    if (!ms)
      return ms.status();
    return static_cast<int64_t>(std::llround(double(*ms) * 1e6));
  }

private:
  const ral::CudaDriver &driver_;
};

} // namespace

std::unique_ptr<GpuEventClock> cudaEventClock(const ral::CudaDriver &driver) {
  return std::make_unique<DriverEventClock>(driver);
}

CudaEventTimer::CudaEventTimer(std::unique_ptr<GpuEventClock> clock, ral::Tracer *next)
    : ForwardingTracer(next), clock_(std::move(clock)) {}

CudaEventTimer::~CudaEventTimer() {
  for (void *event : pool_)
    clock_->destroyEvent(event);
}

bool CudaEventTimer::isGpu(const ral::DispatchEvent &event) {
  return std::strcmp(event.device, "gpu") == 0;
}

void CudaEventTimer::fail(const ral::Status &status) {
  if (repStatus_)
    repStatus_ = status;
  if (status_)
    status_ = status;
}

/// "dispatch 3 (dispatch_3_matmul) in repetition 2".
static std::string describe(int64_t dispatchId, const char *name, int64_t rep) {
  std::string s = "dispatch " + std::to_string(dispatchId);
  if (name && *name)
    s += std::string(" (") + name + ")";
  return s + " in repetition " + std::to_string(rep);
}

size_t CudaEventTimer::recordNext(void *stream, const Pair &pair, const char *what) {
  auto error = [&](const ral::Status &s) {
    fail(ral::Status(s.code(), std::string("CUDA events: ") + what + " of " +
                                   describe(pair.dispatchId, pair.name, rep_) + ": " +
                                   s.message()));
    return kNone;
  };
  if (used_ == pool_.size()) {
    ral::StatusOr<void *> event = clock_->createEvent();
    if (!event)
      return error(event.status());
    pool_.push_back(*event);
  }
  if (ral::Status s = clock_->record(pool_[used_], stream); !s)
    return error(s);
  return used_++;
}

void CudaEventTimer::beginRep(bool measured) {
  if (inRep_)
    (void)endRep(); // A repetition left open: its events are counted as unmatched.
  inRep_ = true;
  rep_ = measured ? measuredReps_ : -1;
  repStatus_ = ral::Status::ok();
}

ral::Status CudaEventTimer::endRep() {
  if (!inRep_)
    return ral::Status::ok();
  for (const Pair &p : pairs_) {
    if (p.open) {
      ++unmatched_; // began, never ended in this repetition
      continue;
    }
    if (p.begin == kNone || p.end == kNone)
      continue; // recording failed: already an error
    auto error = [&](const char *what, const ral::Status &s) {
      fail(ral::Status(s.code(), std::string("CUDA events: ") + what + " of " +
                                     describe(p.dispatchId, p.name, rep_) + ": " + s.message()));
    };
    if (ral::Status s = clock_->synchronize(pool_[p.end]); !s) {
      error("waiting for the end", s);
      continue;
    }
    ral::StatusOr<int64_t> ns = clock_->elapsedNs(pool_[p.begin], pool_[p.end]);
    if (!ns) {
      error("the elapsed time", ns.status());
      continue;
    }
    timings_.push_back({rep_, p.dispatchId, *ns});
  }
  pairs_.clear();
  used_ = 0;
  inRep_ = false;
  if (rep_ >= 0)
    ++measuredReps_;
  rep_ = -1;
  return repStatus_;
}

void CudaEventTimer::onDispatchBegin(const ral::DispatchEvent &event) {
  ForwardingTracer::onDispatchBegin(event);
  if (!isGpu(event))
    return;
  if (!inRep_) {
    ++unmatched_;
    return;
  }
  if (rep_ < 0)
    return; // warmup: not timed
  Pair pair;
  pair.dispatchId = event.dispatchId;
  pair.name = event.name;
  pair.stream = event.stream;
  if (!event.stream)
    fail(ral::internalError("CUDA events: the GPU " +
                            describe(event.dispatchId, event.name, rep_) +
                            " has no CUDA stream (DispatchEvent::stream)"));
  else
    pair.begin = recordNext(event.stream, pair, "recording the begin");
  pairs_.push_back(pair);
}

void CudaEventTimer::onDispatchEnd(const ral::DispatchEvent &event) {
  if (isGpu(event) && inRep_ && rep_ >= 0) {
    // The innermost open dispatch with this id (dispatches may nest).
    Pair *pair = nullptr;
    for (size_t i = pairs_.size(); i-- > 0;)
      if (pairs_[i].open && pairs_[i].dispatchId == event.dispatchId) {
        pair = &pairs_[i];
        break;
      }
    if (!pair) {
      ++unmatched_;
    } else {
      pair->open = false;
      if (pair->begin != kNone)
        pair->end = recordNext(pair->stream, *pair, "recording the end");
    }
  } else if (isGpu(event) && !inRep_) {
    ++unmatched_;
  }
  ForwardingTracer::onDispatchEnd(event);
}

} // namespace loupe::profiler
