//===- SmClock.h - The GPU's SM clock through NVML ---------------*- C++ -*-===//
//
// Reads a GPU's current SM clock with NVML's nvmlDeviceGetClockInfo(NVML_CLOCK_SM), so every
// sample of a GPU run carries the clock it ran at (boost and thermal throttling change it).
// libnvidia-ml.so.1 ships with the NVIDIA driver; it is dlopen()ed along the RAL's CUDA
// library search (ral::openCudaLibrary), never linked. The few NVML declarations used are
// written out in SmClock.cpp (the toolkit ships no nvml.h); NVML's ABI keeps them stable.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_SMCLOCK_H
#define LOUPE_PROFILER_SMCLOCK_H

#include "loupe/ral/Status.h"

#include <cstdint>
#include <memory>
#include <string>

namespace loupe::profiler {

class SmClock {
public:
  /// Loads NVML, nvmlInit_v2, and finds the GPU whose PCI bus id is `pciBusId`
  /// ("0000:3b:00.0", ral::CudaDriver::pciBusId(); so NVML's order of devices does not
  /// matter). Errors (kUnavailable): "NVML not found: libnvidia-ml.so.1 not found in ...",
  /// missing symbols, nvmlInit or the device lookup failing (with NVML's message), an empty
  /// bus id.
  static ral::StatusOr<std::unique_ptr<SmClock>> open(const std::string &pciBusId);
  ~SmClock(); ///< nvmlShutdown.
  SmClock(const SmClock &) = delete;
  SmClock &operator=(const SmClock &) = delete;

  /// The current SM clock in MHz. Errors (kUnavailable) carry NVML's message.
  ral::StatusOr<int32_t> readMhz();
  /// Where libnvidia-ml was found.
  const std::string &libraryPath() const { return path_; }

  struct Api; ///< The dlsym()ed NVML entry points (SmClock.cpp).

private:
  SmClock() = default;
  std::unique_ptr<Api> api_;
  void *device_ = nullptr; ///< nvmlDevice_t.
  std::string path_;
};

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_SMCLOCK_H
