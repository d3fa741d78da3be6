//===- CudaEventTimerTest.cpp - GPU dispatch times from CUDA events ---------===//
//
// The CUDA-events timer on a fake clock (FakeEventClock.h), no GPU needed: pairs of events per
// GPU dispatch and repetition, CPU dispatches ignored, nesting and unpaired events, events
// reused across repetitions, waiting before reading, and failing calls as errors that name the
// dispatch and the repetition.
//
//===----------------------------------------------------------------------===//

#include "FakeEventClock.h"

#include "loupe/profiler/CudaEventTimer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace loupe::profiler;
using namespace loupe::profiler::testing;
using loupe::ral::DispatchEvent;
using loupe::ral::StatusCode;

namespace {

/// Everything a timer forwards, as text.
struct Log : loupe::ral::Tracer {
  std::vector<std::string> lines;
  void onDispatchBegin(const DispatchEvent &e) override {
    lines.push_back("begin " + std::to_string(e.dispatchId) + " " + e.device);
  }
  void onDispatchEnd(const DispatchEvent &e) override {
    lines.push_back("end " + std::to_string(e.dispatchId) + " " + e.device);
  }
  void dispatchBegin(int64_t id) override { lines.push_back("id-begin " + std::to_string(id)); }
  void dispatchEnd(int64_t id) override { lines.push_back("id-end " + std::to_string(id)); }
  void outputReady(int64_t index) override { lines.push_back("output " + std::to_string(index)); }
  void onFallback(const loupe::ral::FallbackEvent &e) override {
    lines.push_back("fallback " + e.failedKernel);
  }
};

DispatchEvent gpuDispatch(int64_t id, void *stream = kStreamA, const char *name = "") {
  DispatchEvent e;
  e.dispatchId = id;
  e.name = name;
  e.device = "gpu";
  e.stream = stream;
  return e;
}

DispatchEvent cpuDispatch(int64_t id) {
  DispatchEvent e;
  e.dispatchId = id;
  e.device = "cpu";
  return e;
}

/// Runs `event` as a dispatch that keeps the stream busy for `ns`.
void dispatch(CudaEventTimer &timer, FakeGpu &gpu, const DispatchEvent &event, int64_t ns) {
  timer.onDispatchBegin(event);
  gpu.nowNs += ns;
  timer.onDispatchEnd(event);
}

std::vector<int64_t> durationsOf(const CudaEventTimer &timer, int64_t id) {
  std::vector<int64_t> out;
  for (const GpuDispatchTiming &t : timer.timings())
    if (t.dispatchId == id)
      out.push_back(t.durationNs);
  return out;
}

} // namespace

TEST(CudaEventTimer, TimesEveryGpuDispatchOfEveryRepetition) {
  FakeGpu gpu;
  Log log;
  CudaEventTimer timer(std::make_unique<FakeEventClock>(gpu), &log);
  for (int rep = 0; rep < 3; ++rep) {
    timer.beginRep();
    dispatch(timer, gpu, gpuDispatch(0), 1000 + rep);
    gpu.nowNs += 777; // a launch gap between dispatches is in neither
    dispatch(timer, gpu, cpuDispatch(1), 50'000);
    dispatch(timer, gpu, gpuDispatch(2), 3000);
    ASSERT_TRUE(timer.endRep().isOk()) << timer.status().message();
  }
  ASSERT_EQ(timer.timings().size(), 6u);
  EXPECT_EQ(durationsOf(timer, 0), (std::vector<int64_t>{1000, 1001, 1002}));
  EXPECT_EQ(durationsOf(timer, 2), (std::vector<int64_t>{3000, 3000, 3000}));
  EXPECT_TRUE(durationsOf(timer, 1).empty()); // CPU dispatches are not timed
  for (size_t i = 0; i < timer.timings().size(); ++i)
    EXPECT_EQ(timer.timings()[i].rep, int64_t(i / 2));
  EXPECT_EQ(timer.unmatchedEvents(), 0u);
  EXPECT_TRUE(timer.status().isOk());
  // Two events per GPU dispatch, created in the first repetition and recorded again after.
  EXPECT_EQ(timer.eventsCreated(), 4u);
  EXPECT_EQ(gpu.created, 4);
  EXPECT_EQ(gpu.records, 12);
  EXPECT_EQ(gpu.syncs, 6); // before each read of an end event
  // Every event went on, in order, CPU ones included.
  ASSERT_EQ(log.lines.size(), 18u);
  EXPECT_EQ(log.lines[0], "begin 0 gpu");
  EXPECT_EQ(log.lines[2], "begin 1 cpu");
  EXPECT_EQ(log.lines[5], "end 2 gpu");
}

TEST(CudaEventTimer, PoolGrowsToTheLargestRepetitionAndEventsDieWithTheTimer) {
  FakeGpu gpu;
  {
    CudaEventTimer timer(std::make_unique<FakeEventClock>(gpu));
    for (int dispatches : {1, 3, 2, 3}) {
      timer.beginRep();
      for (int d = 0; d < dispatches; ++d)
        dispatch(timer, gpu, gpuDispatch(d), 10);
      ASSERT_TRUE(timer.endRep().isOk());
    }
    EXPECT_EQ(timer.eventsCreated(), 6u);
    EXPECT_EQ(timer.timings().size(), 9u);
    EXPECT_EQ(gpu.destroyed, 0);
  }
  EXPECT_EQ(gpu.created, 6);
  EXPECT_EQ(gpu.destroyed, 6);
}

TEST(CudaEventTimer, NestedDispatchesAndUnpairedEvents) {
  FakeGpu gpu;
  CudaEventTimer timer(std::make_unique<FakeEventClock>(gpu));
  timer.onDispatchBegin(gpuDispatch(9)); // outside any repetition: not timed, counted
  timer.onDispatchEnd(gpuDispatch(9));
  EXPECT_EQ(timer.unmatchedEvents(), 2u);

  timer.beginRep();
  timer.onDispatchBegin(gpuDispatch(0)); // 0 [ 1 [ 1 [ ] ] ] 0
  gpu.nowNs += 100;
  timer.onDispatchBegin(gpuDispatch(1));
  gpu.nowNs += 10;
  timer.onDispatchBegin(gpuDispatch(1));
  gpu.nowNs += 5;
  timer.onDispatchEnd(gpuDispatch(1)); // closes the inner 1
  gpu.nowNs += 20;
  timer.onDispatchEnd(gpuDispatch(1));
  gpu.nowNs += 200;
  timer.onDispatchEnd(gpuDispatch(0));
  timer.onDispatchEnd(gpuDispatch(7)); // an end without a begin
  timer.onDispatchBegin(gpuDispatch(8)); // a begin never ended
  ASSERT_TRUE(timer.endRep().isOk()) << timer.status().message();

  // In begin order; the outer spans hold the inner ones.
  ASSERT_EQ(timer.timings().size(), 3u);
  EXPECT_EQ(timer.timings()[0].dispatchId, 0);
  EXPECT_EQ(timer.timings()[0].durationNs, 335);
  EXPECT_EQ(timer.timings()[1].durationNs, 35);
  EXPECT_EQ(timer.timings()[2].durationNs, 5);
  EXPECT_EQ(timer.unmatchedEvents(), 4u);

  // The next repetition starts clean: the open 8 does not leak into it.
  timer.beginRep();
  dispatch(timer, gpu, gpuDispatch(8), 40);
  ASSERT_TRUE(timer.endRep().isOk());
  EXPECT_EQ(timer.timings().back().rep, 1);
  EXPECT_EQ(timer.timings().back().durationNs, 40);
  EXPECT_EQ(timer.unmatchedEvents(), 4u);
}

TEST(CudaEventTimer, EachDispatchUsesItsOwnStream) {
  FakeGpu gpu;
  CudaEventTimer timer(std::make_unique<FakeEventClock>(gpu));
  timer.beginRep();
  dispatch(timer, gpu, gpuDispatch(0, kStreamA), 100);
  dispatch(timer, gpu, gpuDispatch(1, kStreamB), 300);
  ASSERT_TRUE(timer.endRep().isOk()) << timer.status().message();
  EXPECT_EQ(gpu.events[0].stream, kStreamA);
  EXPECT_EQ(gpu.events[1].stream, kStreamA);
  EXPECT_EQ(gpu.events[2].stream, kStreamB);
  EXPECT_EQ(durationsOf(timer, 1), (std::vector<int64_t>{300}));
}

TEST(CudaEventTimer, WarmupRepetitionsAreNotTimed) {
  FakeGpu gpu;
  Log log;
  CudaEventTimer timer(std::make_unique<FakeEventClock>(gpu), &log);
  timer.beginRep(/*measured=*/false);
  dispatch(timer, gpu, gpuDispatch(0), 100);
  ASSERT_TRUE(timer.endRep().isOk());
  EXPECT_EQ(gpu.records, 0);
  EXPECT_EQ(log.lines.size(), 2u); // still forwarded
  timer.beginRep();
  dispatch(timer, gpu, gpuDispatch(0), 100);
  ASSERT_TRUE(timer.endRep().isOk());
  ASSERT_EQ(timer.timings().size(), 1u);
  EXPECT_EQ(timer.timings()[0].rep, 0); // measured repetitions count from 0
  EXPECT_EQ(timer.unmatchedEvents(), 0u);
}

TEST(CudaEventTimer, FailingRecordIsAnErrorNamingTheDispatch) {
  FakeGpu gpu;
  gpu.failRecordCall = 2; // the begin of the second dispatch
  CudaEventTimer timer(std::make_unique<FakeEventClock>(gpu));
  timer.beginRep();
  dispatch(timer, gpu, gpuDispatch(0, kStreamA, "dispatch_0_add"), 10);
  dispatch(timer, gpu, gpuDispatch(1, kStreamA, "dispatch_1_matmul"), 20);
  dispatch(timer, gpu, gpuDispatch(2, kStreamA, "dispatch_2_relu"), 30);
  loupe::ral::Status s = timer.endRep();
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(s.message(), "CUDA events: recording the begin of dispatch 1 (dispatch_1_matmul) in "
                         "repetition 0: CUDA_ERROR_INVALID_HANDLE (invalid resource handle) in "
                         "cuEventRecord");
  // The others are still timed; the failed one is not.
  EXPECT_EQ(durationsOf(timer, 0), (std::vector<int64_t>{10}));
  EXPECT_TRUE(durationsOf(timer, 1).empty());
  EXPECT_EQ(durationsOf(timer, 2), (std::vector<int64_t>{30}));
  // The run keeps its first error; a later repetition's endRep reports only its own.
  timer.beginRep();
  dispatch(timer, gpu, gpuDispatch(0), 10);
  EXPECT_TRUE(timer.endRep().isOk());
  EXPECT_EQ(timer.status().message(), s.message());
}

TEST(CudaEventTimer, FailingEndRecordCreateAndElapsedAreErrors) {
  {
    FakeGpu gpu;
    gpu.failRecordCall = 1; // the end of the first dispatch
    CudaEventTimer timer(std::make_unique<FakeEventClock>(gpu));
    timer.beginRep();
    dispatch(timer, gpu, gpuDispatch(4, kStreamA, "k"), 10);
    loupe::ral::Status s = timer.endRep();
    EXPECT_EQ(s.message().rfind("CUDA events: recording the end of dispatch 4 (k) in repetition 0: ",
                                0),
              0u)
        << s.message();
    EXPECT_TRUE(timer.timings().empty());
  }
  {
    FakeGpu gpu;
    gpu.failCreateCall = 0;
    CudaEventTimer timer(std::make_unique<FakeEventClock>(gpu));
    timer.beginRep();
    dispatch(timer, gpu, gpuDispatch(4), 10);
    loupe::ral::Status s = timer.endRep();
    EXPECT_NE(s.message().find("recording the begin of dispatch 4 in repetition 0: "
                               "CUDA_ERROR_OUT_OF_MEMORY"),
              std::string::npos)
        << s.message();
  }
  {
    FakeGpu gpu;
    CudaEventTimer timer(std::make_unique<FakeEventClock>(gpu));
    timer.beginRep();
    dispatch(timer, gpu, gpuDispatch(4), 10);
    ASSERT_TRUE(timer.endRep().isOk());
    gpu.failElapsedCall = 1; // the second repetition's read
    timer.beginRep();
    dispatch(timer, gpu, gpuDispatch(4, kStreamA, "dispatch_4_conv"), 10);
    loupe::ral::Status s = timer.endRep();
    EXPECT_EQ(s.message(), "CUDA events: the elapsed time of dispatch 4 (dispatch_4_conv) in "
                           "repetition 1: CUDA_ERROR_INVALID_HANDLE (invalid resource handle) in "
                           "cuEventElapsedTime");
    EXPECT_EQ(timer.timings().size(), 1u);
  }
}

TEST(CudaEventTimer, GpuDispatchWithoutAStreamIsAnError) {
  FakeGpu gpu;
  CudaEventTimer timer(std::make_unique<FakeEventClock>(gpu));
  timer.beginRep();
  dispatch(timer, gpu, gpuDispatch(3, nullptr, "dispatch_3_gemm"), 10);
  loupe::ral::Status s = timer.endRep();
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(s.message(), "CUDA events: the GPU dispatch 3 (dispatch_3_gemm) in repetition 0 has "
                         "no CUDA stream (DispatchEvent::stream)");
  EXPECT_EQ(gpu.records, 0);
}

TEST(CudaEventTimer, ForwardsEveryKindOfEvent) {
  FakeGpu gpu;
  Log log;
  CudaEventTimer timer(std::make_unique<FakeEventClock>(gpu), &log);
  timer.beginRep();
  timer.dispatchBegin(5); // id-only: no device, no stream, not timed
  timer.dispatchEnd(5);
  timer.outputReady(0);
  loupe::ral::FallbackEvent fallback;
  fallback.failedKernel = "ral_gemm_cublaslt";
  timer.onFallback(fallback);
  ASSERT_TRUE(timer.endRep().isOk());
  EXPECT_EQ(log.lines, (std::vector<std::string>{"id-begin 5", "id-end 5", "output 0",
                                                 "fallback ral_gemm_cublaslt"}));
  EXPECT_TRUE(timer.timings().empty());
  EXPECT_EQ(gpu.records, 0);
}
