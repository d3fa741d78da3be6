//===- BackendAvailability.cpp - Can this machine run a backend's kernel? ------------===//
#include "loupe/sessions/BackendAvailability.h"

#include "loupe/ral/Context.h"
#include "loupe/ral/CudaDriver.h"
#include "loupe/ral/Registry.h"

#include <mutex>
#include <set>

namespace loupe::sessions {

namespace {
/// "prefix/device" of every RAL API, read once after the kernel plugins are loaded.
const std::set<std::string> &registeredKernels() {
  static std::set<std::string> kernels;
  static std::once_flag once;
  std::call_once(once, [] {
    ral::loadPlugins();
    for (const ral::Registry::Entry &e : ral::Registry::global().entries())
      kernels.insert(e.prefix + "/" + e.device);
  });
  return kernels;
}
} // namespace

std::string unavailableReason(const std::string &backend, const std::string &kernel,
                              const std::string &device) {
  if (device == "gpu") {
    for (const ral::CudaLibraryInfo &lib : ral::probeCudaLibraries()) {
      bool needed = lib.what == "CUDA driver" || (backend == "cublas" && lib.what == "cuBLAS") ||
                    (backend == "cudnn" && lib.what == "cuDNN");
      if (needed && !lib.status)
        return lib.what + " not found";
    }
    if (kernel.empty())
      return "the cuda target is not built yet";
  }
  if (!kernel.empty() && !registeredKernels().count(kernel + "/" + device))
    return "RAL kernel " + kernel + " not registered (CPU kernel plugin missing?)";
  return "";
}

} // namespace loupe::sessions
