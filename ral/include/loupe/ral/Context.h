//===- Context.h - RAL Context and ExecutionContext -------------*- C++ -*-===//
//
// After BladeDISC's RAL (seed 000; tao_compiler/mlir/ral/ral_context.h):
//
// - A Context lives as long as a loaded artifact. It owns the drivers (CPU; CUDA when asked
//   for), resources with per-context / per-execution / global lifetime, the load-once kernel
//   cache keyed by (blob, kernel name), and a sticky error state. It is thread-safe: many
//   ExecutionContexts may run on one Context at once, from different threads.
// - An ExecutionContext lives for one call of the artifact's entry. It holds the bound inputs
//   and outputs, the temporaries the call allocates (freed at finish()), per-execution
//   resources, the optional tracer, and the call's status. The compiled entry receives it as
//   its `void *ctx` and passes it to every ral_api_call. One thread uses it at a time.
//
// Errors are recoverable: a failing RAL call records a Status on the execution context
// (signalError: the first error wins) and returns; the host checks finish()'s status after the
// entry returns. Nothing in the runtime aborts the process.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_RAL_CONTEXT_H
#define LOUPE_RAL_CONTEXT_H

#include "loupe/ral/Status.h"
#include "loupe/ral/Tensor.h"
#include "loupe/ral/Tracer.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace loupe::ral {

class CpuDriver;
class CudaDriver;
class ExecutionContext;

/// Where a buffer lives.
enum class DeviceKind : uint8_t { kCpu, kGpu };
const char *deviceKindName(DeviceKind device); ///< "cpu", "gpu"

/// A buffer bound to an entry input: not owned, must outlive the execution.
struct BufferView {
  void *data = nullptr;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides; ///< In elements; empty means row-major.
  DeviceKind device = DeviceKind::kCpu;
};

/// What the runtime knows about a dispatch from the artifact's manifest: the names reported
/// with its events when the artifact passes none, and its fallback kernels. Not owned.
struct DispatchNames {
  const char *name = "";
  const char *backend = "";
  const char *loc = "";
  /// Library kernels (RAL API prefixes, e.g. "ral_gemm_openblas") to call in this order, with
  /// the same arguments, when the dispatch's kernel fails; null or empty: none.
  const std::vector<std::string> *fallbacks = nullptr;
};

struct ContextOptions {
  /// CPU threads for ral_cpu_launch, the calling thread included. 0: $LOUPE_NUM_THREADS, else
  /// std::thread::hardware_concurrency().
  int numThreads = 0;
  /// Bytes of freed CPU blocks the caching allocator keeps for reuse (the rest is returned).
  size_t cpuCacheLimitBytes = size_t(1) << 30;
  /// Create the CUDA driver in create() (an artifact compiled for "cuda"): fails with a clear
  /// kUnavailable status when there is no driver or GPU. Otherwise it is created on first use.
  bool useCuda = false;
  /// CUDA device ordinal; -1: $LOUPE_CUDA_DEVICE, else 0.
  int cudaDevice = -1;
  /// Load the kernel plugins (libloupe_ral_kernels_cpu.so) in create() when a required API is
  /// not registered yet. (ral_api_call also loads them on its first unknown name.)
  bool loadPlugins = true;
  /// RAL API names the artifact calls (manifest "ral_apis"): create() fails naming the first
  /// one that is not registered, so a missing kernel is reported before anything runs.
  std::vector<std::string> requiredApis;
  /// Fault injection for tests: library kernels (RAL API prefixes, e.g. "ral_gemm_onednn")
  /// that, called inside a dispatch, signal a kInternal error instead of running, as a kernel
  /// failing at run time would (so the dispatch falls back). Empty: $LOUPE_RAL_FAIL_KERNEL
  /// (comma-separated), if set.
  std::vector<std::string> failKernels;
};

/// State of one kernel plugin (a shared object that registers RAL APIs when loaded).
struct PluginStatus {
  std::string name; ///< "libloupe_ral_kernels_cpu.so"
  std::string path; ///< Where it was found ("" when not found).
  Status status;    ///< Ok, or why it did not load (dlerror's text names the missing library).
};

/// Loads the kernel plugins once per process (thread-safe) and returns their status. The
/// runtime calls it lazily (an API that is not registered yet); tools call it to list. Searched
/// in $LOUPE_RAL_PLUGIN_DIRS (':'-separated), then next to libloupe_ral.so; none are loaded
/// when $LOUPE_RAL_NO_PLUGINS is set (e.g. ThreadSanitizer runs: oneDNN uses OpenMP).
const std::vector<PluginStatus> &loadPlugins();

class Context {
public:
  /// Lifetime of a resource (BladeDISC's Context::LifetimeKind).
  enum class Lifetime {
    kPerContext,   ///< Destroyed with the Context.
    kPerExecution, ///< Destroyed when the execution that created it finishes.
    kGlobal,       ///< One per process, destroyed at exit.
  };
  /// A resource the runtime manages: handles, primitive caches, workspaces.
  struct Resource {
    virtual ~Resource() = default;
  };
  using ResourceCreator = std::function<std::unique_ptr<Resource>()>;

  /// A loaded kernel: the launchable function and how to release it (called at ~Context).
  struct KernelHandle {
    void *function = nullptr;
    std::function<void()> release;
  };

  /// Creates a context. Errors: registration errors of the RAL registry (duplicate names),
  /// a required API that is not registered (kNotFound naming it and any plugin that failed to
  /// load), or the CUDA driver failing when options.useCuda (kUnavailable, with the reason).
  static StatusOr<std::shared_ptr<Context>> create(ContextOptions options = {});
  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  const ContextOptions &options() const { return options_; }
  /// The CPU driver (always present).
  CpuDriver &cpu() { return *cpu_; }
  /// The CUDA driver, created on the first call; a failure is kept and returned again.
  StatusOr<CudaDriver *> cuda();

  /// Returns the per-context resource `key`, creating it with `creator` on first use (under a
  /// lock; creation happens once). nullptr when absent and `creator` is empty or returns null.
  Resource *getOrCreateResource(const std::string &key, const ResourceCreator &creator);
  /// As getOrCreateResource, for process-wide resources.
  static Resource *getOrCreateGlobalResource(const std::string &key,
                                             const ResourceCreator &creator);

  /// The kernel `kernelName` of `blob`, loaded once per context with `load` (under a lock; a
  /// failed load is cached too, so it is reported on every call without retrying).
  StatusOr<void *> getOrLoadKernel(const void *blob, std::string_view kernelName,
                                   const std::function<StatusOr<KernelHandle>()> &load);
  /// Kernels loaded so far (successfully).
  size_t numLoadedKernels() const;

  /// A CUDA stream for one execution: an idle one of this context's pool, else a new one
  /// (CudaDriver::createStream). Reusing streams keeps executions off cuStreamCreate and keeps
  /// a run's CUPTI records on the few streams that ran concurrently (the first GPU run showed
  /// 101 streams for 100 repetitions).
  StatusOr<void *> acquireStream();
  /// Returns an idle, synchronised stream of acquireStream() to the pool.
  void releaseStream(void *stream);

  /// The artifact's weight blob (seed 000, "Constant Loading"): `bytes` read-only bytes at
  /// `data`, owned by whoever loaded the artifact and valid for the Context's life. Set once,
  /// before the first execution; ral_constant hands out addresses inside it.
  void setWeights(const void *data, size_t bytes) {
    weights_ = static_cast<const char *>(data);
    weightBytes_ = bytes;
  }
  /// The address of the `bytes` at `offset` of the weight blob, or null when they do not lie
  /// inside it.
  const void *weightAt(int64_t offset, int64_t bytes) const {
    if (!weights_ || offset < 0 || bytes < 0 || static_cast<uint64_t>(offset) > weightBytes_ ||
        static_cast<uint64_t>(bytes) > weightBytes_ - static_cast<uint64_t>(offset))
      return nullptr;
    return weights_ + offset;
  }
  size_t weightBytes() const { return weightBytes_; }
  /// Whether the `bytes` at `data` lie inside the weight blob: read-only for the Context's life,
  /// so what a kernel derives from them (oneDNN's packed weights) may be kept.
  bool inWeights(const void *data, size_t bytes) const {
    auto at = reinterpret_cast<uintptr_t>(data), base = reinterpret_cast<uintptr_t>(weights_);
    return at >= base && weightAt(static_cast<int64_t>(at - base), static_cast<int64_t>(bytes));
  }

  /// Records a sticky context-level error (e.g. a poisoned CUDA context); the first one wins.
  void signalError(Status status);
  Status status() const;

  /// Executions started on this context so far.
  int64_t numExecutions() const { return executions_.load(std::memory_order_relaxed); }

private:
  friend class ExecutionContext;
  explicit Context(ContextOptions options);

  ContextOptions options_;
  std::unique_ptr<CpuDriver> cpu_;
  std::atomic<int64_t> executions_{0};
  const char *weights_ = nullptr;
  size_t weightBytes_ = 0;

  mutable std::mutex mutex_; ///< Guards the CUDA driver, the stream pool and the status.
  std::unique_ptr<CudaDriver> cuda_;
  std::vector<void *> idleStreams_;
  bool cudaTried_ = false;
  Status cudaStatus_;
  Status status_;
  /// Guards resources_ (creators run under it: they must not create other resources).
  std::mutex resourceMutex_;
  std::unordered_map<std::string, std::unique_ptr<Resource>> resources_;
  /// Guards kernels_ (loaders run under it, so each kernel loads once).
  mutable std::mutex kernelMutex_;
  struct KernelEntry {
    Status status;
    KernelHandle handle;
  };
  struct KernelKeyHash {
    size_t operator()(const std::pair<const void *, std::string> &k) const {
      return std::hash<const void *>()(k.first) ^ (std::hash<std::string>()(k.second) << 1);
    }
  };
  std::unordered_map<std::pair<const void *, std::string>, KernelEntry, KernelKeyHash> kernels_;
};

/// The context of one execution (one call of the entry). See the file comment.
class ExecutionContext {
public:
  /// Starts an execution on `context`, which must outlive it.
  explicit ExecutionContext(Context &context);
  /// Calls finish() if it was not called.
  ~ExecutionContext();
  ExecutionContext(const ExecutionContext &) = delete;
  ExecutionContext &operator=(const ExecutionContext &) = delete;

  Context &context() const { return context_; }
  /// Unique per process, > 0.
  int64_t id() const { return id_; }

  // ---- Host side: bind inputs and outputs before calling the entry. ----
  /// Binds a host tensor (its buffer is shared, so it stays alive) as input `index`.
  Status bindInput(int64_t index, const Tensor &tensor);
  /// Binds a buffer (not owned) as input `index`. Errors: negative index, shape/strides mismatch.
  Status bindInput(int64_t index, BufferView view);
  /// Output `index` is copied into `*destination` (a host tensor of the right dtype and shape)
  /// when the artifact sends it. Unbound outputs are kept as new tensors (sentOutput()).
  Status bindOutput(int64_t index, Tensor *destination);
  void setTracer(Tracer *tracer) { tracer_ = tracer; }
  Tracer *tracer() const { return tracer_; }
  /// The manifest's dispatches (names for events whose call passes none, fallback kernels);
  /// indexed by dispatch id; not owned.
  void setDispatchTable(const std::vector<DispatchNames> *table) { dispatchTable_ = table; }

  /// After the entry: the copy of output `index` when it was not bound (empty Tensor if it was
  /// bound or not sent). isOutputSent: whether send_output ran for it.
  Tensor sentOutput(int64_t index) const;
  bool isOutputSent(int64_t index) const;
  int64_t numOutputsSent() const;

  /// Frees the temporaries and per-execution resources, waits for GPU work of the execution,
  /// and returns the first error of the execution (or of the context). Idempotent.
  Status finish();

  // ---- Runtime side: what RAL functions call. ----
  /// Input `index` or nullptr (with an error signalled naming the index) when it is not bound.
  const BufferView *input(int64_t index);
  /// The CPU buffer output `index` is computed in (ral_recv_output): the bound destination
  /// when its dtype and shape match `dtype` and `sizes` (else an error, and nullptr), or a new
  /// tensor that becomes the output. Its sendOutput then copies nothing. Either is a Tensor's,
  /// kTensorAlignment aligned, which compiled kernels rely on (non-temporal stores).
  void *outputBuffer(int64_t index, DType dtype, int rank, const int64_t *sizes);
  /// Receives output `index` (ral_send_output): `data` points to the first element of a
  /// strided array of `rank` dims on `device`. Copies into the bound destination or a new tensor
  /// (nothing when `data` is that buffer already: outputBuffer).
  void sendOutput(int64_t index, DType dtype, const void *data, int rank, const int64_t *sizes,
                  const int64_t *strides, DeviceKind device);

  /// A CPU temporary of `bytes` bytes (64-byte aligned, from the context's caching allocator),
  /// freed at finish() unless deallocate()d before. Never null: on failure signals an error
  /// and returns a small zeroed block so compiled code can run on to the status check.
  void *allocate(size_t bytes);
  /// Returns a temporary from allocate(); unknown pointers signal an error.
  void deallocate(void *ptr);
  /// A CPU buffer that lives as long as the Context (constants, caches).
  void *allocatePersistent(size_t bytes);
  /// GPU temporaries on the execution's stream (cuMemAllocAsync / cuMemFreeAsync).
  void *allocateDevice(size_t bytes);
  void deallocateDevice(void *ptr);
  /// The execution's CUDA stream (CUstream), created on first use; nullptr and an error when
  /// CUDA is unavailable.
  void *cudaStream();

  /// Records an error; the first one is kept (later ones are counted in the message).
  void signalError(Status status);
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  Status status() const;

  /// Calls `fn(args)` (a RAL function's type-erased wrapper) with the errors it signals held
  /// back instead of recorded, and returns the first of them (Ok when none): one attempt of a
  /// kernel that has fallbacks. failed() is true during the call once it has signalled. Only
  /// for the execution's own thread (errors signalled by the threads `fn` itself runs are
  /// captured too); not reentrant.
  Status callCapturingErrors(void (*fn)(void **args), void **args);
  /// True between ral_dispatch_begin and _end of a dispatch whose kernel has fallbacks, or of
  /// any dispatch when ContextOptions::failKernels is set: ral_api_call then goes through
  /// detail::callWithFallbacks (ral/lib/core/Fallback.h).
  bool guardsCalls() const { return guardsCalls_; }
  /// The open dispatch (ral_dispatch_begin's id, -1 outside one) and its manifest entry (null
  /// when the dispatch table has none).
  int64_t activeDispatchId() const { return activeDispatchId_; }
  const DispatchNames *activeDispatch() const { return activeDispatch_; }

  /// Resource `key` with the given lifetime (per-execution ones live in this execution).
  Context::Resource *getOrCreateResource(const std::string &key, Context::Lifetime lifetime,
                                         const Context::ResourceCreator &creator);
  template <typename T>
  T *getOrCreate(const std::string &key, Context::Lifetime lifetime,
                 const std::function<std::unique_ptr<T>()> &creator) {
    return static_cast<T *>(getOrCreateResource(
        key, lifetime, [&]() -> std::unique_ptr<Context::Resource> { return creator(); }));
  }

  /// Dispatch events (ral_dispatch_begin/end): forwarded to the tracer. Null strings are taken
  /// from the dispatch table, else "".
  void dispatchBegin(int64_t dispatchId, const char *name, const char *backend, const char *loc,
                     const char *device);
  void dispatchEnd(int64_t dispatchId, const char *device);

private:
  struct OutputSlot {
    Tensor *destination = nullptr;
    Tensor copy;
    bool sent = false;
  };
  DispatchEvent makeEvent(int64_t dispatchId, const char *name, const char *backend,
                          const char *loc, const char *device) const;
  /// The dispatch table's entry for `dispatchId`, or null.
  const DispatchNames *tableEntry(int64_t dispatchId) const;

  Context &context_;
  int64_t id_;
  Tracer *tracer_ = nullptr;
  const std::vector<DispatchNames> *dispatchTable_ = nullptr;
  std::vector<BufferView> inputs_;
  std::vector<bool> inputBound_;
  std::vector<Tensor> inputKeepAlive_;
  std::vector<OutputSlot> outputs_;
  std::unordered_map<void *, size_t> temporaries_;
  std::vector<void *> deviceTemporaries_;
  std::unordered_map<std::string, std::unique_ptr<Context::Resource>> resources_;
  void *cudaStream_ = nullptr;
  int64_t sequence_ = 0;
  std::vector<DispatchEvent> openDispatches_;
  int64_t activeDispatchId_ = -1;
  const DispatchNames *activeDispatch_ = nullptr;
  bool guardsCalls_ = false;
  bool finished_ = false;
  std::atomic<bool> failed_{false};
  mutable std::mutex statusMutex_;
  Status status_;
  int64_t suppressedErrors_ = 0;
  bool capturing_ = false; ///< In callCapturingErrors: errors go to captured_.
  Status captured_;
};

} // namespace loupe::ral

#endif // LOUPE_RAL_CONTEXT_H
