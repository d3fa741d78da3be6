//===- CpuDriver.h - The RAL's CPU driver -----------------------*- C++ -*-===//
//
// Memory and launches on the host CPU:
// - CachingAllocator: 64-byte aligned blocks in size classes (4 per power of two, <= 25% waste),
//   freed blocks kept on per-class free lists for reuse up to a byte limit; counts hits/misses.
// - ThreadPool: a fixed set of workers plus the calling thread; parallelFor hands out
//   workgroup ids in a contiguous share per thread, then lets threads take from each other's
//   shares (WorkShares), so uneven workgroups balance.
// - launch(): runs a kernel's iteration space as workgroups over the pool, the GPU-like CPU
//   scheduling of BladeDISC's ral_cpu_launch (common_context_impl.cc) and IREE's CPU HAL
//   (workgroup count x tile per dimension, each workgroup a rectangular box).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_RAL_CPUDRIVER_H
#define LOUPE_RAL_CPUDRIVER_H

#include "loupe/ral/Status.h"

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace loupe::ral {

class Context;

/// A size-class caching allocator for host memory. Thread-safe (one lock).
class CachingAllocator {
public:
  struct Stats {
    uint64_t allocations = 0; ///< allocate() calls.
    uint64_t hits = 0;        ///< ... served from a free list.
    uint64_t misses = 0;      ///< ... that went to the system allocator.
    uint64_t frees = 0;       ///< deallocate() calls.
    uint64_t bytesInUse = 0;  ///< Class bytes handed out and not yet freed.
    uint64_t peakBytesInUse = 0;
    uint64_t bytesCached = 0; ///< Class bytes on the free lists.
  };

  /// `cacheLimitBytes`: most bytes kept on the free lists; beyond it freed blocks are released.
  explicit CachingAllocator(size_t cacheLimitBytes = size_t(1) << 30);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator &) = delete;
  CachingAllocator &operator=(const CachingAllocator &) = delete;

  /// A 64-byte aligned block of at least `bytes` bytes (0 is allowed), or nullptr when the
  /// system is out of memory. Its contents are unspecified.
  void *allocate(size_t bytes);
  /// Returns a block from allocate() (nullptr is ignored).
  void deallocate(void *ptr);
  /// Releases every cached block to the system.
  void trim();
  Stats stats() const;

  /// Size class a request of `bytes` is served from (>= bytes, >= 64).
  static size_t classSize(size_t bytes);
  /// Usable size of a block from allocate().
  static size_t blockSize(const void *ptr);

private:
  static size_t classIndex(size_t bytes);
  size_t cacheLimit_;
  mutable std::mutex mutex_;
  std::vector<std::vector<void *>> freeLists_;
  Stats stats_;
};

/// The workgroup ids [0, count) of one parallelFor call, in `threads` contiguous shares:
/// thread t claims share t's ids in order, then helps with the other shares (t + 1 first),
/// so a thread that does not come loses nothing. Run after run, a kernel's thread t works
/// on the same part of the data, still in its core's L2: a batch-2 GEMV over 2 MB of hot
/// weights 15-20 -> 11 us (from one counter for all ids, each thread got other workgroups on
/// every call). Claims are lock-free; any thread may claim from any share.
class WorkShares {
public:
  WorkShares(int64_t count, int threads);
  WorkShares(const WorkShares &) = delete;
  WorkShares &operator=(const WorkShares &) = delete;
  /// The next id for thread `t` (any non-negative number), or -1 once every id is claimed.
  int64_t claim(int t);
  /// Every id is claimed (some may still be running).
  bool exhausted() const;

private:
  struct alignas(64) Share {
    std::atomic<int64_t> next{0};
    int64_t end = 0;
  };
  /// Shares live inline up to this many threads: a launch allocates nothing.
  static constexpr int kInlineShares = 8;
  Share inline_[kInlineShares];
  std::unique_ptr<Share[]> more_; ///< More threads than that.
  Share *shares_;
  int numShares_;
};

/// steady_clock now, ns: the ContentionGovernor's timestamps.
int64_t steadyNowNs();

/// Whether another process holds one of the pool's cores, judged from parallel regions: a
/// region whose calling thread, done with its work (in parallelFor it takes what a late thread
/// has not claimed, WorkShares), then waits for the others longer than kStallNs and longer
/// than it worked, had a thread the scheduler did not run (a oneDNN primitive: a call much
/// slower than its fastest). The wait is the stall's loss; the governor keeps the losses
/// decayed over kWindowNs (exponentially) and, when they exceed kMaxLossNs (30% of the
/// window), runs the pool on the calling thread alone (generated kernels inline, oneDNN with a
/// team of one) for kFirstBackoffNs: one thread is about 1.6x slower than two on this VM, so
/// two pay while stalls take less than about a third of the time. A stall within kProbeNs of
/// a stretch's end is the contention still there: one thread again at once. A stretch that
/// follows the last one within kWindowNs (lasting contention) is twice as long, up to
/// kMaxBackoffNs. With spinning OpenMP threads and a busy loop on one of this VM's two cores,
/// every region waited for a scheduler time slice: MobileNetV3-large 3.3 -> 48-61 ms (ONNX
/// Runtime 2.9 -> 7.0-7.6; one thread 4.7-4.9); waiting for 30 ms of losses at each return to
/// two threads made 20-repetition runs 6.8 ms (4.8-5.8 with the probe); stall-count rules (two
/// stalls within 100 ms) put it on one thread for 85% of its repetitions under an
/// intermittent tenant whose stalls cost a few percent. Thread-safe; steady-clock ns.
class ContentionGovernor {
public:
  static constexpr int64_t kStallNs = 200'000;
  static constexpr int64_t kWindowNs = 50'000'000;
  static constexpr int64_t kMaxLossNs = 15'000'000;
  static constexpr int64_t kProbeNs = 20'000'000;
  static constexpr int64_t kFirstBackoffNs = 20'000'000;
  static constexpr int64_t kMaxBackoffNs = 1'000'000'000;
  /// Runs are solo (one thread) at `nowNs`.
  bool solo(int64_t nowNs) const { return nowNs < soloUntilNs_.load(std::memory_order_relaxed); }
  /// A parallel region ended: the calling thread worked `workNs`, then waited `waitNs`.
  void regionEnded(int64_t workNs, int64_t waitNs, int64_t nowNs);
  /// Stretches on one thread so far.
  int64_t soloStretches() const { return soloStretches_.load(std::memory_order_relaxed); }

private:
  std::atomic<int64_t> soloUntilNs_{0};
  std::atomic<int64_t> soloStretches_{0};
  std::mutex mutex_; ///< Guards the rest (taken by stalls only).
  double lossNs_ = 0;     ///< Decayed losses as of lossAtNs_.
  int64_t lossAtNs_ = 0;
  int64_t backoffNs_ = kFirstBackoffNs; ///< The last stretch's length.
};

/// A fixed pool of worker threads; the thread calling parallelFor works too. Built with
/// OpenMP (LOUPE_RAL_OPENMP), the workers are the calling thread's OpenMP team, which oneDNN's
/// kernels use too; otherwise threads of its own that sleep between calls.
class ThreadPool {
public:
  /// `numThreads` >= 1 threads in total: the caller plus numThreads - 1 workers.
  explicit ThreadPool(int numThreads);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  int numThreads() const { return numThreads_; }
  /// The threads a parallel call uses now: numThreads(), or 1 while the governor says another
  /// process holds a core (ContentionGovernor).
  int activeThreads() const;
  const ContentionGovernor &governor() const { return governor_; }
  /// Reports a parallel region the pool did not run itself (a oneDNN primitive's own OpenMP
  /// region on the same threads) to the governor: work and wait as regionEnded's.
  void regionEnded(int64_t workNs, int64_t waitNs);
  /// Runs fn(i, threadIndex) once for every i in [0, count) and returns when all are done.
  /// threadIndex is 0 for the calling thread and 1..numThreads-1 for workers. Safe to call
  /// from many threads at once; a call from inside a workgroup runs inline (no nesting).
  /// `maxThreads` > 0 caps the threads used.
  void parallelFor(int64_t count, const std::function<void(int64_t, int)> &fn, int maxThreads = 0);
  /// 1..numThreads-1 on a worker of some pool, else 0.
  static int currentThreadIndex();

private:
  struct Job;
  void workerLoop(int index);

  int numThreads_;
  ContentionGovernor governor_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::deque<Job *> queue_;
  bool stop_ = false;
};

/// The iteration space of a launch: per dimension [lower, upper) with a positive step.
struct CpuLaunchDims {
  static constexpr int kMaxRank = 8;
  int rank = 0;
  int64_t lower[kMaxRank] = {};
  int64_t upper[kMaxRank] = {};
  int64_t step[kMaxRank] = {};
};

/// A compiled CPU kernel: runs the box [lower, upper) (steps `step`, one entry per dimension)
/// of the iteration space with the launch's parameters. BladeDISC's CPU kernel convention.
using CpuKernelFn = void (*)(const int64_t *lower, const int64_t *upper, const int64_t *step,
                             void **params);

/// How a launch is cut into workgroups: dimension d has count[d] workgroups of tile[d]
/// iterations each (the last one may be shorter); ids are row-major over count.
struct CpuLaunchPlan {
  int rank = 0;
  int64_t iterations[CpuLaunchDims::kMaxRank] = {}; ///< Trip count per dimension.
  int64_t tile[CpuLaunchDims::kMaxRank] = {};
  int64_t count[CpuLaunchDims::kMaxRank] = {};
  int64_t numWorkgroups = 0;
  /// The box of workgroup `id`, in the launch's index space.
  void workgroupBox(const CpuLaunchDims &dims, int64_t id, int64_t *lower, int64_t *upper) const;
};

class CpuDriver {
public:
  /// `numThreads`: threads of the (process-wide, shared) pool; `cacheLimitBytes`: allocator.
  CpuDriver(int numThreads, size_t cacheLimitBytes);
  ~CpuDriver();

  CachingAllocator &allocator() { return allocator_; }
  ThreadPool &threadPool() { return *pool_; }

  /// Cuts `dims` into workgroups: about 4 per thread when there is enough work, fewer when
  /// trip count x unitWorkloadSizeHint (an estimate of the work per iteration, e.g. bytes
  /// touched) is small: each workgroup gets at least kMinWorkPerWorkgroup units, so tiny loops
  /// run inline. Outer dimensions are split first; inner ones stay whole (contiguous rows).
  static CpuLaunchPlan plan(const CpuLaunchDims &dims, int64_t unitWorkloadSizeHint,
                            int numThreads);
  static constexpr int64_t kMinWorkPerWorkgroup = 32 * 1024;

  /// Runs `kernel` over `dims` in parallel (see plan) and returns when every workgroup is done.
  /// Errors: rank outside 0..8 or a non-positive step (nothing runs).
  Status launch(const CpuLaunchDims &dims, int64_t unitWorkloadSizeHint, CpuKernelFn kernel,
                void **params);

private:
  CachingAllocator allocator_;
  std::shared_ptr<ThreadPool> pool_;
};

/// The process-wide pool with `numThreads` threads (created on first use per size).
std::shared_ptr<ThreadPool> sharedThreadPool(int numThreads);
/// $LOUPE_NUM_THREADS when set and positive, else std::thread::hardware_concurrency() (>= 1).
int defaultNumThreads();

/// Loupe decides how OpenMP's threads wait between parallel regions (docs/ral.md, "Threads"),
/// but libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, when it is loaded, before main:
/// with OMP_WAIT_POLICY=PASSIVE (common in PyTorch set-ups) every oneDNN call and parallel
/// kernel wakes a sleeping thread, and MobileNetV3-small ran 2.7x slower. A program that
/// measures calls this first in main: when the environment sets either variable (and
/// LOUPE_KEEP_OMP_ENV is not 1) it says so on stderr and re-executes /proc/self/exe with the
/// same arguments, without them. It returns when there is nothing to do, or when the exec
/// failed (also said on stderr).
void execWithoutOpenMpWaitPolicy(char **argv);

} // namespace loupe::ral

#endif // LOUPE_RAL_CPUDRIVER_H
