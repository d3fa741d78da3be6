//===- SmClock.cpp - The GPU's SM clock through NVML (dlopen) -------------===//

#include "loupe/profiler/SmClock.h"

#include "loupe/ral/CudaDriver.h"

#include <dlfcn.h>

namespace loupe::profiler {

namespace {
// From nvml.h (NVML API version 2 and later), the declarations Loupe uses. nvmlReturn_t and
// nvmlClockType_t are C enums (int); nvmlDevice_t is an opaque handle.
using nvmlReturn_t = int;
constexpr nvmlReturn_t kNvmlSuccess = 0; // NVML_SUCCESS
constexpr int kNvmlClockSm = 1;          // NVML_CLOCK_SM
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st *;
} // namespace

struct SmClock::Api {
  nvmlReturn_t (*init)() = nullptr;                                 // nvmlInit_v2
  nvmlReturn_t (*shutdown)() = nullptr;                             // nvmlShutdown
  const char *(*errorString)(nvmlReturn_t) = nullptr;               // nvmlErrorString
  nvmlReturn_t (*byPciBusId)(const char *, nvmlDevice_t *) = nullptr; // ..._v2
  nvmlReturn_t (*clockInfo)(nvmlDevice_t, int, unsigned *) = nullptr; // nvmlDeviceGetClockInfo
  bool initialized = false;

  std::string message(nvmlReturn_t r, const char *call) const {
    const char *text = errorString ? errorString(r) : nullptr;
    return std::string(call) + ": " + (text ? text : "NVML error " + std::to_string(r));
  }
};

ral::StatusOr<std::unique_ptr<SmClock>> SmClock::open(const std::string &pciBusId) {
  if (pciBusId.empty())
    return ral::unavailable("NVML: the CUDA driver did not report the GPU's PCI bus id");
  std::unique_ptr<SmClock> clock(new SmClock());
  auto handle = ral::openCudaLibrary({"libnvidia-ml.so.1"}, &clock->path_,
                                     "NVML not found (it comes with the NVIDIA driver)");
  if (!handle)
    return handle.status();
  clock->api_ = std::make_unique<Api>();
  Api &api = *clock->api_;
  std::string missing;
  auto bind = [&](auto &slot, const char *name) {
    void *address = ::dlsym(*handle, name);
    if (!address)
      missing += std::string(missing.empty() ? "" : ", ") + name;
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(address);
  };
  bind(api.init, "nvmlInit_v2");
  bind(api.shutdown, "nvmlShutdown");
  bind(api.errorString, "nvmlErrorString");
  bind(api.byPciBusId, "nvmlDeviceGetHandleByPciBusId_v2");
  bind(api.clockInfo, "nvmlDeviceGetClockInfo");
  if (!missing.empty())
    return ral::unavailable(clock->path_ + " lacks " + missing);
  if (nvmlReturn_t r = api.init(); r != kNvmlSuccess)
    return ral::unavailable(api.message(r, "nvmlInit_v2") + " (" + clock->path_ + ")");
  api.initialized = true;
  nvmlDevice_t device = nullptr;
  if (nvmlReturn_t r = api.byPciBusId(pciBusId.c_str(), &device); r != kNvmlSuccess)
    return ral::unavailable(api.message(r, "nvmlDeviceGetHandleByPciBusId_v2") + " (bus id " +
                            pciBusId + ")");
  clock->device_ = device;
  return clock;
}

SmClock::~SmClock() {
  if (api_ && api_->initialized)
    api_->shutdown();
}

ral::StatusOr<int32_t> SmClock::readMhz() {
  unsigned mhz = 0;
  if (nvmlReturn_t r = api_->clockInfo(static_cast<nvmlDevice_t>(device_), kNvmlClockSm, &mhz);
      r != kNvmlSuccess)
    return ral::unavailable(api_->message(r, "nvmlDeviceGetClockInfo(NVML_CLOCK_SM)"));
  return static_cast<int32_t>(mhz);
}

} // namespace loupe::profiler
