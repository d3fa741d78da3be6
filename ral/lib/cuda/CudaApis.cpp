//===- CudaApis.cpp - GPU alloc, copies and kernel launches as RAL APIs -------===//
//
// Every call works on the execution's stream (ExecutionContext::cudaStream, created on first
// use); the execution synchronizes it in finish(). Without CUDA each call records the driver's
// kUnavailable status ("libcuda.so.1 not found in ...: no NVIDIA driver on this machine").
//
//===----------------------------------------------------------------------===//
#include "loupe/ral/Context.h"
#include "loupe/ral/CudaDriver.h"
#include "loupe/ral/Registry.h"

#include <mutex>
#include <unordered_map>

namespace loupe::ral {

namespace {

CudaDriver *driverOf(ExecutionContext *ctx) {
  auto cuda = ctx->context().cuda();
  if (!cuda) {
    ctx->signalError(cuda.status());
    return nullptr;
  }
  return *cuda;
}

/// void *ral_alloc(ctx, bytes) on the GPU: stream-ordered (cuMemAllocAsync), freed at the end
/// of the execution unless ral_dealloc'd before.
void *gpuAlloc(ExecutionContext *ctx, int64_t bytes) {
  return ctx->allocateDevice(bytes > 0 ? static_cast<size_t>(bytes) : 0);
}
void gpuDealloc(ExecutionContext *ctx, void *ptr) { ctx->deallocateDevice(ptr); }

/// The driver and stream for a copy or set of `bytes`; null when there is nothing to do (an
/// earlier error, no bytes) or no stream (the error is then signalled on `ctx`).
void *copyStream(ExecutionContext *ctx, int64_t bytes, CudaDriver *&cuda) {
  if (ctx->failed() || bytes <= 0)
    return nullptr;
  cuda = driverOf(ctx);
  return cuda ? ctx->cudaStream() : nullptr;
}

/// ral_memcpy(ctx, dst, src, bytes) between any two of host/device (unified addressing).
void gpuMemcpy(ExecutionContext *ctx, void *dst, void *src, int64_t bytes) {
  CudaDriver *cuda = nullptr;
  void *stream = copyStream(ctx, bytes, cuda);
  if (!stream)
    return;
  if (Status s = cuda->memcpyAsync(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src),
                                   static_cast<size_t>(bytes), stream);
      !s)
    ctx->signalError(s);
}

/// ral_memset(ctx, dst, byte value, bytes) on device memory.
void gpuMemset(ExecutionContext *ctx, void *dst, int32_t value, int64_t bytes) {
  CudaDriver *cuda = nullptr;
  void *stream = copyStream(ctx, bytes, cuda);
  if (!stream)
    return;
  if (Status s = cuda->memsetAsync(reinterpret_cast<uint64_t>(dst), static_cast<uint8_t>(value),
                                   static_cast<size_t>(bytes), stream);
      !s)
    ctx->signalError(s);
}

/// ral_kernel_launch(ctx, blob, blob size, kernel name, grid x/y/z, block x/y/z, shared memory
/// bytes, params): loads `kernelName` from the cubin/PTX `blob` once per (blob, kernel) and
/// context, then launches it on the execution's stream. `params` as cuLaunchKernel takes them.
void gpuKernelLaunch(ExecutionContext *ctx, const void *blob, int64_t blobSize,
                     const char *kernelName, int64_t gridX, int64_t gridY, int64_t gridZ,
                     int64_t blockX, int64_t blockY, int64_t blockZ, int32_t sharedMemBytes,
                     void **params) {
  if (ctx->failed())
    return;
  CudaDriver *cuda = driverOf(ctx);
  void *stream = cuda ? ctx->cudaStream() : nullptr;
  if (!stream)
    return;
  auto function = cuda->loadFunction(ctx->context(), blob, kernelName);
  if (!function) {
    ctx->signalError(function.status());
    return;
  }
  const int64_t grid[3] = {gridX, gridY, gridZ};
  const int64_t block[3] = {blockX, blockY, blockZ};
  if (Status s = cuda->launch(*function, grid, block, static_cast<unsigned>(sharedMemBytes),
                              stream, params);
      !s)
    ctx->signalError(Status(s.code(), s.message() + " (kernel '" + kernelName + "')"));
}

/// The context's device copies of host constants, keyed by host address; freed with the
/// context (resources go before the driver).
struct DeviceConstants : Context::Resource {
  explicit DeviceConstants(CudaDriver *cuda) : cuda(cuda) {}
  ~DeviceConstants() override {
    for (auto &[host, device] : copies)
      (void)cuda->free(device);
  }
  CudaDriver *cuda;
  std::mutex mutex;
  std::unordered_map<const void *, uint64_t> copies;
};

/// void *ral_constant(ctx, host, bytes): a device copy of the `bytes` at `host` (a constant:
/// the compiler passes weights), uploaded on the first call and reused by every later execution
/// of the context (seed document 000, "Constant Loading").
void *gpuConstant(ExecutionContext *ctx, void *host, int64_t bytes) {
  CudaDriver *cuda = ctx->failed() ? nullptr : driverOf(ctx);
  if (!cuda)
    return nullptr;
  auto *constants = static_cast<DeviceConstants *>(ctx->context().getOrCreateResource(
      "ral.gpu.constants", [&] { return std::make_unique<DeviceConstants>(cuda); }));
  std::lock_guard<std::mutex> lock(constants->mutex);
  if (auto it = constants->copies.find(host); it != constants->copies.end())
    return reinterpret_cast<void *>(it->second);
  size_t size = bytes > 0 ? static_cast<size_t>(bytes) : 1;
  auto device = cuda->alloc(size);
  if (!device) {
    ctx->signalError(device.status());
    return nullptr;
  }
  if (Status s = cuda->memcpyHtoD(*device, host, bytes > 0 ? size : 0); !s) {
    (void)cuda->free(*device);
    ctx->signalError(s);
    return nullptr;
  }
  constants->copies.emplace(host, *device);
  return reinterpret_cast<void *>(*device);
}

} // namespace

LOUPE_RAL_API("ral_constant", "gpu", gpuConstant);
LOUPE_RAL_API("ral_alloc", "gpu", gpuAlloc);
LOUPE_RAL_API("ral_dealloc", "gpu", gpuDealloc);
LOUPE_RAL_API("ral_memcpy", "gpu", gpuMemcpy);
LOUPE_RAL_API("ral_memset", "gpu", gpuMemset);
LOUPE_RAL_API("ral_kernel_launch", "gpu", gpuKernelLaunch);

} // namespace loupe::ral
