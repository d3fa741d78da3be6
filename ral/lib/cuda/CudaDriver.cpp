//===- CudaDriver.cpp - The CUDA driver API through dlopen --------------------===//
#include "loupe/ral/CudaDriver.h"

#include "CudaSymbols.h"

#include "loupe/ral/Context.h"

#include <dlfcn.h>

namespace loupe::ral {

#if !LOUPE_RAL_HAVE_CUDA_HEADERS

StatusOr<std::unique_ptr<CudaDriver>> CudaDriver::create(int) {
  return unavailable("the CUDA driver is unavailable: Loupe was built without CUDA headers "
                     "(cuda.h; set LOUPE_CUDA_INCLUDE_DIR and rebuild)");
}
CudaDriver::~CudaDriver() = default;
std::string CudaDriver::describe() const { return "no CUDA"; }
static Status noCuda() { return unavailable("built without CUDA headers"); }
Status CudaDriver::makeCurrent() const { return noCuda(); }
StatusOr<void *> CudaDriver::createStream() const { return noCuda(); }
Status CudaDriver::destroyStream(void *) const { return noCuda(); }
Status CudaDriver::synchronize(void *) const { return noCuda(); }
StatusOr<void *> CudaDriver::createEvent() const { return noCuda(); }
Status CudaDriver::destroyEvent(void *) const { return noCuda(); }
Status CudaDriver::recordEvent(void *, void *) const { return noCuda(); }
Status CudaDriver::synchronizeEvent(void *) const { return noCuda(); }
StatusOr<float> CudaDriver::elapsedMs(void *, void *) const { return noCuda(); }
StatusOr<uint64_t> CudaDriver::allocAsync(size_t, void *) const { return noCuda(); }
Status CudaDriver::freeAsync(uint64_t, void *) const { return noCuda(); }
StatusOr<uint64_t> CudaDriver::alloc(size_t) const { return noCuda(); }
Status CudaDriver::free(uint64_t) const { return noCuda(); }
Status CudaDriver::memcpyAsync(uint64_t, uint64_t, size_t, void *) const { return noCuda(); }
Status CudaDriver::memcpyHtoD(uint64_t, const void *, size_t) const { return noCuda(); }
Status CudaDriver::memcpyDtoH(void *, uint64_t, size_t) const { return noCuda(); }
Status CudaDriver::memsetAsync(uint64_t, uint8_t, size_t, void *) const { return noCuda(); }
StatusOr<void *> CudaDriver::loadFunction(Context &, const void *, const char *) const {
  return noCuda();
}
Status CudaDriver::launch(void *, const int64_t *, const int64_t *, unsigned, void *,
                          void **) const {
  return noCuda();
}
std::string CudaDriver::errorString(int result, const char *call) const {
  return "CUDA error " + std::to_string(result) + " in " + call;
}
Status CudaDriver::check(int result, const char *call) const { return noCuda(); }

#else

std::string CudaDriver::errorString(int result, const char *call) const {
  const char *name = nullptr, *text = nullptr;
  if (symbols_ && symbols_->cuGetErrorName)
    symbols_->cuGetErrorName(static_cast<CUresult>(result), &name);
  if (symbols_ && symbols_->cuGetErrorString)
    symbols_->cuGetErrorString(static_cast<CUresult>(result), &text);
  std::string s = name ? name : "CUDA error " + std::to_string(result);
  if (text)
    s += std::string(" (") + text + ")";
  return s + " in " + call;
}

Status CudaDriver::check(int result, const char *call) const {
  if (result == CUDA_SUCCESS)
    return Status::ok();
  StatusCode code = result == CUDA_ERROR_OUT_OF_MEMORY || result == CUDA_ERROR_INVALID_VALUE ||
                            result == CUDA_ERROR_INVALID_IMAGE || result == CUDA_ERROR_NOT_FOUND ||
                            result == CUDA_ERROR_NO_BINARY_FOR_GPU
                        ? StatusCode::kInvalidArgument
                        : StatusCode::kInternal;
  return Status(code, errorString(result, call));
}

StatusOr<std::unique_ptr<CudaDriver>> CudaDriver::create(int ordinal) {
  std::unique_ptr<CudaDriver> driver(new CudaDriver());
  auto handle = openCudaLibrary({"libcuda.so.1", "libcuda.so"}, &driver->libraryPath_,
                                "no NVIDIA driver on this machine");
  if (!handle)
    return handle.status();
  driver->library_ = *handle;
  driver->symbols_ = std::make_unique<CudaSymbols>();
  if (Status s = resolveSymbols(driver->library_, driver->libraryPath_, driver->symbols_->specs());
      !s)
    return s;
  const CudaSymbols &cu = *driver->symbols_;
  CUresult r = cu.cuInit(0);
  if (r == CUDA_ERROR_STUB_LIBRARY)
    return unavailable(driver->libraryPath_ +
                       " is the CUDA toolkit's link stub, not an NVIDIA driver: no NVIDIA driver "
                       "on this machine");
  if (r == CUDA_ERROR_NO_DEVICE)
    return unavailable("cuInit: no CUDA-capable GPU on this machine (driver " +
                       driver->libraryPath_ + ")");
  if (r != CUDA_SUCCESS)
    return unavailable(driver->errorString(r, "cuInit") + " (driver " + driver->libraryPath_ + ")");
  cu.cuDriverGetVersion(&driver->driverVersion_);
  int count = 0;
  if (Status s = driver->check(cu.cuDeviceGetCount(&count), "cuDeviceGetCount"); !s)
    return s;
  if (count == 0)
    return unavailable("no CUDA-capable GPU on this machine");
  if (ordinal < 0 || ordinal >= count)
    return invalidArgument("CUDA device " + std::to_string(ordinal) + " does not exist (" +
                           std::to_string(count) + " devices)");
  driver->ordinal_ = ordinal;
  CUdevice device;
  if (Status s = driver->check(cu.cuDeviceGet(&device, ordinal), "cuDeviceGet"); !s)
    return s;
  driver->device_ = device;
  char name[256] = {};
  cu.cuDeviceGetName(name, sizeof name - 1, device);
  driver->deviceName_ = name;
  cu.cuDeviceGetAttribute(&driver->ccMajor_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  cu.cuDeviceGetAttribute(&driver->ccMinor_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  size_t total = 0;
  cu.cuDeviceTotalMem(&total, device);
  driver->totalMemory_ = total;
  int l2 = 0;
  if (cu.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device) == CUDA_SUCCESS && l2 > 0)
    driver->l2CacheBytes_ = static_cast<size_t>(l2);
  char busId[32] = {};
  if (cu.cuDeviceGetPCIBusId(busId, sizeof busId - 1, device) == CUDA_SUCCESS)
    driver->pciBusId_ = busId;
  CUcontext primary = nullptr;
  if (Status s = driver->check(cu.cuDevicePrimaryCtxRetain(&primary, device),
                               "cuDevicePrimaryCtxRetain");
      !s)
    return s;
  driver->primaryContext_ = primary;
  if (Status s = driver->makeCurrent(); !s)
    return s;
  return driver;
}

CudaDriver::~CudaDriver() {
  if (primaryContext_ && symbols_)
    symbols_->cuDevicePrimaryCtxRelease(device_);
  // libcuda stays loaded: other contexts and the CUDA libraries may still use it.
}

std::string CudaDriver::describe() const {
  return deviceName_ + " (sm_" + std::to_string(computeCapability()) + ", " +
         std::to_string(totalMemory_ >> 30) + " GiB, driver " + std::to_string(driverVersion_) +
         ")";
}

Status CudaDriver::makeCurrent() const {
  return check(symbols_->cuCtxSetCurrent(static_cast<CUcontext>(primaryContext_)),
               "cuCtxSetCurrent");
}

#define LOUPE_CU_TRY(expr)                                                                         \
  do {                                                                                             \
    if (Status s_ = (expr); !s_)                                                                   \
      return s_;                                                                                   \
  } while (0)

StatusOr<void *> CudaDriver::createStream() const {
  LOUPE_CU_TRY(makeCurrent());
  CUstream stream = nullptr;
  LOUPE_CU_TRY(check(symbols_->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"));
  return static_cast<void *>(stream);
}

Status CudaDriver::destroyStream(void *stream) const {
  LOUPE_CU_TRY(makeCurrent());
  return check(symbols_->cuStreamDestroy(static_cast<CUstream>(stream)), "cuStreamDestroy");
}

Status CudaDriver::synchronize(void *stream) const {
  LOUPE_CU_TRY(makeCurrent());
  return check(symbols_->cuStreamSynchronize(static_cast<CUstream>(stream)),
               "cuStreamSynchronize");
}

StatusOr<void *> CudaDriver::createEvent() const {
  LOUPE_CU_TRY(makeCurrent());
  CUevent event = nullptr;
  LOUPE_CU_TRY(check(symbols_->cuEventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate"));
  return static_cast<void *>(event);
}

Status CudaDriver::destroyEvent(void *event) const {
  return check(symbols_->cuEventDestroy(static_cast<CUevent>(event)), "cuEventDestroy");
}

Status CudaDriver::recordEvent(void *event, void *stream) const {
  return check(symbols_->cuEventRecord(static_cast<CUevent>(event), static_cast<CUstream>(stream)),
               "cuEventRecord");
}

Status CudaDriver::synchronizeEvent(void *event) const {
  return check(symbols_->cuEventSynchronize(static_cast<CUevent>(event)), "cuEventSynchronize");
}

StatusOr<float> CudaDriver::elapsedMs(void *start, void *end) const {
  LOUPE_CU_TRY(check(symbols_->cuEventSynchronize(static_cast<CUevent>(end)), "cuEventSynchronize"));
  float ms = 0;
  LOUPE_CU_TRY(check(symbols_->cuEventElapsedTime(&ms, static_cast<CUevent>(start),
                                                  static_cast<CUevent>(end)),
                     "cuEventElapsedTime"));
  return ms;
}

StatusOr<uint64_t> CudaDriver::allocAsync(size_t bytes, void *stream) const {
  LOUPE_CU_TRY(makeCurrent());
  CUdeviceptr ptr = 0;
  LOUPE_CU_TRY(check(symbols_->cuMemAllocAsync(&ptr, bytes, static_cast<CUstream>(stream)),
                     "cuMemAllocAsync"));
  return static_cast<uint64_t>(ptr);
}

Status CudaDriver::freeAsync(uint64_t ptr, void *stream) const {
  LOUPE_CU_TRY(makeCurrent());
  return check(symbols_->cuMemFreeAsync(static_cast<CUdeviceptr>(ptr), static_cast<CUstream>(stream)),
               "cuMemFreeAsync");
}

StatusOr<uint64_t> CudaDriver::alloc(size_t bytes) const {
  LOUPE_CU_TRY(makeCurrent());
  CUdeviceptr ptr = 0;
  LOUPE_CU_TRY(check(symbols_->cuMemAlloc(&ptr, bytes ? bytes : 1), "cuMemAlloc"));
  return static_cast<uint64_t>(ptr);
}

Status CudaDriver::free(uint64_t ptr) const {
  LOUPE_CU_TRY(makeCurrent());
  return check(symbols_->cuMemFree(static_cast<CUdeviceptr>(ptr)), "cuMemFree");
}

Status CudaDriver::memcpyAsync(uint64_t dst, uint64_t src, size_t bytes, void *stream) const {
  LOUPE_CU_TRY(makeCurrent());
  return check(symbols_->cuMemcpyAsync(static_cast<CUdeviceptr>(dst), static_cast<CUdeviceptr>(src),
                                       bytes, static_cast<CUstream>(stream)),
               "cuMemcpyAsync");
}

Status CudaDriver::memcpyHtoD(uint64_t dst, const void *src, size_t bytes) const {
  LOUPE_CU_TRY(makeCurrent());
  return check(symbols_->cuMemcpyHtoD(static_cast<CUdeviceptr>(dst), src, bytes), "cuMemcpyHtoD");
}

Status CudaDriver::memcpyDtoH(void *dst, uint64_t src, size_t bytes) const {
  LOUPE_CU_TRY(makeCurrent());
  return check(symbols_->cuMemcpyDtoH(dst, static_cast<CUdeviceptr>(src), bytes), "cuMemcpyDtoH");
}

Status CudaDriver::memsetAsync(uint64_t dst, uint8_t value, size_t bytes, void *stream) const {
  LOUPE_CU_TRY(makeCurrent());
  return check(symbols_->cuMemsetD8Async(static_cast<CUdeviceptr>(dst), value, bytes,
                                         static_cast<CUstream>(stream)),
               "cuMemsetD8Async");
}

StatusOr<void *> CudaDriver::loadFunction(Context &context, const void *blob,
                                          const char *name) const {
  return context.getOrLoadKernel(blob, name, [&]() -> StatusOr<Context::KernelHandle> {
    LOUPE_CU_TRY(makeCurrent());
    CUmodule module = nullptr;
    LOUPE_CU_TRY(check(symbols_->cuModuleLoadData(&module, blob), "cuModuleLoadData"));
    CUfunction function = nullptr;
    if (Status s = check(symbols_->cuModuleGetFunction(&function, module, name),
                         "cuModuleGetFunction");
        !s) {
      symbols_->cuModuleUnload(module);
      return Status(s.code(), s.message() + " (kernel '" + name + "')");
    }
    const CudaSymbols *cu = symbols_.get();
    CUcontext primary = static_cast<CUcontext>(primaryContext_);
    return Context::KernelHandle{function, [cu, primary, module] {
                                   cu->cuCtxSetCurrent(primary);
                                   cu->cuModuleUnload(module);
                                 }};
  });
}

Status CudaDriver::launch(void *function, const int64_t grid[3], const int64_t block[3],
                          unsigned sharedMemBytes, void *stream, void **params) const {
  LOUPE_CU_TRY(makeCurrent());
  return check(symbols_->cuLaunchKernel(static_cast<CUfunction>(function),
                                        static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]),
                                        static_cast<unsigned>(grid[2]), static_cast<unsigned>(block[0]),
                                        static_cast<unsigned>(block[1]), static_cast<unsigned>(block[2]),
                                        sharedMemBytes, static_cast<CUstream>(stream), params, nullptr),
               "cuLaunchKernel");
}

#endif // LOUPE_RAL_HAVE_CUDA_HEADERS

} // namespace loupe::ral
