//===- GpuRunProfile.cpp - GPU timings of one run ----------------------------===//
#include "loupe/profiler/GpuRunProfile.h"

namespace loupe::profiler {

GpuRunProfile::GpuRunProfile(ral::Tracer *next, const ral::CudaDriver *cuda)
    : GpuRunProfile(next, CuptiCollector::start(), cuda ? cudaEventClock(*cuda) : nullptr) {}

GpuRunProfile::GpuRunProfile(ral::Tracer *next, CuptiCollector::Start start,
                             std::unique_ptr<GpuEventClock> eventClock)
    : next_(next) {
  if (start.collector) {
    collector_ = std::move(start.collector);
    collector_->setNext(next);
    timing_ = GpuTiming::kCupti;
    note_ = "CUPTI " + collector_->libraryPath() + " (API " +
            std::to_string(collector_->libraryApiVersion()) + ")";
    return;
  }
  const std::string &why = start.status.message();
  if (start.fallBackToCudaEvents() && eventClock) {
    timer_ = std::make_unique<CudaEventTimer>(std::move(eventClock), next);
    timing_ = GpuTiming::kCudaEvents;
    note_ = "CUDA events (CUPTI is held by another subscriber: " + why + ")";
    return;
  }
  timing_ = GpuTiming::kHost;
  note_ = "host clock only (" + why +
          (start.fallBackToCudaEvents() ? "; no CUDA driver to time CUDA events with" : "") + ")";
}

ral::Tracer *GpuRunProfile::tracer() {
  if (collector_)
    return collector_.get();
  if (timer_)
    return timer_.get();
  return next_;
}

void GpuRunProfile::beginRep(bool measured) {
  if (collector_)
    collector_->beginRep(measured);
  if (timer_)
    timer_->beginRep(measured);
}

ral::Status GpuRunProfile::endRep() {
  if (collector_)
    collector_->endRep();
  if (timer_)
    return timer_->endRep();
  return ral::Status::ok();
}

ral::Status GpuRunProfile::finish() {
  if (timer_) {
    eventTimings_ = timer_->timings();
    ral::Status status = timer_->status();
    timer_.reset(); // destroys its events
    return status;
  }
  if (!collector_)
    return ral::Status::ok();
  ral::Status stopped = collector_->stop();
  collector_->takeRows(kernels_, memcpys_);
  CuptiSummary summary = collector_->summary();
  collector_.reset();
  if (!stopped)
    return stopped;
  if (!summary.valid())
    return ral::internalError("the CUPTI collection is invalid: " + summary.invalidReason());
  return ral::Status::ok();
}

} // namespace loupe::profiler
