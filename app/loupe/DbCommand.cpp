//===- DbCommand.cpp - loupe db import-nsys -----------------------------------===//
//
// `loupe db import-nsys FILE.sqlite [--db DB]`: an Nsight Systems SQLite export
// (`nsys export --type sqlite`) becomes a new run of the profile DB (profiler/NsysImport.h),
// so its kernels compare with Loupe's runs. The export is read completely before the DB is
// opened: a bad export leaves the DB untouched (exit code 2).
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "loupe/Commands.h"

#include "loupe/profiler/NsysImport.h"
#include "loupe/profiler/Store.h"

#include <cstdio>
#include <cstring>

namespace loupe::app {

namespace {
int exitCodeFor(const ral::Status &s) {
  return s.code() == ral::StatusCode::kInvalidArgument || s.code() == ral::StatusCode::kNotFound
             ? 2
             : 3;
}
} // namespace

int dbCommand(int argc, char **argv, int first) {
  const char *usage = "usage: loupe db import-nsys FILE.sqlite [--db DB]\n"
                      "  import an `nsys export --type sqlite` file as a new run (kernels, copies)\n";
  if (first >= argc || !std::strcmp(argv[first], "--help") || !std::strcmp(argv[first], "-h")) {
    std::fputs(usage, first >= argc ? stderr : stdout);
    return first >= argc ? 2 : 0;
  }
  std::string sub = argv[first];
  if (sub != "import-nsys") {
    std::fprintf(stderr, "loupe db: unknown subcommand '%s'\n%s", sub.c_str(), usage);
    return 2;
  }
  CommandLine cl({"--db"}, {});
  std::string error;
  if (!cl.parse(argc, argv, first + 1, error) || cl.positionals().size() != 1) {
    std::fprintf(stderr, "loupe db import-nsys: %s\n%s",
                 error.empty() ? "expected exactly one FILE.sqlite" : error.c_str(), usage);
    return 2;
  }
  std::string db = cl.get("--db");
  if (db.empty()) {
    auto path = profiler::defaultDatabasePath();
    if (!path) {
      std::fprintf(stderr, "loupe db import-nsys: %s\n", path.status().message().c_str());
      return 3;
    }
    db = *path;
  }
  const std::string &file = cl.positionals()[0];
  auto result = profiler::importNsys(file, db);
  if (!result) {
    std::fprintf(stderr, "loupe db import-nsys: %s\n", result.status().message().c_str());
    return exitCodeFor(result.status());
  }
  for (const std::string &w : result->warnings)
    std::fprintf(stderr, "loupe db import-nsys: warning: %s\n", w.c_str());
  std::printf("imported %s as run %lld of %s: %zu kernels, %zu copies/sets on %s\n", file.c_str(),
              static_cast<long long>(result->runId), db.c_str(), result->kernels,
              result->memcpys, result->device.c_str());
  return 0;
}

} // namespace loupe::app
