//===- Context.cpp - RAL Context, ExecutionContext, plugins -------------------===//
#include "loupe/ral/Context.h"

#include "StridedCopy.h"

#include "loupe/ral/CpuDriver.h"
#include "loupe/ral/CudaDriver.h"
#include "loupe/ral/Registry.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <sys/stat.h>

namespace loupe::ral {

const char *deviceKindName(DeviceKind device) { return device == DeviceKind::kGpu ? "gpu" : "cpu"; }

//===----------------------------------------------------------------------===//
// Plugins
//===----------------------------------------------------------------------===//

static std::string ownDirectory() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&loadPlugins), &info) && info.dli_fname)
    return std::filesystem::path(info.dli_fname).parent_path().string();
  return "";
}

/// The non-empty items of a `separator`-separated list (an environment variable's value).
static std::vector<std::string> splitList(const char *value, char separator) {
  std::vector<std::string> out;
  if (!value)
    return out;
  std::string s = value;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(separator, start);
    if (end == std::string::npos)
      end = s.size();
    if (end > start)
      out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

const std::vector<PluginStatus> &loadPlugins() {
  static const std::vector<PluginStatus> plugins = [] {
    std::vector<PluginStatus> out;
    if (const char *off = std::getenv("LOUPE_RAL_NO_PLUGINS"); off && *off && *off != '0') {
      out.push_back({"libloupe_ral_kernels_cpu.so", "",
                     unavailable("plugins disabled by LOUPE_RAL_NO_PLUGINS")});
      return out;
    }
    std::vector<std::string> dirs = splitList(std::getenv("LOUPE_RAL_PLUGIN_DIRS"), ':');
    if (std::string own = ownDirectory(); !own.empty())
      dirs.push_back(own);
    for (const char *name : {"libloupe_ral_kernels_cpu.so"}) {
      PluginStatus plugin;
      plugin.name = name;
      std::string tried;
      for (const std::string &dir : dirs) {
        std::string path = dir + "/" + name;
        struct stat st;
        tried += (tried.empty() ? "" : ", ") + dir;
        if (stat(path.c_str(), &st) != 0)
          continue;
        plugin.path = path;
        // RTLD_LOCAL: the plugin only registers functions; nothing resolves against it.
        if (!dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))
          plugin.status = unavailable(path + " failed to load: " + dlerror());
        break;
      }
      if (plugin.path.empty())
        plugin.status = notFound(std::string(name) + " not found in " +
                                 (tried.empty() ? std::string("(no directory)") : tried));
      out.push_back(std::move(plugin));
    }
    return out;
  }();
  return plugins;
}

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

Context::Context(ContextOptions options) : options_(std::move(options)) {
  if (options_.numThreads <= 0)
    options_.numThreads = defaultNumThreads();
  if (options_.cudaDevice < 0) {
    const char *env = std::getenv("LOUPE_CUDA_DEVICE");
    options_.cudaDevice = env ? std::max(0, std::atoi(env)) : 0;
  }
  if (options_.failKernels.empty())
    options_.failKernels = splitList(std::getenv("LOUPE_RAL_FAIL_KERNEL"), ',');
  cpu_ = std::make_unique<CpuDriver>(options_.numThreads, options_.cpuCacheLimitBytes);
}

StatusOr<std::shared_ptr<Context>> Context::create(ContextOptions options) {
  // Plugins are loaded when something needs them: a required API that is not registered yet
  // here, or an unknown name in ral_api_call. Loading oneDNN/OpenBLAS costs threads and memory.
  bool missing = false;
  for (const std::string &api : options.requiredApis)
    missing = missing || !Registry::global().find(api);
  if (missing && options.loadPlugins)
    loadPlugins();
  if (Status s = Registry::global().status(); !s)
    return Status(s.code(), "RAL registration errors:\n" + s.message());
  for (const std::string &api : options.requiredApis) {
    if (Registry::global().find(api))
      continue;
    std::string hint;
    if (options.loadPlugins)
      for (const PluginStatus &plugin : loadPlugins())
        if (!plugin.status.isOk())
          hint += "; " + plugin.status.message();
    return notFound("the artifact calls RAL API '" + api + "', which is not registered" + hint);
  }
  std::shared_ptr<Context> context(new Context(std::move(options)));
  if (context->options_.useCuda) {
    auto cuda = context->cuda();
    if (!cuda)
      return cuda.status();
  }
  return context;
}

Context::~Context() {
  // Kernels first (they live in the CUDA context), then resources, then the driver.
  for (auto &[key, entry] : kernels_)
    if (entry.handle.release)
      entry.handle.release();
  kernels_.clear();
  resources_.clear();
  for (void *stream : idleStreams_)
    (void)cuda_->destroyStream(stream); // Cleanup: nothing to report to.
  cuda_.reset();
}

StatusOr<CudaDriver *> Context::cuda() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!cudaTried_) {
    cudaTried_ = true;
    auto driver = CudaDriver::create(options_.cudaDevice);
    if (driver)
      cuda_ = std::move(*driver);
    else
      cudaStatus_ = driver.status();
  }
  if (!cuda_)
    return cudaStatus_;
  return cuda_.get();
}

StatusOr<void *> Context::acquireStream() {
  auto cuda = this->cuda();
  if (!cuda)
    return cuda.status();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idleStreams_.empty()) {
      void *stream = idleStreams_.back();
      idleStreams_.pop_back();
      return stream;
    }
  }
  return (*cuda)->createStream();
}

void Context::releaseStream(void *stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  idleStreams_.push_back(stream);
}

Context::Resource *Context::getOrCreateResource(const std::string &key,
                                                const ResourceCreator &creator) {
  std::lock_guard<std::mutex> lock(resourceMutex_);
  auto it = resources_.find(key);
  if (it != resources_.end())
    return it->second.get();
  if (!creator)
    return nullptr;
  std::unique_ptr<Resource> resource = creator();
  if (!resource)
    return nullptr;
  return resources_.emplace(key, std::move(resource)).first->second.get();
}

Context::Resource *Context::getOrCreateGlobalResource(const std::string &key,
                                                      const ResourceCreator &creator) {
  // Leaked on purpose: global resources may be used by threads still running at exit.
  static std::mutex *mutex = new std::mutex;
  static auto *resources = new std::unordered_map<std::string, std::unique_ptr<Resource>>;
  std::lock_guard<std::mutex> lock(*mutex);
  auto it = resources->find(key);
  if (it != resources->end())
    return it->second.get();
  if (!creator)
    return nullptr;
  std::unique_ptr<Resource> resource = creator();
  if (!resource)
    return nullptr;
  return resources->emplace(key, std::move(resource)).first->second.get();
}

StatusOr<void *> Context::getOrLoadKernel(const void *blob, std::string_view kernelName,
                                          const std::function<StatusOr<KernelHandle>()> &load) {
  std::lock_guard<std::mutex> lock(kernelMutex_);
  auto key = std::make_pair(blob, std::string(kernelName));
  auto it = kernels_.find(key);
  if (it == kernels_.end()) {
    KernelEntry entry;
    auto loaded = load();
    if (loaded)
      entry.handle = std::move(*loaded);
    else
      entry.status = loaded.status();
    it = kernels_.emplace(std::move(key), std::move(entry)).first;
  }
  if (!it->second.status.isOk())
    return it->second.status;
  return it->second.handle.function;
}

size_t Context::numLoadedKernels() const {
  std::lock_guard<std::mutex> lock(kernelMutex_);
  size_t n = 0;
  for (const auto &[key, entry] : kernels_)
    n += entry.status.isOk();
  return n;
}

void Context::signalError(Status status) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (status_.isOk())
    status_ = std::move(status);
}

Status Context::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return status_;
}

//===----------------------------------------------------------------------===//
// ExecutionContext
//===----------------------------------------------------------------------===//

static std::atomic<int64_t> gNextExecutionId{1};

ExecutionContext::ExecutionContext(Context &context)
    : context_(context), id_(gNextExecutionId.fetch_add(1, std::memory_order_relaxed)) {
  context_.executions_.fetch_add(1, std::memory_order_relaxed);
}

ExecutionContext::~ExecutionContext() { (void)finish(); } // The status was the caller's to read.

static std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

Status ExecutionContext::bindInput(int64_t index, const Tensor &tensor) {
  BufferView view;
  view.data = const_cast<void *>(tensor.data());
  view.dtype = tensor.dtype();
  view.shape = tensor.shape();
  if (Status s = bindInput(index, std::move(view)); !s)
    return s;
  if (inputKeepAlive_.size() <= static_cast<size_t>(index))
    inputKeepAlive_.resize(index + 1);
  inputKeepAlive_[index] = tensor;
  return Status::ok();
}

Status ExecutionContext::bindInput(int64_t index, BufferView view) {
  if (index < 0)
    return invalidArgument("input index " + std::to_string(index) + " is negative");
  if (!view.strides.empty() && view.strides.size() != view.shape.size())
    return invalidArgument("input " + std::to_string(index) + ": " +
                           std::to_string(view.strides.size()) + " strides for rank " +
                           std::to_string(view.shape.size()));
  if (view.strides.empty())
    view.strides = rowMajorStrides(view.shape);
  if (inputs_.size() <= static_cast<size_t>(index)) {
    inputs_.resize(index + 1);
    inputBound_.resize(index + 1, false);
  }
  inputs_[index] = std::move(view);
  inputBound_[index] = true;
  return Status::ok();
}

Status ExecutionContext::bindOutput(int64_t index, Tensor *destination) {
  if (index < 0)
    return invalidArgument("output index " + std::to_string(index) + " is negative");
  if (outputs_.size() <= static_cast<size_t>(index))
    outputs_.resize(index + 1);
  outputs_[index].destination = destination;
  return Status::ok();
}

const BufferView *ExecutionContext::input(int64_t index) {
  if (index < 0 || static_cast<size_t>(index) >= inputs_.size() || !inputBound_[index]) {
    signalError(invalidArgument("ral_recv_input: input " + std::to_string(index) +
                                " is not bound (" + std::to_string(inputs_.size()) +
                                " inputs bound)"));
    return nullptr;
  }
  return &inputs_[index];
}

static std::string shapeString(DType dtype, int rank, const int64_t *sizes) {
  std::string s = std::string(dtypeName(dtype)) + "[";
  for (int i = 0; i < rank; ++i)
    s += (i ? "x" : "") + std::to_string(sizes[i]);
  return s + "]";
}

void *ExecutionContext::outputBuffer(int64_t index, DType dtype, int rank,
                                     const int64_t *sizes) {
  if (index < 0) {
    signalError(invalidArgument("ral_recv_output: negative output index " + std::to_string(index)));
    return nullptr;
  }
  if (outputs_.size() <= static_cast<size_t>(index))
    outputs_.resize(index + 1);
  OutputSlot &slot = outputs_[index];
  std::vector<int64_t> shape(sizes, sizes + rank);
  if (Tensor *target = slot.destination) {
    if (!sameStorage(target->dtype(), dtype) || target->shape() != shape) {
      signalError(invalidArgument("ral_recv_output: output " + std::to_string(index) + " is " +
                                  shapeString(dtype, rank, sizes) + ", the bound buffer is " +
                                  target->typeString()));
      return nullptr;
    }
    return target->data();
  }
  StatusOr<Tensor> fresh = Tensor::allocate(dtype, shape);
  if (!fresh) {
    signalError(Status(fresh.status().code(), "ral_recv_output: output " + std::to_string(index) +
                                                  ": " + fresh.status().message()));
    return nullptr;
  }
  slot.copy = std::move(*fresh);
  return slot.copy.data();
}

void ExecutionContext::sendOutput(int64_t index, DType dtype, const void *data, int rank,
                                  const int64_t *sizes, const int64_t *strides,
                                  DeviceKind device) {
  if (index < 0) {
    signalError(invalidArgument("ral_send_output: negative output index " + std::to_string(index)));
    return;
  }
  if (outputs_.size() <= static_cast<size_t>(index))
    outputs_.resize(index + 1);
  OutputSlot &slot = outputs_[index];
  std::vector<int64_t> shape(sizes, sizes + rank);
  Tensor *target = slot.destination;
  if (target) {
    if (!sameStorage(target->dtype(), dtype) || target->shape() != shape) {
      signalError(invalidArgument("ral_send_output: output " + std::to_string(index) + " is " +
                                  shapeString(dtype, rank, sizes) + ", the bound buffer is " +
                                  target->typeString()));
      return;
    }
  } else if (slot.copy.data() == data && slot.copy.shape() == shape) {
    target = &slot.copy; // computed in place (outputBuffer)
  } else {
    StatusOr<Tensor> copy = Tensor::allocate(dtype, shape);
    if (!copy) {
      signalError(Status(copy.status().code(), "ral_send_output: output " +
                                                   std::to_string(index) + ": " +
                                                   copy.status().message()));
      return;
    }
    slot.copy = std::move(*copy);
    target = &slot.copy;
  }
  if (device == DeviceKind::kGpu) {
    auto cuda = context_.cuda();
    if (!cuda) {
      signalError(cuda.status());
      return;
    }
    bool contiguous = true;
    std::vector<int64_t> rowMajor = rowMajorStrides(shape);
    for (int i = 0; i < rank; ++i)
      contiguous = contiguous && (sizes[i] == 1 || strides[i] == rowMajor[i]);
    if (!contiguous) {
      signalError(invalidArgument("ral_send_output: output " + std::to_string(index) +
                                  " on the GPU must be contiguous"));
      return;
    }
    if (Status s = (*cuda)->synchronize(cudaStream_); !s) {
      signalError(s);
      return;
    }
    if (Status s = (*cuda)->memcpyDtoH(target->data(), reinterpret_cast<uint64_t>(data),
                                       target->byteSize());
        !s) {
      signalError(s);
      return;
    }
  } else if (target->data() != data) {
    detail::copyStrided(dtypeSize(dtype), data, rank, sizes, strides, target->data());
  }
  slot.sent = true;
  if (tracer_)
    tracer_->outputReady(index);
}

Tensor ExecutionContext::sentOutput(int64_t index) const {
  if (index < 0 || static_cast<size_t>(index) >= outputs_.size())
    return Tensor();
  return outputs_[index].copy;
}

bool ExecutionContext::isOutputSent(int64_t index) const {
  return index >= 0 && static_cast<size_t>(index) < outputs_.size() && outputs_[index].sent;
}

int64_t ExecutionContext::numOutputsSent() const {
  int64_t n = 0;
  for (const OutputSlot &slot : outputs_)
    n += slot.sent;
  return n;
}

void *ExecutionContext::allocate(size_t bytes) {
  void *ptr = context_.cpu().allocator().allocate(bytes);
  if (!ptr) {
    signalError(internalError("ral_alloc: out of host memory allocating " +
                              std::to_string(bytes) + " bytes"));
    alignas(64) static thread_local char fallback[64];
    std::memset(fallback, 0, sizeof fallback);
    return fallback;
  }
  temporaries_.emplace(ptr, bytes);
  return ptr;
}

void ExecutionContext::deallocate(void *ptr) {
  if (!ptr)
    return;
  auto it = temporaries_.find(ptr);
  if (it == temporaries_.end()) {
    signalError(invalidArgument("ral_dealloc: pointer was not allocated by this execution"));
    return;
  }
  temporaries_.erase(it);
  context_.cpu().allocator().deallocate(ptr);
}

namespace {
/// Blocks that live as long as their Context.
struct PersistentBuffers : Context::Resource {
  explicit PersistentBuffers(CachingAllocator &allocator) : allocator(allocator) {}
  ~PersistentBuffers() override {
    for (void *p : buffers)
      allocator.deallocate(p);
  }
  CachingAllocator &allocator;
  std::mutex mutex;
  std::vector<void *> buffers;
};
} // namespace

void *ExecutionContext::allocatePersistent(size_t bytes) {
  auto *buffers = static_cast<PersistentBuffers *>(context_.getOrCreateResource(
      "ral.cpu.persistent_buffers",
      [&] { return std::make_unique<PersistentBuffers>(context_.cpu().allocator()); }));
  void *ptr = context_.cpu().allocator().allocate(bytes);
  if (!ptr) {
    signalError(internalError("ral_alloc_persistent: out of host memory allocating " +
                              std::to_string(bytes) + " bytes"));
    return allocate(0);
  }
  std::lock_guard<std::mutex> lock(buffers->mutex);
  buffers->buffers.push_back(ptr);
  return ptr;
}

void *ExecutionContext::cudaStream() {
  if (cudaStream_)
    return cudaStream_;
  auto stream = context_.acquireStream();
  if (!stream) {
    signalError(stream.status());
    return nullptr;
  }
  cudaStream_ = *stream;
  return cudaStream_;
}

void *ExecutionContext::allocateDevice(size_t bytes) {
  void *stream = cudaStream();
  if (!stream)
    return nullptr;
  auto ptr = (*context_.cuda())->allocAsync(bytes ? bytes : 1, stream);
  if (!ptr) {
    signalError(ptr.status());
    return nullptr;
  }
  void *p = reinterpret_cast<void *>(*ptr);
  deviceTemporaries_.push_back(p);
  return p;
}

void ExecutionContext::deallocateDevice(void *ptr) {
  if (!ptr)
    return;
  for (size_t i = 0; i < deviceTemporaries_.size(); ++i) {
    if (deviceTemporaries_[i] != ptr)
      continue;
    deviceTemporaries_[i] = deviceTemporaries_.back();
    deviceTemporaries_.pop_back();
    if (Status s = (*context_.cuda())->freeAsync(reinterpret_cast<uint64_t>(ptr), cudaStream_); !s)
      signalError(s);
    return;
  }
  signalError(invalidArgument("ral_dealloc (gpu): pointer was not allocated by this execution"));
}

void ExecutionContext::signalError(Status status) {
  if (status.isOk())
    return;
  std::lock_guard<std::mutex> lock(statusMutex_);
  if (capturing_) {
    if (captured_.isOk())
      captured_ = std::move(status);
    failed_.store(true, std::memory_order_relaxed);
    return;
  }
  if (status_.isOk()) {
    status_ = std::move(status);
    failed_.store(true, std::memory_order_relaxed);
  } else {
    ++suppressedErrors_;
  }
}

Status ExecutionContext::callCapturingErrors(void (*fn)(void **args), void **args) {
  bool failedBefore = failed();
  {
    std::lock_guard<std::mutex> lock(statusMutex_);
    capturing_ = true;
    captured_ = Status();
  }
  fn(args);
  std::lock_guard<std::mutex> lock(statusMutex_);
  capturing_ = false;
  failed_.store(failedBefore, std::memory_order_relaxed);
  return std::move(captured_);
}

Status ExecutionContext::status() const {
  Status contextStatus = context_.status();
  std::lock_guard<std::mutex> lock(statusMutex_);
  Status s = status_.isOk() ? contextStatus : status_;
  if (!s.isOk() && suppressedErrors_ > 0)
    return Status(s.code(), s.message() + " (and " + std::to_string(suppressedErrors_) +
                                " later errors)");
  return s;
}

Context::Resource *ExecutionContext::getOrCreateResource(const std::string &key,
                                                         Context::Lifetime lifetime,
                                                         const Context::ResourceCreator &creator) {
  switch (lifetime) {
  case Context::Lifetime::kPerContext:
    return context_.getOrCreateResource(key, creator);
  case Context::Lifetime::kGlobal:
    return Context::getOrCreateGlobalResource(key, creator);
  case Context::Lifetime::kPerExecution:
    break;
  }
  auto it = resources_.find(key);
  if (it != resources_.end())
    return it->second.get();
  if (!creator)
    return nullptr;
  std::unique_ptr<Context::Resource> resource = creator();
  if (!resource)
    return nullptr;
  return resources_.emplace(key, std::move(resource)).first->second.get();
}

const DispatchNames *ExecutionContext::tableEntry(int64_t dispatchId) const {
  if (dispatchTable_ && dispatchId >= 0 && static_cast<size_t>(dispatchId) < dispatchTable_->size())
    return &(*dispatchTable_)[dispatchId];
  return nullptr;
}

DispatchEvent ExecutionContext::makeEvent(int64_t dispatchId, const char *name,
                                          const char *backend, const char *loc,
                                          const char *device) const {
  DispatchEvent event;
  event.dispatchId = dispatchId;
  const DispatchNames *names = tableEntry(dispatchId);
  auto pick = [](const char *given, const char *fallback) {
    return given && *given ? given : (fallback ? fallback : "");
  };
  event.name = pick(name, names ? names->name : nullptr);
  event.backend = pick(backend, names ? names->backend : nullptr);
  event.loc = pick(loc, names ? names->loc : nullptr);
  event.device = device && *device ? device : "cpu";
  event.executionId = id_;
  return event;
}

void ExecutionContext::dispatchBegin(int64_t dispatchId, const char *name, const char *backend,
                                     const char *loc, const char *device) {
  activeDispatchId_ = dispatchId;
  activeDispatch_ = tableEntry(dispatchId);
  guardsCalls_ = (activeDispatch_ && activeDispatch_->fallbacks &&
                  !activeDispatch_->fallbacks->empty()) ||
                 !context_.options().failKernels.empty();
  if (!tracer_)
    return;
  DispatchEvent event = makeEvent(dispatchId, name, backend, loc, device);
  event.sequence = sequence_++;
  // A GPU dispatch's work goes to the execution's stream: create it now (the dispatch would),
  // so a tracer can record events on it. Without a CUDA driver the stream stays null, and the
  // dispatch's own calls report why.
  if (std::strcmp(event.device, "gpu") == 0 && context_.cuda())
    event.stream = cudaStream();
  openDispatches_.push_back(event);
  tracer_->onDispatchBegin(event);
}

void ExecutionContext::dispatchEnd(int64_t dispatchId, const char *device) {
  if (dispatchId == activeDispatchId_) {
    activeDispatchId_ = -1;
    activeDispatch_ = nullptr;
    guardsCalls_ = false;
  }
  if (!tracer_)
    return;
  for (size_t i = openDispatches_.size(); i-- > 0;) {
    if (openDispatches_[i].dispatchId != dispatchId)
      continue;
    DispatchEvent event = openDispatches_[i];
    openDispatches_.erase(openDispatches_.begin() + i);
    tracer_->onDispatchEnd(event);
    return;
  }
  // An end without a begin: report it anyway, the tracer counts unmatched events.
  DispatchEvent event = makeEvent(dispatchId, nullptr, nullptr, nullptr, device);
  if (std::strcmp(event.device, "gpu") == 0)
    event.stream = cudaStream_;
  tracer_->onDispatchEnd(event);
}

Status ExecutionContext::finish() {
  if (finished_)
    return status();
  finished_ = true;
  if (cudaStream_) {
    if (auto cuda = context_.cuda()) {
      if (Status s = (*cuda)->synchronize(cudaStream_); !s)
        signalError(s);
      for (void *p : deviceTemporaries_)
        if (Status s = (*cuda)->freeAsync(reinterpret_cast<uint64_t>(p), cudaStream_); !s)
          signalError(s);
      if (Status s = (*cuda)->synchronize(cudaStream_); !s) {
        signalError(s);
        if (Status d = (*cuda)->destroyStream(cudaStream_); !d)
          signalError(d);
      } else {
        context_.releaseStream(cudaStream_); // idle: the next execution reuses it
      }
    }
    deviceTemporaries_.clear();
    cudaStream_ = nullptr;
  }
  for (auto &[ptr, bytes] : temporaries_)
    context_.cpu().allocator().deallocate(ptr);
  temporaries_.clear();
  resources_.clear();
  inputKeepAlive_.clear();
  return status();
}

} // namespace loupe::ral
