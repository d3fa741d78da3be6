//===- CudaDriver.h - The RAL's CUDA driver (driver API through dlopen) -*- C++ -*-===//
//
// The CUDA driver API, loaded at run time from a table of symbols (IREE's CU_PFN_DECL style,
// ral/lib/cuda/CudaSymbols.def): no link-time CUDA dependency, so one build runs with or
// without a GPU and says exactly what is missing. Handles are opaque here (void* for CUstream,
// CUevent, CUfunction; uint64_t for CUdeviceptr) so this header needs no cuda.h.
//
// Libraries are searched in this order (DESIGN.md): every directory of $LOUPE_CUDA_LIB_DIRS
// (':'-separated), $CUDA_HOME/lib64, /usr/local/cuda/lib64 (and extras/CUPTI/lib64 for
// CUPTI), then the system loader (LD_LIBRARY_PATH, ld.so.cache).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_RAL_CUDADRIVER_H
#define LOUPE_RAL_CUDADRIVER_H

#include "loupe/ral/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loupe::ral {

class Context;

/// One library of the CUDA stack, probed.
struct CudaLibraryInfo {
  std::string what;   ///< "CUDA driver", "cuBLAS", "cuBLASLt", "cuDNN", "CUPTI"
  std::string path;   ///< Where it was found, "" if not.
  Status status;      ///< Ok, or why not (every place tried, the loader's message).
};

/// Directories searched for CUDA libraries, in order (the system loader comes after them).
std::vector<std::string> cudaLibrarySearchDirs(bool includeCupti = false);
/// dlopen()s the first of `sonames` found along the search order. Errors (kUnavailable) name
/// the first soname, every directory tried, the system loader's message and `missingWhat`
/// ("no NVIDIA driver on this machine").
StatusOr<void *> openCudaLibrary(const std::vector<std::string> &sonames, std::string *foundPath,
                                 const std::string &missingWhat, bool includeCupti = false);
/// Probes libcuda, cuBLAS, cuBLASLt, cuDNN and CUPTI (loads each once; cached).
std::vector<CudaLibraryInfo> probeCudaLibraries();

struct CudaSymbols; // The dlsym()ed driver entry points (ral/lib/cuda/CudaSymbols.h).

/// The driver API bound to one device's primary context. Thread-safe: every method makes the
/// primary context current on the calling thread first.
class CudaDriver {
public:
  /// Loads libcuda, cuInit(0), picks device `ordinal`, retains its primary context. Errors
  /// (kUnavailable): "libcuda.so.1 not found in ...: no NVIDIA driver on this machine", built
  /// without CUDA headers, the toolkit's link stub instead of a driver, no device, bad ordinal.
  static StatusOr<std::unique_ptr<CudaDriver>> create(int ordinal);
  ~CudaDriver();
  CudaDriver(const CudaDriver &) = delete;
  CudaDriver &operator=(const CudaDriver &) = delete;

  int ordinal() const { return ordinal_; }
  const std::string &deviceName() const { return deviceName_; }
  int computeCapability() const { return ccMajor_ * 10 + ccMinor_; } ///< 90 for sm_90
  int driverVersion() const { return driverVersion_; }               ///< 12040 for 12.4
  size_t totalMemoryBytes() const { return totalMemory_; }
  /// L2 cache size in bytes (CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE); 0 when the driver did not say.
  size_t l2CacheBytes() const { return l2CacheBytes_; }
  /// PCI bus id, "0000:3b:00.0" (cuDeviceGetPCIBusId): how NVML finds the same GPU. Empty when
  /// the driver did not say.
  const std::string &pciBusId() const { return pciBusId_; }
  const std::string &libraryPath() const { return libraryPath_; }
  /// "NVIDIA H100 80GB HBM3 (sm_90, 79 GiB, driver 12040)".
  std::string describe() const;

  /// Makes the primary context current on the calling thread.
  Status makeCurrent() const;

  // Streams and events (CUstream / CUevent as void*).
  StatusOr<void *> createStream() const;
  Status destroyStream(void *stream) const;
  Status synchronize(void *stream) const;
  StatusOr<void *> createEvent() const;
  Status destroyEvent(void *event) const;
  Status recordEvent(void *event, void *stream) const;
  /// Blocks until `event` has completed (cuEventSynchronize).
  Status synchronizeEvent(void *event) const;
  /// Waits for `end`, then the time from `start` to `end` in ms (cuEventElapsedTime; about
  /// 0.5 us resolution).
  StatusOr<float> elapsedMs(void *start, void *end) const;

  // Memory (CUdeviceptr as uint64_t). Async ones are stream-ordered (cuMemAllocAsync).
  StatusOr<uint64_t> allocAsync(size_t bytes, void *stream) const;
  Status freeAsync(uint64_t ptr, void *stream) const;
  StatusOr<uint64_t> alloc(size_t bytes) const;
  Status free(uint64_t ptr) const;
  /// Copies between any two addresses (unified addressing picks the direction).
  Status memcpyAsync(uint64_t dst, uint64_t src, size_t bytes, void *stream) const;
  Status memcpyHtoD(uint64_t dst, const void *src, size_t bytes) const;
  Status memcpyDtoH(void *dst, uint64_t src, size_t bytes) const;
  Status memsetAsync(uint64_t dst, uint8_t value, size_t bytes, void *stream) const;

  /// The function `name` of the cubin/PTX/fatbin `blob`, loaded once per (blob, name) and
  /// context (Context::getOrLoadKernel); the module is unloaded with the Context.
  StatusOr<void *> loadFunction(Context &context, const void *blob, const char *name) const;
  Status launch(void *function, const int64_t grid[3], const int64_t block[3],
                unsigned sharedMemBytes, void *stream, void **params) const;

  /// Error text of a CUresult: "CUDA_ERROR_OUT_OF_MEMORY (out of memory) in cuMemAllocAsync".
  std::string errorString(int result, const char *call) const;
  const CudaSymbols &symbols() const { return *symbols_; }

private:
  CudaDriver() = default;
  Status check(int result, const char *call) const;

  std::unique_ptr<CudaSymbols> symbols_;
  void *library_ = nullptr;
  std::string libraryPath_;
  int ordinal_ = 0;
  int device_ = 0;
  void *primaryContext_ = nullptr;
  std::string deviceName_;
  int ccMajor_ = 0, ccMinor_ = 0;
  int driverVersion_ = 0;
  size_t totalMemory_ = 0;
  size_t l2CacheBytes_ = 0;
  std::string pciBusId_;
};

} // namespace loupe::ral

#endif // LOUPE_RAL_CUDADRIVER_H
