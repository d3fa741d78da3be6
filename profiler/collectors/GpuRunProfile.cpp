//===- GpuRunProfile.cpp - CUPTI kernel timings of one run --------------------===//
#include "loupe/profiler/GpuRunProfile.h"

namespace loupe::profiler {

GpuRunProfile::GpuRunProfile(ral::Tracer *next) : next_(next) {
  CuptiCollector::Start start = CuptiCollector::start();
  if (!start.collector) {
    note_ = start.status.message();
    return;
  }
  collector_ = std::move(start.collector);
  collector_->setNext(next);
  note_ = "CUPTI " + collector_->libraryPath() + " (API " +
          std::to_string(collector_->libraryApiVersion()) + ")";
}

void GpuRunProfile::beginRep(bool measured) {
  if (collector_)
    collector_->beginRep(measured);
}

void GpuRunProfile::endRep() {
  if (collector_)
    collector_->endRep();
}

ral::Status GpuRunProfile::finish() {
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
