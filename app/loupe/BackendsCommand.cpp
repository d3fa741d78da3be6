//===- BackendsCommand.cpp - loupe backends list ---------------------------------------===//
//
// `loupe backends list`: the backend registry (loupe/Backends/BackendRegistry.h) with every
// op and fuse pattern, plevel and RAL kernel, and whether it can run on this machine
// (sessions::unavailableReason, shared with the GUI). Registration errors make the exit code 3.
//
//===----------------------------------------------------------------------===//
#include "loupe/Backends/BackendRegistry.h"
#include "loupe/sessions/BackendAvailability.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace loupe::app {

namespace {
/// "yes", or "no: <why>".
std::string availability(const std::string &backend, const std::string &kernel,
                         const std::string &device) {
  std::string why = sessions::unavailableReason(backend, kernel, device);
  return why.empty() ? "yes" : "no: " + why;
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
                    availability(backend->name(), op->kernel, device).c_str());
      }
      if (!any && backend->runsEveryOp())
        std::printf("%-10s %-6s %-14s %6d  %-26s %s\n", backend->name().c_str(), device.c_str(),
                    "*", 10, "(generated)",
                    availability(backend->name(), "", device).c_str());
    }
  // Fuse patterns: chains of ops one kernel of the backend runs (docs/pipeline.md, Clusters).
  std::printf("\n%-10s %-6s %-16s %6s  %-26s %-18s %s\n", "backend", "device", "fuse pattern",
              "plevel", "kernel", "ops", "available here");
  for (const auto &backend : registry.backends())
    for (const std::string &device : backend->devices())
      for (const auto &pattern : registry.fusePatterns()) {
        if (pattern->backend != backend->name())
          continue;
        std::string ops;
        for (const std::string &op : pattern->ops)
          ops += (ops.empty() ? "" : "+") + op;
        std::printf("%-10s %-6s %-16s %6d  %-26s %-18s %s\n", backend->name().c_str(),
                    device.c_str(), pattern->name.c_str(), pattern->plevel,
                    pattern->kernel.c_str(), ops.c_str(),
                    availability(backend->name(), pattern->kernel, device).c_str());
      }
  for (const std::string &e : registry.errors())
    std::fprintf(stderr, "loupe backends: %s\n", e.c_str());
  return registry.errors().empty() ? 0 : 3;
}

} // namespace loupe::app
