//===- main.cpp - loupe-run: run a compiled artifact with the RAL only ------------===//
//
// loupe-run ARTIFACT [--inputs DIR] [--check DIR] [measuring flags] [--seed S]
//                    [--rtol X] [--atol X] [--db DB] [--json] [--info]
//
// A thin main over the one run path, profiler::runArtifact (loupe/profiler/Run.h), which
// `loupe run` also takes after compiling; flags and output are RunCli.h's, shared with it.
//
// Links libloupe_ral.so, the profiler and SQLite only (no MLIR, no LLVM, no compiler), so an
// artifact compiled elsewhere runs on a GPU machine that has none of Loupe's build
// dependencies: copy bin/loupe-run and lib/libloupe_ral*.so (docs/ral.md). Prints the run's and
// every dispatch's median and IQR; --json prints the same as JSON; --db stores the run.
// Exit codes: 0 ok, 1 numerical mismatch, 2 bad usage or input, 3 internal error.
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "RunCli.h"

#include "loupe/profiler/Run.h"
#include "loupe/profiler/Store.h"
#include "loupe/ral/Artifact.h"
#include "loupe/ral/Context.h"
#include "loupe/ral/CpuDriver.h"
#include "loupe/ral/CudaDriver.h"
#include "loupe/ral/Registry.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <set>

using namespace loupe;

namespace {

const std::string kUsage =
    std::string("usage: loupe-run ARTIFACT [--inputs DIR] [--check DIR] [--seed S]\n"
                "                          [--rtol X] [--atol X] [--db DB] [--json] [--info]\n") +
    app::kMeasureFlagsUsage +
    "  runs a compiled artifact (.so) with the Loupe runtime only and prints per-dispatch\n"
    "  median/IQR. --info prints the artifact's manifest and what the runtime found (kernel\n"
    "  plugins, CUDA libraries) without running.\n"
    "exit codes: 0 ok, 1 numerical mismatch, 2 bad usage or input, 3 internal error\n";

void printInfo(const ral::Artifact *artifact) {
  if (artifact) {
    const ral::Manifest &m = artifact->manifest();
    std::printf("artifact: %s\n  abi %s, target %s, model %s\n", artifact->path().c_str(),
                m.abi.c_str(), m.target.c_str(), m.model.c_str());
    for (size_t i = 0; i < m.inputs.size(); ++i)
      std::printf("  input %zu: %s\n", i, m.inputs[i].typeString().c_str());
    for (size_t i = 0; i < m.outputs.size(); ++i)
      std::printf("  output %zu: %s\n", i, m.outputs[i].typeString().c_str());
    std::printf("  %zu dispatches, %zu RAL APIs\n", m.dispatches.size(), m.ralApis.size());
  }
  std::printf("runtime: %zu RAL APIs registered%s\n", ral::Registry::global().size(),
              ral::Registry::global().status() ? "" : " (REGISTRATION ERRORS)");
  for (const ral::PluginStatus &p : ral::loadPlugins())
    std::printf("  plugin %-28s %s\n", p.name.c_str(),
                p.status ? p.path.c_str() : p.status.message().c_str());
  for (const ral::CudaLibraryInfo &lib : ral::probeCudaLibraries())
    std::printf("  %-12s %s\n", lib.what.c_str(),
                lib.status ? lib.path.c_str() : lib.status.message().c_str());
}

} // namespace

int main(int argc, char **argv) {
  ral::execWithoutOpenMpWaitPolicy(argv);
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage.c_str(), argc < 2 ? stderr : stdout);
    return argc < 2 ? profiler::kExitBadInput : profiler::kExitOk;
  }
  std::set<std::string> valued = app::runFlagNames();
  valued.insert("--db");
  app::CommandLine cl(valued, {"--json", "--info"});
  std::string error;
  profiler::RunSettings settings;
  bool ok = cl.parse(argc, argv, 1, error) && app::applyRunFlags(cl, settings, error);
  if (ok && cl.positionals().size() != 1)
    error = "expected exactly one ARTIFACT", ok = false;
  if (!ok) {
    std::fprintf(stderr, "loupe-run: %s\n%s", error.c_str(), kUsage.c_str());
    return profiler::kExitBadInput;
  }
  const std::string &path = cl.positionals()[0];
  if (cl.has("--info")) {
    auto loaded = ral::Artifact::load(path);
    if (!loaded)
      std::fprintf(stderr, "loupe-run: %s\n", loaded.status().message().c_str());
    printInfo(loaded ? loaded->get() : nullptr);
    return loaded ? profiler::kExitOk : profiler::exitCodeFor(loaded.status());
  }

  profiler::ArtifactRun run = profiler::runArtifact(path, settings);
  if (!run.modes.empty() && run.exitCode <= profiler::kExitMismatch && cl.has("--db")) {
    // One run per mode; their configs differ in "mode" (docs/db-schema.md).
    profiler::RunInfo info;
    info.model = run.manifest.model.empty() ? path : run.manifest.model;
    info.configJson = nlohmann::json{{"runner", "loupe-run"}, {"artifact", path},
                                     {"abi", run.manifest.abi}, {"warmup", settings.measure.warmupReps},
                                     {"warmup_ms", settings.measure.warmupMs},
                                     {"reps", settings.measure.reps},
                                     {"min_reps", settings.measure.minReps},
                                     {"max_reps", settings.measure.maxReps},
                                     {"max_ms", settings.measure.maxMs},
                                     {"noise", settings.measure.noise}, {"seed", settings.seed},
                                     {"inputs", settings.inputsDir}, {"check", settings.checkDir}}
                          .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    auto store = profiler::Store::open(cl.get("--db"));
    ral::Status s = store ? ral::Status::ok() : store.status();
    for (size_t i = 0; s && i < run.modes.size(); ++i)
      s = profiler::storeRun(*store, info, nullptr, run, i);
    if (!s) {
      run.exitCode = profiler::exitCodeFor(s);
      run.error = s.message();
    }
  }
  if (!run.modes.empty() && !run.modes.front().measurement.kernelTiming.empty())
    std::fprintf(stderr, "loupe-run: kernel timings: %s\n",
                 run.modes.front().measurement.kernelTiming.c_str());
  if (!run.modes.empty() && !run.modes.front().measurement.clockNote.empty())
    std::fprintf(stderr, "loupe-run: note: %s\n", run.modes.front().measurement.clockNote.c_str());
  if (cl.has("--json")) {
    std::cout << app::runJson(run).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (run.error.empty()) {
    std::printf("artifact: %s (%s)\n", path.c_str(), run.manifest.abi.c_str());
    app::printRun(run);
  }
  if (!run.error.empty())
    std::fprintf(stderr, "loupe-run: %s\n", run.error.c_str());
  return run.exitCode;
}
