//===- RalCommand.cpp - loupe ral list ----------------------------------------===//
//
// `loupe ral list [--verbose]`: every registered RAL API by its full encoded name (the names
// compiled artifacts pass to ral_api_call), after loading the kernel plugins; with --verbose
// also where each was registered, the plugins and the CUDA libraries found. Registration errors
// (a name registered twice) are printed to stderr and make the exit code 3.
//
//===----------------------------------------------------------------------===//
#include "loupe/ral/Context.h"
#include "loupe/ral/CudaDriver.h"
#include "loupe/ral/Registry.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace loupe::app {

int ralCommand(int argc, char **argv, int first) {
  const char *usage = "usage: loupe ral list [--verbose]\n";
  bool verbose = false;
  std::string sub;
  for (int i = first; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--verbose") || !std::strcmp(argv[i], "-v"))
      verbose = true;
    else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::fputs(usage, stdout);
      return 0;
    } else if (sub.empty())
      sub = argv[i];
    else {
      std::fprintf(stderr, "loupe ral: unexpected argument '%s'\n%s", argv[i], usage);
      return 2;
    }
  }
  if (sub != "list") {
    std::fprintf(stderr, "loupe ral: unknown subcommand '%s'\n%s", sub.c_str(), usage);
    return 2;
  }
  const std::vector<ral::PluginStatus> &plugins = ral::loadPlugins();
  for (const ral::Registry::Entry &e : ral::Registry::global().entries()) {
    if (verbose)
      std::printf("%-100s %s\n", e.name.c_str(), e.source.c_str());
    else
      std::printf("%s\n", e.name.c_str());
  }
  if (verbose) {
    std::printf("\n%zu RAL APIs\n", ral::Registry::global().size());
    for (const ral::PluginStatus &p : plugins)
      std::printf("plugin %s: %s\n", p.name.c_str(),
                  p.status ? p.path.c_str() : p.status.message().c_str());
    for (const ral::CudaLibraryInfo &lib : ral::probeCudaLibraries())
      std::printf("%s: %s\n", lib.what.c_str(),
                  lib.status ? lib.path.c_str() : lib.status.message().c_str());
  }
  if (ral::Status s = ral::Registry::global().status(); !s) {
    std::fprintf(stderr, "loupe ral: registration errors:\n%s\n", s.message().c_str());
    return 3;
  }
  return 0;
}

} // namespace loupe::app
