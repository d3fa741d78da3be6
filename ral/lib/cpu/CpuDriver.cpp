//===- CpuDriver.cpp - Caching allocator, thread pool, workgroup launches -----===//
#include "loupe/ral/CpuDriver.h"

#include <algorithm>
#include <cmath>
#if LOUPE_RAL_OPENMP
#include <omp.h>
#endif
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <string>

#include <unistd.h>

namespace loupe::ral {

//===----------------------------------------------------------------------===//
// CachingAllocator
//===----------------------------------------------------------------------===//

namespace {
constexpr size_t kAlignment = 64;
/// Every block is preceded by a header of kAlignment bytes holding its class size, so
/// deallocate() needs no lookup and the user pointer stays 64-byte aligned.
struct BlockHeader {
  size_t classSize;
  uint32_t magic;
};
constexpr uint32_t kMagic = 0x10a9e5a1;
constexpr size_t kMaxClasses = 1 + 4 * 58; // class 0 (64 B) + 4 per power of two up to 2^63

inline BlockHeader *headerOf(const void *ptr) {
  return reinterpret_cast<BlockHeader *>(static_cast<char *>(const_cast<void *>(ptr)) - kAlignment);
}
} // namespace

size_t CachingAllocator::classIndex(size_t bytes) {
  if (bytes <= 64)
    return 0;
  // bytes in (2^k, 2^(k+1)], k >= 6: four classes of 2^(k-2) each.
  int k = 63 - __builtin_clzll(static_cast<unsigned long long>(bytes - 1));
  size_t unit = size_t(1) << (k - 2);
  size_t q = (bytes + unit - 1) / unit; // 5..8
  return 1 + static_cast<size_t>(k - 6) * 4 + (q - 5);
}

size_t CachingAllocator::classSize(size_t bytes) {
  if (bytes <= 64)
    return 64;
  int k = 63 - __builtin_clzll(static_cast<unsigned long long>(bytes - 1));
  size_t unit = size_t(1) << (k - 2);
  return (bytes + unit - 1) / unit * unit;
}

size_t CachingAllocator::blockSize(const void *ptr) { return headerOf(ptr)->classSize; }

CachingAllocator::CachingAllocator(size_t cacheLimitBytes)
    : cacheLimit_(cacheLimitBytes), freeLists_(kMaxClasses) {}

CachingAllocator::~CachingAllocator() { trim(); }

void *CachingAllocator::allocate(size_t bytes) {
  if (bytes > (size_t(1) << 46))
    return nullptr;
  size_t index = classIndex(bytes);
  size_t size = classSize(bytes);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.allocations;
    std::vector<void *> &list = freeLists_[index];
    if (!list.empty()) {
      void *ptr = list.back();
      list.pop_back();
      ++stats_.hits;
      stats_.bytesCached -= size;
      stats_.bytesInUse += size;
      stats_.peakBytesInUse = std::max(stats_.peakBytesInUse, stats_.bytesInUse);
      return ptr;
    }
    ++stats_.misses;
  }
  // posix_memalign: aligned_alloc would need the size to be a multiple of the alignment.
  void *raw = nullptr;
  if (posix_memalign(&raw, kAlignment, size + kAlignment) != 0)
    raw = nullptr;
  if (!raw) {
    std::lock_guard<std::mutex> lock(mutex_);
    --stats_.allocations;
    --stats_.misses;
    return nullptr;
  }
  auto *header = static_cast<BlockHeader *>(raw);
  header->classSize = size;
  header->magic = kMagic;
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.bytesInUse += size;
  stats_.peakBytesInUse = std::max(stats_.peakBytesInUse, stats_.bytesInUse);
  return static_cast<char *>(raw) + kAlignment;
}

void CachingAllocator::deallocate(void *ptr) {
  if (!ptr)
    return;
  BlockHeader *header = headerOf(ptr);
  size_t size = header->classSize;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.frees;
    stats_.bytesInUse -= size;
    if (stats_.bytesCached + size <= cacheLimit_) {
      freeLists_[classIndex(size)].push_back(ptr);
      stats_.bytesCached += size;
      return;
    }
  }
  std::free(header);
}

void CachingAllocator::trim() {
  std::vector<void *> release;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::vector<void *> &list : freeLists_) {
      release.insert(release.end(), list.begin(), list.end());
      list.clear();
    }
    stats_.bytesCached = 0;
  }
  for (void *ptr : release)
    std::free(headerOf(ptr));
}

CachingAllocator::Stats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

//===----------------------------------------------------------------------===//
// ThreadPool
//===----------------------------------------------------------------------===//

namespace {
thread_local int tThreadIndex = 0;  ///< 1.. on pool workers.
thread_local bool tInWorkgroup = false; ///< Inside a parallelFor body: nested calls run inline.
} // namespace

WorkShares::WorkShares(int64_t count, int threads)
    : more_(threads > kInlineShares ? new Share[threads] : nullptr),
      shares_(more_ ? more_.get() : inline_), numShares_(std::max(1, threads)) {
  int64_t n = numShares_;
  for (int64_t t = 0; t < n; ++t) {
    shares_[t].next.store(count / n * t + std::min(t, count % n), std::memory_order_relaxed);
    shares_[t].end = count / n * (t + 1) + std::min(t + 1, count % n);
  }
}

int64_t WorkShares::claim(int t) {
  for (int k = 0; k < numShares_; ++k) {
    Share &share = shares_[(t + k) % numShares_];
    if (share.next.load(std::memory_order_relaxed) >= share.end)
      continue;
    int64_t id = share.next.fetch_add(1, std::memory_order_relaxed);
    if (id < share.end)
      return id;
  }
  return -1;
}

bool WorkShares::exhausted() const {
  for (int t = 0; t < numShares_; ++t)
    if (shares_[t].next.load(std::memory_order_relaxed) < shares_[t].end)
      return false;
  return true;
}

/// One parallelFor call. Lives on the caller's stack; the caller returns only after it has
/// left the queue and no worker holds it (active == 0).
struct ThreadPool::Job {
  Job(const std::function<void(int64_t, int)> &fn, int64_t count, int maxHelpers)
      : fn(fn), maxHelpers(maxHelpers), shares(count, maxHelpers + 1) {}
  const std::function<void(int64_t, int)> &fn;
  int maxHelpers = 0;
  WorkShares shares; ///< The caller's share first, the workers' in the order they join.
  int active = 0;  ///< Workers inside; guarded by the pool mutex.
  int joined = 0;  ///< Workers that ever joined; guarded by the pool mutex.

  /// Claims and runs workgroups (from share `share`, then the others) until none is left.
  void run(int share, int threadIndex) {
    bool outer = tInWorkgroup;
    tInWorkgroup = true;
    for (int64_t i; (i = shares.claim(share)) >= 0;)
      fn(i, threadIndex);
    tInWorkgroup = outer;
  }
};

ThreadPool::ThreadPool(int numThreads) : numThreads_(std::max(1, numThreads)) {
#if !LOUPE_RAL_OPENMP
  workers_.reserve(numThreads_ - 1);
  for (int i = 1; i < numThreads_; ++i)
    workers_.emplace_back([this, i] { workerLoop(i); });
#endif
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread &t : workers_)
    t.join();
}

int ThreadPool::currentThreadIndex() { return tThreadIndex; }

void ThreadPool::workerLoop(int index) {
  tThreadIndex = index;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_)
      return;
    Job *job = queue_.front();
    if (job->shares.exhausted() || job->joined >= job->maxHelpers) {
      // Nothing left to claim (or enough helpers): retire it from the queue.
      queue_.pop_front();
      continue;
    }
    ++job->active;
    int share = ++job->joined;
    lock.unlock();
    job->run(share, index);
    lock.lock();
    if (!queue_.empty() && queue_.front() == job)
      queue_.pop_front();
    if (--job->active == 0)
      done_.notify_all();
  }
}

void ContentionGovernor::regionEnded(int64_t workNs, int64_t waitNs, int64_t nowNs) {
  if (waitNs <= kStallNs || waitNs <= workNs)
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t soloUntil = soloUntilNs_.load(std::memory_order_relaxed);
  if (nowNs < soloUntil)
    return; // a region begun before the stretch
  lossNs_ = lossNs_ * std::exp(-double(nowNs - lossAtNs_) / kWindowNs) + double(waitNs);
  lossAtNs_ = nowNs;
  bool probeFailed = soloUntil > 0 && nowNs - soloUntil < kProbeNs;
  if (lossNs_ <= kMaxLossNs && !probeFailed)
    return;
  backoffNs_ = nowNs - soloUntil < kWindowNs ? std::min(2 * backoffNs_, kMaxBackoffNs)
                                             : kFirstBackoffNs;
  soloUntilNs_.store(nowNs + backoffNs_, std::memory_order_relaxed);
  lossNs_ = 0; // the next stretch on two threads judges afresh
  soloStretches_.fetch_add(1, std::memory_order_relaxed);
}

int64_t steadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int ThreadPool::activeThreads() const {
  return numThreads_ > 1 && governor_.solo(steadyNowNs()) ? 1 : numThreads_;
}

void ThreadPool::regionEnded(int64_t workNs, int64_t waitNs) {
  governor_.regionEnded(workNs, waitNs, steadyNowNs());
}

void ThreadPool::parallelFor(int64_t count, const std::function<void(int64_t, int)> &fn,
                             int maxThreads) {
  if (count <= 0)
    return;
  int threads = std::min(maxThreads > 0 ? maxThreads : numThreads_, activeThreads());
  if (count == 1 || threads <= 1 || tInWorkgroup) {
    bool outer = tInWorkgroup;
    tInWorkgroup = true;
    for (int64_t i = 0; i < count; ++i)
      fn(i, tThreadIndex);
    tInWorkgroup = outer;
    return;
  }
#if LOUPE_RAL_OPENMP
  // One team for generated kernels and oneDNN (which threads with OpenMP too): two pools
  // would fight over the cores, and a worker woken from sleep on a shared VM costs more than
  // a small kernel (docs/ral.md, "Threads").
  int helpers = static_cast<int>(std::min<int64_t>(threads, count));
  WorkShares shares(count, helpers);
  int64_t start = steadyNowNs(), callerDone = start;
#pragma omp parallel num_threads(helpers)
  {
    int index = omp_get_thread_num(), outerIndex = tThreadIndex;
    bool outer = tInWorkgroup;
    tThreadIndex = index;
    tInWorkgroup = true;
    for (int64_t i; (i = shares.claim(index)) >= 0;)
      fn(i, index);
    if (index == 0)
      callerDone = steadyNowNs();
    tInWorkgroup = outer;
    tThreadIndex = outerIndex;
  }
  int64_t end = steadyNowNs();
  governor_.regionEnded(callerDone - start, end - callerDone, end);
#else
  Job job(fn, count, static_cast<int>(std::min<int64_t>(threads - 1, count - 1)));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(&job);
  }
  if (job.maxHelpers == 1)
    wake_.notify_one();
  else
    wake_.notify_all();
  int64_t start = steadyNowNs();
  job.run(0, tThreadIndex);
  int64_t callerDone = steadyNowNs();
  {
    std::unique_lock<std::mutex> lock(mutex_);
    auto it = std::find(queue_.begin(), queue_.end(), &job);
    if (it != queue_.end())
      queue_.erase(it);
    done_.wait(lock, [&] { return job.active == 0; });
  }
  int64_t end = steadyNowNs();
  governor_.regionEnded(callerDone - start, end - callerDone, end);
#endif
}

std::shared_ptr<ThreadPool> sharedThreadPool(int numThreads) {
  static std::mutex *mutex = new std::mutex;
  // Leaked: workers may still be parked at exit; joining them in a static destructor races
  // with other static destructors.
  static auto *pools = new std::map<int, std::shared_ptr<ThreadPool>>;
  std::lock_guard<std::mutex> lock(*mutex);
  std::shared_ptr<ThreadPool> &pool = (*pools)[numThreads];
  if (!pool)
    pool = std::make_shared<ThreadPool>(numThreads);
  return pool;
}

int defaultNumThreads() {
  if (const char *env = std::getenv("LOUPE_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0)
      return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

void execWithoutOpenMpWaitPolicy(char **argv) {
  const char *keep = std::getenv("LOUPE_KEEP_OMP_ENV");
  if (keep && std::strcmp(keep, "1") == 0)
    return;
  std::string dropped;
  for (const char *name : {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"})
    if (const char *value = std::getenv(name)) {
      dropped += std::string(dropped.empty() ? "" : ", ") + name + "=" + value;
      unsetenv(name);
    }
  if (dropped.empty())
    return;
  std::fprintf(stderr,
               "note: ignoring %s: Loupe decides how OpenMP threads wait (docs/ral.md, "
               "\"Threads\"; LOUPE_KEEP_OMP_ENV=1 keeps them)\n",
               dropped.c_str());
  std::fflush(stderr);
  execv("/proc/self/exe", argv);
  std::fprintf(stderr, "note: could not re-execute without them (%s); timings may suffer\n",
               std::strerror(errno));
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

void CpuLaunchPlan::workgroupBox(const CpuLaunchDims &dims, int64_t id, int64_t *lower,
                                 int64_t *upper) const {
  for (int d = rank - 1; d >= 0; --d) {
    int64_t coord = id % count[d];
    id /= count[d];
    int64_t first = coord * tile[d];
    int64_t last = std::min(iterations[d], first + tile[d]);
    lower[d] = dims.lower[d] + first * dims.step[d];
    upper[d] = std::min(dims.upper[d], dims.lower[d] + last * dims.step[d]);
  }
}

CpuLaunchPlan CpuDriver::plan(const CpuLaunchDims &dims, int64_t unitWorkloadSizeHint,
                              int numThreads) {
  CpuLaunchPlan plan;
  plan.rank = dims.rank;
  int64_t total = 1;
  for (int d = 0; d < dims.rank; ++d) {
    int64_t span = dims.upper[d] - dims.lower[d];
    plan.iterations[d] = span > 0 ? (span + dims.step[d] - 1) / dims.step[d] : 0;
    total *= plan.iterations[d];
  }
  if (total == 0) {
    plan.numWorkgroups = 0;
    for (int d = 0; d < dims.rank; ++d) {
      plan.tile[d] = std::max<int64_t>(1, plan.iterations[d]);
      plan.count[d] = 1;
    }
    return plan;
  }
  // Workgroups wanted: ~4 per thread for balance, each with at least kMinWorkPerWorkgroup units.
  int64_t hint = std::max<int64_t>(1, unitWorkloadSizeHint);
  int64_t byWork = total > INT64_MAX / hint ? total : std::max<int64_t>(1, total * hint / kMinWorkPerWorkgroup);
  int64_t wanted = std::min<int64_t>({total, int64_t(4) * std::max(1, numThreads), byWork});
  if (numThreads <= 1)
    wanted = 1;
  // Split outer dimensions first: whole rows stay inside one workgroup.
  int64_t have = 1;
  for (int d = 0; d < dims.rank; ++d) {
    int64_t n = plan.iterations[d];
    if (have >= wanted) {
      plan.tile[d] = n;
      plan.count[d] = 1;
      continue;
    }
    int64_t need = (wanted + have - 1) / have; // workgroups still wanted along d and inwards
    if (n <= need) {
      plan.tile[d] = 1;
      plan.count[d] = n;
    } else {
      plan.tile[d] = (n + need - 1) / need;
      plan.count[d] = (n + plan.tile[d] - 1) / plan.tile[d];
    }
    have *= plan.count[d];
  }
  plan.numWorkgroups = have;
  return plan;
}

CpuDriver::CpuDriver(int numThreads, size_t cacheLimitBytes)
    : allocator_(cacheLimitBytes), pool_(sharedThreadPool(std::max(1, numThreads))) {}

CpuDriver::~CpuDriver() = default;

Status CpuDriver::launch(const CpuLaunchDims &dims, int64_t unitWorkloadSizeHint,
                         CpuKernelFn kernel, void **params) {
  if (dims.rank < 0 || dims.rank > CpuLaunchDims::kMaxRank)
    return invalidArgument("ral_cpu_launch: rank " + std::to_string(dims.rank) +
                           " is outside 0.." + std::to_string(CpuLaunchDims::kMaxRank));
  for (int d = 0; d < dims.rank; ++d)
    if (dims.step[d] <= 0)
      return invalidArgument("ral_cpu_launch: step " + std::to_string(dims.step[d]) +
                             " of dimension " + std::to_string(d) + " is not positive");
  if (!kernel)
    return invalidArgument("ral_cpu_launch: null kernel");
  if (dims.rank == 0) {
    kernel(dims.lower, dims.upper, dims.step, params);
    return Status::ok();
  }
  CpuLaunchPlan p = plan(dims, unitWorkloadSizeHint, pool_->activeThreads());
  if (p.numWorkgroups == 0)
    return Status::ok();
  if (p.numWorkgroups == 1) {
    kernel(dims.lower, dims.upper, dims.step, params);
    return Status::ok();
  }
  pool_->parallelFor(p.numWorkgroups, [&](int64_t id, int) {
    int64_t lower[CpuLaunchDims::kMaxRank], upper[CpuLaunchDims::kMaxRank];
    p.workgroupBox(dims, id, lower, upper);
    kernel(lower, upper, dims.step, params);
  });
  return Status::ok();
}

} // namespace loupe::ral
