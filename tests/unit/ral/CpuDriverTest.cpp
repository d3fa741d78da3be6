//===- CpuDriverTest.cpp - Caching allocator, thread pool, workgroup launches ------===//
#include "RalTestUtils.h"

#include "loupe/ral/Context.h"
#include "loupe/ral/CpuDriver.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <thread>

using namespace loupe::ral;
using loupe::ral::testing::RalArgs;

namespace {

TEST(RalCachingAllocator, SizeClassesBoundTheWaste) {
  size_t previous = 0;
  for (size_t bytes = 0; bytes < (size_t(1) << 22); bytes = bytes * 5 / 4 + 1) {
    size_t c = CachingAllocator::classSize(bytes);
    EXPECT_GE(c, bytes);
    EXPECT_GE(c, 64u);
    EXPECT_GE(c, previous);
    if (bytes > 64)
      EXPECT_LE(c, bytes + bytes / 4 + 16) << bytes;
    previous = c;
  }
  EXPECT_EQ(CachingAllocator::classSize(64), 64u);
  EXPECT_EQ(CachingAllocator::classSize(65), 80u);
  EXPECT_EQ(CachingAllocator::classSize(1000), 1024u);
  EXPECT_EQ(CachingAllocator::classSize(1025), 1280u);
}

TEST(RalCachingAllocator, ReusesFreedBlocksOfTheSameClass) {
  CachingAllocator allocator;
  void *a = allocator.allocate(1000);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  EXPECT_EQ(CachingAllocator::blockSize(a), 1024u);
  std::memset(a, 1, 1000);
  allocator.deallocate(a);
  void *b = allocator.allocate(900); // same class (1024 bytes): the block comes back
  EXPECT_EQ(a, b);
  void *c = allocator.allocate(5000); // another class: a miss
  EXPECT_NE(c, b);
  CachingAllocator::Stats s = allocator.stats();
  EXPECT_EQ(s.allocations, 3u);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.bytesInUse, 1024u + CachingAllocator::classSize(5000));
  allocator.deallocate(b);
  allocator.deallocate(c);
  s = allocator.stats();
  EXPECT_EQ(s.bytesInUse, 0u);
  EXPECT_EQ(s.bytesCached, 1024u + CachingAllocator::classSize(5000));
  EXPECT_EQ(s.peakBytesInUse, 1024u + CachingAllocator::classSize(5000));
  allocator.trim();
  EXPECT_EQ(allocator.stats().bytesCached, 0u);
}

TEST(RalCachingAllocator, CacheLimitReleasesBeyondIt) {
  CachingAllocator allocator(/*cacheLimitBytes=*/2048);
  void *a = allocator.allocate(1024), *b = allocator.allocate(1024), *c = allocator.allocate(1024);
  allocator.deallocate(a);
  allocator.deallocate(b);
  allocator.deallocate(c); // over the limit: released
  EXPECT_EQ(allocator.stats().bytesCached, 2048u);
  EXPECT_EQ(allocator.allocate(size_t(1) << 62), nullptr); // absurd sizes fail, never abort
}

TEST(RalThreadPool, EveryWorkgroupRunsExactlyOnceOnAllThreads) {
  ThreadPool pool(2);
  constexpr int64_t kCount = 20000;
  std::vector<std::atomic<int>> visits(kCount);
  std::atomic<int> byThread[2] = {0, 0};
  pool.parallelFor(kCount, [&](int64_t i, int thread) {
    visits[i].fetch_add(1);
    byThread[thread].fetch_add(1);
    if (i % 64 == 0) // some work, so the worker gets a share
      std::this_thread::sleep_for(std::chrono::microseconds(50));
  });
  for (int64_t i = 0; i < kCount; ++i)
    ASSERT_EQ(visits[i].load(), 1) << i;
  EXPECT_EQ(byThread[0] + byThread[1], kCount);
  EXPECT_GT(byThread[0].load(), 0);
  EXPECT_GT(byThread[1].load(), 0) << "the worker thread never ran a workgroup";
}

// Thread t starts at the t-th contiguous share and, once it is done, takes what is left of the
// others' in turn: every id once, each thread's own ids in order.
TEST(RalThreadPool, WorkSharesAreContiguousThenShared) {
  WorkShares shares(10, 3); // shares [0, 4), [4, 7), [7, 10)
  EXPECT_EQ(shares.claim(1), 4);
  EXPECT_EQ(shares.claim(2), 7);
  EXPECT_EQ(shares.claim(0), 0);
  EXPECT_EQ(shares.claim(1), 5);
  EXPECT_EQ(shares.claim(1), 6);
  EXPECT_EQ(shares.claim(1), 8); // its share done: share 2's next
  EXPECT_EQ(shares.claim(1), 9);
  EXPECT_EQ(shares.claim(1), 1); // then share 0's
  EXPECT_EQ(shares.claim(0), 2);
  EXPECT_EQ(shares.claim(2), 3);
  EXPECT_EQ(shares.claim(0), -1);
  EXPECT_EQ(shares.claim(5), -1);
  WorkShares fewer(2, 4); // more threads than ids: empty shares, nothing lost
  std::vector<int64_t> got;
  for (int64_t id; (id = fewer.claim(3)) >= 0;)
    got.push_back(id);
  EXPECT_EQ(got, (std::vector<int64_t>{0, 1}));
}

TEST(RalThreadPool, NestedCallsRunInline) {
  ThreadPool pool(2);
  std::atomic<int> inner{0};
  pool.parallelFor(4, [&](int64_t, int) {
    pool.parallelFor(8, [&](int64_t, int) { inner.fetch_add(1); });
  });
  EXPECT_EQ(inner.load(), 32);
}

// The governor on synthetic timestamps. Short waits, or waits shorter than the work, are no
// stalls; a stall's wait is its loss. Losses decay over kWindowNs: a few scattered stalls keep
// both threads, a run of them (15 ms lost within about 50 ms) makes a stretch on one thread of
// kFirstBackoffNs. A stall within kProbeNs of its end makes the next at once, twice as long
// when within kWindowNs, capped at kMaxBackoffNs; a stall later than the probe is judged by
// the losses again, and after a quiet window the next stretch is short again.
TEST(RalContentionGovernor, LossesBackOffToOneThread) {
  using G = ContentionGovernor;
  G g;
  constexpr int64_t ms = 1'000'000, work = 100'000, stall = 3 * ms;
  int64_t now = 10'000 * ms;
  g.regionEnded(50'000, 150'000, now); // a short wait
  g.regionEnded(50 * ms, 40 * ms, now); // waited less than it worked
  for (int i = 0; i < 20; ++i) {        // 3 ms lost every 20 ms: 15%, both threads pay
    now += 20 * ms;
    g.regionEnded(work, stall, now);
  }
  EXPECT_FALSE(g.solo(now));
  EXPECT_EQ(g.soloStretches(), 0);
  // Every 2 ms: the decayed loss passes 15 ms after a few more.
  int lossy = 0;
  while (!g.solo(now) && lossy < 20) {
    now += 2 * ms;
    g.regionEnded(work, stall, now);
    ++lossy;
  }
  EXPECT_GE(lossy, 2);
  EXPECT_LE(lossy, 6);
  EXPECT_EQ(g.soloStretches(), 1);
  EXPECT_TRUE(g.solo(now + G::kFirstBackoffNs - 1));
  EXPECT_FALSE(g.solo(now + G::kFirstBackoffNs));
  g.regionEnded(work, 20 * stall, now + ms); // begun before the stretch: ignored
  EXPECT_EQ(g.soloStretches(), 1);
  // Lasting contention: the first stall back on two threads fails the probe; each stretch is
  // twice as long, up to the cap.
  int64_t length = G::kFirstBackoffNs;
  for (int stretch = 0; stretch < 8; ++stretch) {
    now += length + ms;
    g.regionEnded(work, stall, now);
    length = std::min(2 * length, G::kMaxBackoffNs);
    EXPECT_TRUE(g.solo(now + length - 1));
    EXPECT_FALSE(g.solo(now + length));
  }
  EXPECT_EQ(length, G::kMaxBackoffNs);
  EXPECT_EQ(g.soloStretches(), 9);
  // A stall after the probe is one loss among others.
  now += length + G::kProbeNs;
  g.regionEnded(work, stall, now);
  EXPECT_FALSE(g.solo(now));
  // Quiet for a window after the last stretch: the next contention starts short again.
  now += 2 * G::kWindowNs;
  while (!g.solo(now)) {
    now += 2 * ms;
    g.regionEnded(work, stall, now);
  }
  EXPECT_TRUE(g.solo(now + G::kFirstBackoffNs - 1));
  EXPECT_FALSE(g.solo(now + G::kFirstBackoffNs));
}

// While the governor says solo, parallelFor runs every workgroup on the calling thread. A
// fresh pool per try: where another process holds a core, a try can go wrong either way.
TEST(RalThreadPool, SoloRunsOnTheCallingThread) {
  auto spin = [](int us) {
    auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
    while (std::chrono::steady_clock::now() < until) {
    }
  };
  for (int attempt = 0; attempt < 10; ++attempt) {
    ThreadPool pool(2);
    pool.parallelFor(2, [&](int64_t, int) { spin(1000); }); // starts the team's threads
    if (pool.governor().soloStretches() != 0 || pool.activeThreads() != 2)
      continue;
    // Thread 0 works 0.5 ms on workgroup 0 (thread 1 arrives meanwhile and claims workgroup
    // 1), then waits for thread 1, which holds workgroup 1 for 3 ms: as if descheduled. A few
    // such stalls are a blip; 15 ms of them within about 50 ms are contention.
    for (int region = 0; region < 40 && pool.governor().soloStretches() == 0; ++region)
      pool.parallelFor(2, [&](int64_t, int thread) { spin(thread == 0 ? 500 : 3000); });
    if (pool.governor().soloStretches() == 0)
      continue; // thread 1 was late: both workgroups ran on thread 0
    EXPECT_EQ(pool.activeThreads(), 1);
    std::atomic<int> others{0};
    pool.parallelFor(64, [&](int64_t, int thread) { others.fetch_add(thread != 0); });
    EXPECT_EQ(others.load(), 0);
    return;
  }
  GTEST_SKIP() << "10 tries, none with both threads on time and then a stall";
}

/// Visits every point of `dims` through the plan's workgroup boxes; each exactly once.
void checkPlanCovers(const CpuLaunchDims &dims, int64_t hint, int threads) {
  CpuLaunchPlan plan = CpuDriver::plan(dims, hint, threads);
  std::map<std::vector<int64_t>, int> seen;
  for (int64_t id = 0; id < plan.numWorkgroups; ++id) {
    int64_t lo[8], hi[8];
    plan.workgroupBox(dims, id, lo, hi);
    std::vector<int64_t> idx(lo, lo + dims.rank);
    std::function<void(int)> walk = [&](int d) {
      if (d == dims.rank) {
        ++seen[idx];
        return;
      }
      for (int64_t v = lo[d]; v < hi[d]; v += dims.step[d]) {
        idx[d] = v;
        walk(d + 1);
      }
    };
    walk(0);
  }
  int64_t expected = 1;
  for (int d = 0; d < dims.rank; ++d)
    expected *= std::max<int64_t>(0, (dims.upper[d] - dims.lower[d] + dims.step[d] - 1) / dims.step[d]);
  EXPECT_EQ(static_cast<int64_t>(seen.size()), expected);
  for (const auto &[point, count] : seen)
    ASSERT_EQ(count, 1);
  EXPECT_LE(plan.numWorkgroups, std::max<int64_t>(1, 8 * threads)); // ~4 per thread, < 2x over
}

TEST(RalCpuLaunch, PlansPartitionTheIterationSpace) {
  CpuLaunchDims a;
  a.rank = 1;
  a.lower[0] = -3, a.upper[0] = 1000, a.step[0] = 7;
  checkPlanCovers(a, 1 << 20, 2);
  CpuLaunchDims b;
  b.rank = 3;
  int64_t lo[] = {0, 2, 0}, up[] = {3, 37, 5}, st[] = {1, 3, 2};
  for (int d = 0; d < 3; ++d)
    b.lower[d] = lo[d], b.upper[d] = up[d], b.step[d] = st[d];
  for (int threads : {1, 2, 3, 8})
    checkPlanCovers(b, 1 << 20, threads);
  CpuLaunchDims empty = b;
  empty.upper[1] = 2;
  checkPlanCovers(empty, 1, 2);
  // Tiny work: one workgroup, no thread hand-off.
  EXPECT_EQ(CpuDriver::plan(b, 1, 8).numWorkgroups, 1);
  // Plenty of work: about four per thread.
  EXPECT_EQ(CpuDriver::plan(a, 1 << 20, 2).numWorkgroups, 8);
}

struct LaunchRecord {
  std::vector<std::atomic<int>> *visits;
  std::atomic<int> *threads;
  int64_t cols;
};

void recordKernel(const int64_t *lo, const int64_t *hi, const int64_t *step, void **params) {
  auto *rec = static_cast<LaunchRecord *>(params[0]);
  rec->threads[ThreadPool::currentThreadIndex()].fetch_add(1);
  for (int64_t i = lo[0]; i < hi[0]; i += step[0])
    for (int64_t j = lo[1]; j < hi[1]; j += step[1])
      (*rec->visits)[i * rec->cols + j].fetch_add(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TEST(RalCpuLaunch, RalCpuLaunchRunsEachPointOnceOnBothThreads) {
  ContextOptions options;
  options.loadPlugins = false;
  options.numThreads = 2;
  auto context = *Context::create(options);
  ExecutionContext execution(*context);
  constexpr int64_t kRows = 64, kCols = 48;
  std::vector<std::atomic<int>> visits(kRows * kCols);
  std::atomic<int> threads[8] = {};
  LaunchRecord record{&visits, threads, kCols};
  void *params[] = {&record};
  int64_t lower[] = {0, 0}, upper[] = {kRows, kCols}, step[] = {1, 1};
  const char *name = "test_kernel";
  RalArgs(&execution)
      .add(name)
      .add(makeMemRef<int64_t, 1>(lower, {2}))
      .add(makeMemRef<int64_t, 1>(upper, {2}))
      .add(makeMemRef<int64_t, 1>(step, {2}))
      .add(int64_t(1) << 20)
      .add(reinterpret_cast<void *>(&recordKernel))
      .add(static_cast<void **>(params))
      .call(LOUPE_RAL_CPU_LAUNCH);
  ASSERT_TRUE(execution.finish()) << execution.status().message();
  for (auto &v : visits)
    ASSERT_EQ(v.load(), 1);
  EXPECT_GT(threads[0].load(), 0);
  EXPECT_GT(threads[1].load(), 0) << "ral_cpu_launch used one thread";
}

std::atomic<int> g1dThreads[8];
void kernel1D(void *ctx, int64_t begin, int64_t end, void **params) {
  auto *visits = static_cast<std::vector<std::atomic<int>> *>(params[0]);
  g1dThreads[ThreadPool::currentThreadIndex()].fetch_add(1);
  EXPECT_NE(ctx, nullptr);
  for (int64_t i = begin; i < end; ++i)
    (*visits)[i].fetch_add(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TEST(RalCpuLaunch, OneDimensionalLaunchUsesTheCompilersBlock) {
  ContextOptions options;
  options.loadPlugins = false;
  options.numThreads = 2;
  auto context = *Context::create(options);
  for (int64_t block : {int64_t(7), int64_t(0)}) {
    ExecutionContext execution(*context);
    std::vector<std::atomic<int>> visits(1000);
    void *params[] = {&visits};
    const char *name = "k1d";
    for (auto &t : g1dThreads)
      t = 0;
    RalArgs(&execution)
        .add(name)
        .add(int64_t(1000))
        .add(block)
        .add(reinterpret_cast<void *>(&kernel1D))
        .add(static_cast<void **>(params))
        .call(LOUPE_RAL_CPU_LAUNCH_1D);
    ASSERT_TRUE(execution.finish()) << execution.status().message();
    for (auto &v : visits)
      ASSERT_EQ(v.load(), 1);
    int workgroups = 0;
    for (auto &t : g1dThreads)
      workgroups += t.load();
    EXPECT_EQ(workgroups, block > 0 ? (1000 + block - 1) / block : 8);
    EXPECT_GT(g1dThreads[1].load(), 0) << "one thread did all workgroups";
  }
}

TEST(RalCpuLaunch, BadBoundsAreStatuses) {
  ContextOptions options;
  options.loadPlugins = false;
  auto context = *Context::create(options);
  ExecutionContext execution(*context);
  int64_t lower[] = {0}, upper[] = {4}, step[] = {0};
  const char *name = "zero_step";
  void **params = nullptr;
  RalArgs(&execution)
      .add(name)
      .add(makeMemRef<int64_t, 1>(lower, {1}))
      .add(makeMemRef<int64_t, 1>(upper, {1}))
      .add(makeMemRef<int64_t, 1>(step, {1}))
      .add(int64_t(1))
      .add(reinterpret_cast<void *>(&recordKernel))
      .add(params)
      .call(LOUPE_RAL_CPU_LAUNCH);
  Status s = execution.finish();
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("not positive"), std::string::npos);
  EXPECT_NE(s.message().find("zero_step"), std::string::npos);
}

} // namespace
