//===- CacheCommand.cpp - loupe cache stats|clear -----------------------------===//
//
// `loupe cache stats [--json]`: the compile cache's directory, entries, bytes and cap (the
// least recently used entries go past it; $LOUPE_CACHE_MAX_BYTES). `loupe cache clear`: removes
// every entry. Both take the directory from $LOUPE_CACHE_DIR, else $XDG_CACHE_HOME/loupe/compile,
// else ~/.cache/loupe/compile: the one the CLI and the GUI compile into.
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "loupe/Commands.h"
#include "loupe/Pipelines/Compiler.h"

#include <cstdio>
#include <string>

namespace loupe::app {

int cacheCommand(int argc, char **argv, int first) {
  const char *usage = "usage: loupe cache stats [--json] | loupe cache clear\n";
  CommandLine cl({}, {"--json", "--help"});
  std::string error;
  if (!cl.parse(argc, argv, first, error)) {
    std::fprintf(stderr, "loupe cache: %s\n%s", error.c_str(), usage);
    return 2;
  }
  if (cl.has("--help")) {
    std::fputs(usage, stdout);
    return 0;
  }
  std::string sub = cl.positionals().size() == 1 ? cl.positionals()[0] : "";
  if (sub == "clear") {
    compiler::CompileCacheUsage removed = compiler::clearCompileCache();
    std::printf("removed %lld compile cache entries from %s\n",
                static_cast<long long>(removed.entries), removed.dir.c_str());
    return 0;
  }
  if (sub != "stats") {
    std::fprintf(stderr, "loupe cache: expected stats or clear\n%s", usage);
    return 2;
  }
  compiler::CompileCacheUsage cache = compiler::compileCacheUsage();
  auto mib = [](int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); };
  if (cl.has("--json"))
    std::printf("{\"dir\": \"%s\", \"entries\": %lld, \"bytes\": %lld, \"cap_bytes\": %lld}\n",
                cache.dir.c_str(), static_cast<long long>(cache.entries),
                static_cast<long long>(cache.bytes), static_cast<long long>(cache.capBytes));
  else
    std::printf("compile cache %s: %lld entries, %.1f MiB of %.1f MiB (least recently used "
                "entries go past the cap; LOUPE_CACHE_MAX_BYTES)\n",
                cache.dir.c_str(), static_cast<long long>(cache.entries), mib(cache.bytes),
                mib(cache.capBytes));
  return 0;
}

} // namespace loupe::app
