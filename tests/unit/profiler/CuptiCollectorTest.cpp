//===- CuptiCollectorTest.cpp - Loading CUPTI, and collecting with a GPU -----===//
//
// Without a GPU: the statuses that say why CUPTI cannot collect (library not found, no driver)
// and that the symbol table resolves against an installed libcupti. With a GPU: a memset and a
// copy issued inside a repetition and a dispatch come back attributed to both.
//
//===----------------------------------------------------------------------===//

#include "loupe/profiler/CuptiCollector.h"
#include "loupe/profiler/Store.h"
#include "loupe/ral/CudaDriver.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

using namespace loupe::profiler;
using loupe::ral::StatusCode;

namespace {

class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> old_;
};

} // namespace

TEST(CuptiCollector, MissingLibrarySaysWhereItLooked) {
  ScopedEnv dirs("LOUPE_CUDA_LIB_DIRS", "/nonexistent/loupe-cuda-libs");
  CuptiOptions options;
  options.sonames = {"libcupti-loupe-test-missing.so.1"};
  CuptiCollector::Start start = CuptiCollector::start(options);
  if (!cuptiHeadersAvailable()) {
    EXPECT_EQ(start.state, CuptiState::kError);
    GTEST_SKIP() << start.status.message();
  }
  ASSERT_EQ(start.state, CuptiState::kNotFound) << start.status.message();
  EXPECT_EQ(start.collector, nullptr);
  EXPECT_FALSE(start.fallBackToCudaEvents());
  EXPECT_EQ(start.status.code(), StatusCode::kUnavailable);
  const std::string &m = start.status.message();
  EXPECT_EQ(m.rfind("CUPTI not found: libcupti-loupe-test-missing.so.1 not found in", 0), 0u) << m;
  EXPECT_NE(m.find("/nonexistent/loupe-cuda-libs"), std::string::npos) << m;
  EXPECT_NE(m.find("/usr/local/cuda/lib64"), std::string::npos) << m;
  EXPECT_NE(m.find("/usr/local/cuda/extras/CUPTI/lib64"), std::string::npos) << m;
  EXPECT_NE(m.find("the system loader"), std::string::npos) << m;
}

TEST(CuptiCollector, BadOptionsAreErrors) {
  CuptiOptions options;
  options.bufferBytes = 16;
  CuptiCollector::Start start = CuptiCollector::start(options);
  EXPECT_EQ(start.state, CuptiState::kError);
  EXPECT_EQ(start.collector, nullptr);
  if (cuptiHeadersAvailable())
    EXPECT_NE(start.status.message().find("too small"), std::string::npos)
        << start.status.message();
}

TEST(CuptiCollector, DefaultStartIsActiveOrSaysWhyNot) {
  CuptiCollector::Start start = CuptiCollector::start();
  const std::string &m = start.status.message();
  switch (start.state) {
  case CuptiState::kActive: {
    ASSERT_NE(start.collector, nullptr);
    EXPECT_TRUE(start.status.isOk());
    // CUPTI is process-wide: a second collector is refused while the first runs.
    CuptiCollector::Start second = CuptiCollector::start();
    EXPECT_EQ(second.state, CuptiState::kError);
    EXPECT_NE(second.status.message().find("already active"), std::string::npos);
    EXPECT_TRUE(start.collector->stop().isOk());
    EXPECT_TRUE(start.collector->summary().valid()) << start.collector->summary().invalidReason();
    break;
  }
  case CuptiState::kNoDriver:
    // Reaching the driver check means libcupti loaded and every symbol of the table resolved.
    EXPECT_EQ(m.rfind("no NVIDIA driver: libcuda.so.1 not found in", 0), 0u) << m;
    EXPECT_NE(m.find("CUPTI found at "), std::string::npos) << m;
    EXPECT_EQ(m.find("lacks"), std::string::npos) << m;
    break;
  case CuptiState::kNotFound:
    EXPECT_EQ(m.rfind("CUPTI not found: ", 0), 0u) << m;
    break;
  case CuptiState::kOtherSubscriber:
    EXPECT_TRUE(start.fallBackToCudaEvents());
    EXPECT_NE(m.find("CUDA events"), std::string::npos) << m;
    EXPECT_NE(m.find("CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"), std::string::npos) << m;
    break;
  case CuptiState::kError:
    if (cuptiHeadersAvailable())
      ADD_FAILURE() << "unexpected CUPTI error: " << m;
    break;
  }
  if (start.state != CuptiState::kActive)
    EXPECT_EQ(start.collector, nullptr);
}

TEST(CuptiCollector, HooksAreNoOpsWithoutACollector) {
  CuptiDispatchHooks hooks = cuptiDispatchHooks();
  ASSERT_NE(hooks.begin, nullptr);
  ASSERT_NE(hooks.end, nullptr);
  hooks.begin(3);
  hooks.end(3);
}

TEST(CuptiCollector, SummaryInvalidReason) {
  CuptiSummary summary;
  EXPECT_TRUE(summary.valid());
  EXPECT_EQ(summary.invalidReason(), "");
  summary.droppedRecords = 12;
  EXPECT_FALSE(summary.valid());
  EXPECT_EQ(summary.invalidReason().rfind("CUPTI dropped 12 activity records", 0), 0u);
  summary.droppedRecords = 0;
  summary.problems.push_back("kernel 'k' ends before it starts");
  EXPECT_FALSE(summary.valid());
  EXPECT_EQ(summary.invalidReason(), "kernel 'k' ends before it starts");
}

// --- With a GPU ------------------------------------------------------------------------

TEST(CuptiCollectorGpu, CopiesAndSetsAreAttributedToTheirDispatch) {
  CuptiCollector::Start start = CuptiCollector::start();
  if (start.state != CuptiState::kActive)
    GTEST_SKIP() << "CUPTI " << cuptiStateName(start.state) << ": " << start.status.message();
  CuptiCollector &cupti = *start.collector;
  auto driver = loupe::ral::CudaDriver::create(0);
  if (!driver)
    GTEST_SKIP() << "no GPU: " << driver.status().message();
  auto stream = (*driver)->createStream();
  ASSERT_TRUE(stream.isOk()) << stream.status().message();
  const size_t bytes = 1 << 20;
  std::vector<unsigned char> host(bytes, 0);

  auto measure = [&](bool measured) {
    cupti.beginRep(measured);
    cupti.dispatchBegin(7);
    auto device = (*driver)->allocAsync(bytes, *stream);
    ASSERT_TRUE(device.isOk()) << device.status().message();
    ASSERT_TRUE((*driver)->memsetAsync(*device, 9, bytes, *stream).isOk());
    ASSERT_TRUE((*driver)->synchronize(*stream).isOk());
    cupti.dispatchEnd(7);
    ASSERT_TRUE((*driver)->memcpyDtoH(host.data(), *device, bytes).isOk()); // whole-rep level
    ASSERT_TRUE((*driver)->freeAsync(*device, *stream).isOk());
    ASSERT_TRUE((*driver)->synchronize(*stream).isOk());
    cupti.endRep();
  };
  measure(false); // warmup: dropped
  measure(true);
  measure(true);
  EXPECT_EQ(host[bytes - 1], 9);

  ASSERT_TRUE(cupti.stop().isOk());
  std::vector<KernelRecord> kernels;
  std::vector<MemcpyRecord> memcpys;
  cupti.takeRows(kernels, memcpys);
  CuptiSummary summary = cupti.summary();
  EXPECT_TRUE(summary.valid()) << summary.invalidReason();
  EXPECT_EQ(summary.droppedRecords, 0u);
  EXPECT_GT(summary.apiRecords, 0u);
  EXPECT_GE(summary.warmupRecords, 2u);

  int sets = 0, copies = 0;
  for (const MemcpyRecord &m : memcpys) {
    if (m.rep < 0)
      continue; // outside the repetitions (allocation-pool copies, if any)
    EXPECT_LE(m.rep, 1);
    EXPECT_LE(m.start, m.end);
    if (m.copyKind == -1) {
      ++sets;
      EXPECT_EQ(m.dispatchId, 7);
      EXPECT_EQ(m.bytes, int64_t(bytes));
    } else {
      ++copies;
      EXPECT_EQ(m.dispatchId, kWholeRep);
      EXPECT_EQ(m.bytes, int64_t(bytes));
    }
  }
  EXPECT_EQ(sets, 2);
  EXPECT_EQ(copies, 2);

  // The rows go to the store as they are.
  auto store = Store::open(":memory:");
  ASSERT_TRUE(store.isOk());
  RunInfo info;
  info.model = "cupti-test";
  info.deviceKind = "cuda";
  info.deviceName = (*driver)->deviceName();
  auto run = store->beginRun(info);
  ASSERT_TRUE(run.isOk());
  ASSERT_TRUE(store->addMemcpys(*run, memcpys).isOk());
  ASSERT_TRUE(store->addKernels(*run, kernels).isOk());
}
