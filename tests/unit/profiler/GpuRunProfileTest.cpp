//===- GpuRunProfileTest.cpp - Which GPU timing a run gets, and why ---------===//
//
// CUPTI's start result is injected: held by another subscriber, the run falls back to CUDA
// events (on a fake clock) and says so; any other failure, or no driver to record events
// with, leaves the host clock, also said.
//
//===----------------------------------------------------------------------===//

#include "FakeEventClock.h"

#include "loupe/profiler/GpuRunProfile.h"

#include <gtest/gtest.h>

using namespace loupe::profiler;
using namespace loupe::profiler::testing;
using loupe::ral::StatusCode;

namespace {

/// What CuptiCollector::start() returns when Nsight holds CUPTI (its status text).
CuptiCollector::Start otherSubscriber() {
  CuptiCollector::Start start;
  start.state = CuptiState::kOtherSubscriber;
  start.status = loupe::ral::unavailable(
      "another CUPTI client is attached to this process (Nsight Systems or Nsight Compute?) "
      "and CUPTI allows only one subscriber: GPU timings fall back to CUDA events, without "
      "per-kernel CUPTI records (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED in "
      "cuptiSubscribe)");
  return start;
}

struct CountingTracer : loupe::ral::Tracer {
  int begins = 0, ends = 0;
  void dispatchBegin(int64_t) override { ++begins; }
  void dispatchEnd(int64_t) override { ++ends; }
};

loupe::ral::DispatchEvent gpuDispatch(int64_t id) {
  loupe::ral::DispatchEvent e;
  e.dispatchId = id;
  e.device = "gpu";
  e.stream = kStreamA;
  return e;
}

} // namespace

TEST(GpuRunProfile, OtherSubscriberFallsBackToCudaEventsAndSaysSo) {
  FakeGpu gpu;
  CountingTracer next;
  GpuRunProfile profile(&next, otherSubscriber(), std::make_unique<FakeEventClock>(gpu));
  EXPECT_EQ(profile.timing(), GpuTiming::kCudaEvents);
  EXPECT_TRUE(profile.active());
  EXPECT_EQ(profile.note().rfind("CUDA events (CUPTI is held by another subscriber: another "
                                 "CUPTI client is attached",
                                 0),
            0u)
      << profile.note();
  EXPECT_NE(profile.note().find("CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"),
            std::string::npos);
  ASSERT_NE(profile.tracer(), &next); // the timer, in front of `next`

  for (int rep = 0; rep < 2; ++rep) {
    profile.beginRep(true);
    profile.tracer()->onDispatchBegin(gpuDispatch(0));
    gpu.nowNs += 2500;
    profile.tracer()->onDispatchEnd(gpuDispatch(0));
    ASSERT_TRUE(profile.endRep().isOk());
  }
  EXPECT_EQ(next.begins, 2);
  EXPECT_EQ(next.ends, 2);
  ASSERT_TRUE(profile.finish().isOk());
  ASSERT_EQ(profile.eventTimings().size(), 2u);
  EXPECT_EQ(profile.eventTimings()[1].rep, 1);
  EXPECT_EQ(profile.eventTimings()[1].durationNs, 2500);
  EXPECT_TRUE(profile.kernels().empty()); // event timings are not kernel rows
  EXPECT_EQ(gpu.destroyed, gpu.created); // finish() released the events
}

TEST(GpuRunProfile, CudaEventErrorsFailTheRun) {
  FakeGpu gpu;
  gpu.failRecordCall = 0;
  CountingTracer next;
  GpuRunProfile profile(&next, otherSubscriber(), std::make_unique<FakeEventClock>(gpu));
  profile.beginRep(true);
  profile.tracer()->onDispatchBegin(gpuDispatch(0));
  profile.tracer()->onDispatchEnd(gpuDispatch(0));
  loupe::ral::Status rep = profile.endRep();
  EXPECT_FALSE(rep.isOk());
  loupe::ral::Status finished = profile.finish();
  EXPECT_EQ(finished.message(), rep.message());
  EXPECT_NE(finished.message().find("cuEventRecord"), std::string::npos) << finished.message();
}

TEST(GpuRunProfile, OtherSubscriberWithoutADriverKeepsTheHostClock) {
  CountingTracer next;
  GpuRunProfile profile(&next, otherSubscriber(), nullptr);
  EXPECT_EQ(profile.timing(), GpuTiming::kHost);
  EXPECT_FALSE(profile.active());
  EXPECT_EQ(profile.tracer(), &next);
  EXPECT_EQ(profile.note().rfind("host clock only (another CUPTI client", 0), 0u)
      << profile.note();
  EXPECT_NE(profile.note().find("no CUDA driver to time CUDA events with)"), std::string::npos)
      << profile.note();
  EXPECT_TRUE(profile.endRep().isOk());
  EXPECT_TRUE(profile.finish().isOk());
}

TEST(GpuRunProfile, OtherCuptiFailuresKeepTheHostClock) {
  FakeGpu gpu;
  CountingTracer next;
  CuptiCollector::Start start;
  start.state = CuptiState::kNotFound;
  start.status = loupe::ral::unavailable("CUPTI not found: libcupti.so.13 not found in ...");
  GpuRunProfile profile(&next, std::move(start), std::make_unique<FakeEventClock>(gpu));
  EXPECT_EQ(profile.timing(), GpuTiming::kHost);
  EXPECT_EQ(profile.tracer(), &next);
  EXPECT_EQ(profile.note(), "host clock only (CUPTI not found: libcupti.so.13 not found in ...)");
  profile.beginRep(true);
  profile.tracer()->onDispatchBegin(gpuDispatch(0));
  profile.tracer()->onDispatchEnd(gpuDispatch(0));
  EXPECT_TRUE(profile.endRep().isOk());
  EXPECT_TRUE(profile.finish().isOk());
  EXPECT_TRUE(profile.eventTimings().empty());
  EXPECT_EQ(gpu.created, 0);
}

TEST(GpuRunProfile, RealStartIsCuptiEventsOrHostAndSaysWhich) {
  // Whatever this machine has: no driver here means the host clock, with the reason.
  CountingTracer next;
  GpuRunProfile profile(&next, nullptr);
  switch (profile.timing()) {
  case GpuTiming::kCupti:
    EXPECT_EQ(profile.note().rfind("CUPTI ", 0), 0u) << profile.note();
    break;
  case GpuTiming::kCudaEvents:
    ADD_FAILURE() << "CUDA events without a driver: " << profile.note();
    break;
  case GpuTiming::kHost:
    EXPECT_EQ(profile.note().rfind("host clock only (", 0), 0u) << profile.note();
    EXPECT_EQ(profile.tracer(), &next);
    break;
  }
  EXPECT_TRUE(profile.finish().isOk());
}
