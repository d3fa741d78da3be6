//===- BackendsCommand.cpp - loupe backends list ---------------------------------------===//
//
// `loupe backends list`: the backend registry (loupe/Backends/BackendRegistry.h) with every
// op, plevel and RAL kernel, and whether it can run on this machine: the kernel is registered
// in the RAL (after loading the CPU kernel plugin) and, for GPU backends, the CUDA driver and
// the vendor library load. Registration errors make the exit code 3.
//
//===----------------------------------------------------------------------===//
#include "loupe/Backends/BackendRegistry.h"
#include "loupe/ral/Context.h"
#include "loupe/ral/CudaDriver.h"
#include "loupe/ral/Registry.h"

#include <cstdio>
#include <cstring>
#include <set>
#include <string>

namespace loupe::app {

namespace {
/// "yes", or why the kernel `kernel` of a backend cannot run on `device` here.
std::string availability(const std::string &backend, const std::string &kernel,
                         const std::string &device, const std::set<std::string> &ralApis) {
  if (device == "gpu") {
    for (const ral::CudaLibraryInfo &lib : ral::probeCudaLibraries()) {
      bool needed = lib.what == "CUDA driver" || (backend == "cublas" && lib.what == "cuBLAS") ||
                    (backend == "cudnn" && lib.what == "cuDNN");
      if (needed && !lib.status)
        return "no: " + lib.what + " not found";
    }
    if (kernel.empty())
      return "no: the cuda target is not built yet";
  }
  if (!kernel.empty() && !ralApis.count(kernel + "/" + device))
    return "no: RAL kernel " + kernel + " not registered (CPU kernel plugin missing?)";
  return "yes";
}
} // namespace

int backendsCommand(int argc, char **argv, int first) {
  const char *usage = "usage: loupe backends list\n";
  if (argc - first != 1 || std::strcmp(argv[first], "list")) {
    bool help = argc - first == 1 && (!std::strcmp(argv[first], "--help") ||
                                      !std::strcmp(argv[first], "-h"));
    std::fputs(usage, help ? stdout : stderr);
    return help ? 0 : 2;
  }
  ral::loadPlugins();
  std::set<std::string> ralApis;
  for (const ral::Registry::Entry &e : ral::Registry::global().entries())
    ralApis.insert(e.prefix + "/" + e.device);

  const backends::BackendRegistry &registry = backends::BackendRegistry::global();
  std::printf("%-10s %-6s %-14s %6s  %-26s %s\n", "backend", "device", "op", "plevel", "kernel",
              "available here");
  for (const auto &backend : registry.backends())
    for (const std::string &device : backend->devices()) {
      bool any = false;
      for (const auto &op : registry.ops()) {
        if (op->backend != backend->name())
          continue;
        any = true;
        std::printf("%-10s %-6s %-14s %6d  %-26s %s\n", backend->name().c_str(), device.c_str(),
                    op->op.c_str(), op->plevel, op->kernel.c_str(),
                    availability(backend->name(), op->kernel, device, ralApis).c_str());
      }
      if (!any && backend->runsEveryOp())
        std::printf("%-10s %-6s %-14s %6d  %-26s %s\n", backend->name().c_str(), device.c_str(),
                    "*", 10, "(generated)",
                    availability(backend->name(), "", device, ralApis).c_str());
    }
  for (const std::string &e : registry.errors())
    std::fprintf(stderr, "loupe backends: %s\n", e.c_str());
  return registry.errors().empty() ? 0 : 3;
}

} // namespace loupe::app
