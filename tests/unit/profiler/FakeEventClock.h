//===- FakeEventClock.h - A GpuEventClock without a GPU ----------*- C++ -*-===//
//
// Events are numbered handles; a record stamps the fake GPU's current time (`FakeGpu::nowNs`,
// which the test advances as a stream would) and an event can be read only once a
// synchronize() on it or a later event of its stream has completed it, as with CUDA, where
// cuEventElapsedTime fails with CUDA_ERROR_NOT_READY before. Failures are injected by call
// number. The state lives in FakeGpu, owned by the test, so it outlives the timer that owns
// the clock.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_TESTS_PROFILER_FAKEEVENTCLOCK_H
#define LOUPE_TESTS_PROFILER_FAKEEVENTCLOCK_H

#include "loupe/profiler/CudaEventTimer.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace loupe::profiler::testing {

/// Streams the tests use (opaque handles, never dereferenced).
inline void *const kStreamA = reinterpret_cast<void *>(uintptr_t(0x5a));
inline void *const kStreamB = reinterpret_cast<void *>(uintptr_t(0x5b));

struct FakeGpu {
  struct Event {
    void *stream = nullptr;
    int64_t ns = 0;
    int64_t seq = -1; ///< Record order; -1: never recorded.
    bool destroyed = false;
  };
  int64_t nowNs = 0;
  std::vector<Event> events; ///< Handle i + 1 is events[i].
  std::map<void *, int64_t> completedSeq; ///< Per stream: records up to this seq are done.
  int64_t records = 0, syncs = 0, elapsedCalls = 0, created = 0, destroyed = 0;
  int64_t failRecordCall = -1;  ///< 0-based record() call that fails, -1: none.
  int64_t failElapsedCall = -1; ///< 0-based elapsedNs() call that fails.
  int64_t failCreateCall = -1;  ///< 0-based createEvent() call that fails.

  Event *find(void *handle) {
    auto i = reinterpret_cast<uintptr_t>(handle);
    return i >= 1 && i <= events.size() ? &events[i - 1] : nullptr;
  }
};

class FakeEventClock : public GpuEventClock {
public:
  explicit FakeEventClock(FakeGpu &gpu) : gpu_(gpu) {}

  ral::StatusOr<void *> createEvent() override {
    if (gpu_.created++ == gpu_.failCreateCall)
      return ral::internalError("CUDA_ERROR_OUT_OF_MEMORY (out of memory) in cuEventCreate");
    gpu_.events.emplace_back();
    return reinterpret_cast<void *>(uintptr_t(gpu_.events.size()));
  }
  void destroyEvent(void *event) override {
    if (FakeGpu::Event *e = gpu_.find(event); e && !e->destroyed) {
      e->destroyed = true;
      ++gpu_.destroyed;
    }
  }
  ral::Status record(void *event, void *stream) override {
    if (gpu_.records == gpu_.failRecordCall) {
      ++gpu_.records;
      return ral::internalError("CUDA_ERROR_INVALID_HANDLE (invalid resource handle) in "
                                "cuEventRecord");
    }
    FakeGpu::Event *e = gpu_.find(event);
    if (!e || e->destroyed || !stream)
      return ral::invalidArgument("fake: bad event or stream");
    e->stream = stream;
    e->ns = gpu_.nowNs;
    e->seq = gpu_.records++;
    return ral::Status::ok();
  }
  ral::Status synchronize(void *event) override {
    ++gpu_.syncs;
    FakeGpu::Event *e = gpu_.find(event);
    if (!e || e->seq < 0)
      return ral::invalidArgument("fake: synchronize on an unrecorded event");
    int64_t &done = gpu_.completedSeq[e->stream];
    done = std::max(done, e->seq);
    return ral::Status::ok();
  }
  ral::StatusOr<int64_t> elapsedNs(void *start, void *end) override {
    if (gpu_.elapsedCalls++ == gpu_.failElapsedCall)
      return ral::internalError("CUDA_ERROR_INVALID_HANDLE (invalid resource handle) in "
                                "cuEventElapsedTime");
    FakeGpu::Event *a = gpu_.find(start), *b = gpu_.find(end);
    if (!a || !b || a->seq < 0 || b->seq < 0)
      return ral::invalidArgument("fake: elapsed time of an unrecorded event");
    auto completed = [&](const FakeGpu::Event *e) {
      auto it = gpu_.completedSeq.find(e->stream);
      return it != gpu_.completedSeq.end() && it->second >= e->seq;
    };
    if (!completed(a) || !completed(b))
      return ral::unavailable("CUDA_ERROR_NOT_READY (device not ready) in cuEventElapsedTime");
    return b->ns - a->ns;
  }

private:
  FakeGpu &gpu_;
};

} // namespace loupe::profiler::testing

#endif // LOUPE_TESTS_PROFILER_FAKEEVENTCLOCK_H
