//===- ForwardingTracer.h - A tracer that passes every event on ---*- C++ -*-===//
//
// The profiler's tracers form a chain (CUPTI or CUDA events, then the measurement's tracer,
// then the runner's): each observes what it needs and passes every event on to the next
// (setNext). This base forwards each kind of event unchanged; a tracer overrides the ones it
// observes and calls the base's to pass them on.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_FORWARDINGTRACER_H
#define LOUPE_PROFILER_FORWARDINGTRACER_H

#include "loupe/ral/Tracer.h"

namespace loupe::profiler {

class ForwardingTracer : public ral::Tracer {
public:
  explicit ForwardingTracer(ral::Tracer *next = nullptr) : next_(next) {}
  /// Tracer that also receives every event (e.g. the CPU collector); may be null.
  void setNext(ral::Tracer *next) { next_ = next; }

  void onDispatchBegin(const ral::DispatchEvent &event) override {
    if (next_)
      next_->onDispatchBegin(event);
  }
  void onDispatchEnd(const ral::DispatchEvent &event) override {
    if (next_)
      next_->onDispatchEnd(event);
  }
  void dispatchBegin(int64_t dispatchId) override {
    if (next_)
      next_->dispatchBegin(dispatchId);
  }
  void dispatchEnd(int64_t dispatchId) override {
    if (next_)
      next_->dispatchEnd(dispatchId);
  }
  void outputReady(int64_t index) override {
    if (next_)
      next_->outputReady(index);
  }
  /// The runners count kernel fallbacks in the next tracer.
  void onFallback(const ral::FallbackEvent &event) override {
    if (next_)
      next_->onFallback(event);
  }

private:
  ral::Tracer *next_;
};

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_FORWARDINGTRACER_H
