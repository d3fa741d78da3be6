//===- WorkerTest.cpp - The job queue hands results to the UI thread ----------===//
#include "loupe/visualizer/Worker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

using namespace loupe::visualizer;
using Clock = std::chrono::steady_clock;

TEST(Worker, ResultArrivesOnlyThroughDrain) {
  Worker worker("test");
  std::shared_ptr<const int> snapshot;
  worker.post("answer", [&snapshot](JobContext &ctx) {
    auto value = std::make_shared<const int>(42);
    ctx.deliver([&snapshot, value] { snapshot = value; });
  });
  ASSERT_TRUE(worker.waitIdle(10));
  EXPECT_NE(snapshot, nullptr);
  EXPECT_EQ(*snapshot, 42);
  EXPECT_FALSE(worker.busy());
}

TEST(Worker, DrainNeverWaitsForARunningJob) {
  Worker worker("test");
  std::atomic<bool> release{false};
  bool applied = false;
  worker.post("slow", [&](JobContext &ctx) {
    while (!release)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ctx.deliver([&applied] { applied = true; });
  });
  // Frames while the job runs: each drain returns at once and nothing is applied.
  for (int frame = 0; frame < 20; ++frame) {
    auto start = Clock::now();
    EXPECT_EQ(worker.drain(), 0u);
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    EXPECT_LT(ms, 5.0);
    EXPECT_TRUE(worker.busy());
  }
  EXPECT_FALSE(applied);
  release = true;
  ASSERT_TRUE(worker.waitIdle(10));
  EXPECT_TRUE(applied);
}

TEST(Worker, ProgressAndCancel) {
  Worker worker("test");
  std::atomic<bool> started{false};
  bool cancelled = false;
  worker.post("run model", [&](JobContext &ctx) {
    started = true;
    for (int i = 0; i < 10000 && !ctx.cancelled(); ++i) {
      ctx.progress("run", i / 10000.0);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    bool c = ctx.cancelled();
    ctx.deliver([&cancelled, c] { cancelled = c; });
  });
  while (!started)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  JobProgress p = worker.progress();
  EXPECT_TRUE(p.running);
  EXPECT_EQ(p.label, "run model");
  EXPECT_EQ(p.stage, "run");
  worker.cancelCurrent();
  ASSERT_TRUE(worker.waitIdle(10));
  EXPECT_TRUE(cancelled);
  EXPECT_FALSE(worker.progress().running);
}

TEST(Worker, JobsRunInOrderAndQueuedOnesCanBeDropped) {
  Worker worker("test");
  std::vector<int> order;
  std::atomic<bool> release{false};
  worker.post("first", [&](JobContext &ctx) {
    while (!release)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ctx.deliver([&order] { order.push_back(1); });
  });
  worker.post("compile a", [&](JobContext &ctx) { ctx.deliver([&order] { order.push_back(2); }); });
  worker.post("run b", [&](JobContext &ctx) { ctx.deliver([&order] { order.push_back(3); }); });
  worker.dropQueued("compile");
  release = true;
  ASSERT_TRUE(worker.waitIdle(10));
  EXPECT_EQ(order, (std::vector<int>{1, 3}));
}

TEST(Worker, WakeIsCalledWhenSomethingChanges) {
  Worker worker("test");
  std::atomic<int> wakes{0};
  worker.setWake([&wakes] { ++wakes; });
  worker.post("job", [](JobContext &ctx) { ctx.deliver([] {}); });
  ASSERT_TRUE(worker.waitIdle(10));
  EXPECT_GE(wakes.load(), 2); // started, delivered, finished
}

TEST(Worker, AThrowingJobReachesTheFailureHandlerOnTheUiThread) {
  Worker worker("test");
  std::string failedLabel, failedWhat;
  std::thread::id uiThread = std::this_thread::get_id(), handlerThread;
  worker.setFailureHandler([&](const std::string &label, const std::string &what) {
    failedLabel = label;
    failedWhat = what;
    handlerThread = std::this_thread::get_id();
  });
  worker.post("compile big.onnx", [](JobContext &) { throw std::bad_alloc(); });
  bool laterRan = false;
  worker.post("next", [&laterRan](JobContext &ctx) { ctx.deliver([&laterRan] { laterRan = true; }); });
  ASSERT_TRUE(worker.waitIdle(10));
  EXPECT_EQ(failedLabel, "compile big.onnx");
  EXPECT_EQ(failedWhat, "std::bad_alloc");
  EXPECT_EQ(handlerThread, uiThread);
  EXPECT_TRUE(laterRan); // The worker goes on with the next job.
}
