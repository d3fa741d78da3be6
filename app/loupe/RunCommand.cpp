//===- RunCommand.cpp - loupe run ---------------------------------------------===//
#include "BackendFlags.h"
#include "CommandLine.h"
#include "RunCli.h"
#include "loupe/Commands.h"

#include "loupe/sessions/Report.h"
#include "loupe/sessions/Runner.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

using namespace loupe::sessions;

namespace loupe::app {

int runCommand(int argc, char **argv, int first) {
  std::set<std::string> valued = {"--db", "--target", "--device", "--gpu-arch"};
  valued.merge(backendFlagNames());
  valued.merge(runFlagNames());
  CommandLine cl(valued, {"--json"});
  std::string error;
  RunRequest request;
  bool ok = cl.parse(argc, argv, first, error) && applyRunFlags(cl, request.run, error) &&
            applyBackendFlags(cl, request.compile, error);
  if (ok && cl.positionals().size() != 1)
    error = "expected exactly one MODEL or ARTIFACT", ok = false;
  std::string device = cl.get("--device", cl.get("--target", "cpu"));
  if (ok && device != "cpu" && device != "cuda")
    error = "--device must be cpu or cuda, not '" + device + "'", ok = false;
  if (ok && cl.has("--gpu-arch") && !compiler::isGpuArch(cl.get("--gpu-arch")))
    error = "--gpu-arch must be sm_80 or sm_90, not '" + cl.get("--gpu-arch") + "'", ok = false;
  if (!ok) {
    std::fprintf(stderr, "loupe run: %s\n", error.c_str());
    return 2;
  }
  request.model = cl.positionals()[0];
  request.compile.target = device; // the target compiled for is the device run on
  request.compile.gpuArch = cl.get("--gpu-arch", request.compile.gpuArch);
  request.compile.keepIrText = false;
  request.dbPath = cl.get("--db");

  RunOutcome outcome = runModel(request);
  if (outcome.compile)
    for (const std::string &w : outcome.compile->warnings)
      std::fprintf(stderr, "loupe run: warning: %s\n", w.c_str());
  if (!outcome.modes.empty() && !outcome.modes.front().measurement.clockNote.empty())
    std::fprintf(stderr, "loupe run: note: %s\n",
                 outcome.modes.front().measurement.clockNote.c_str());
  if (cl.has("--json"))
    std::cout << runJson(outcome).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  else if (outcome.error.empty())
    printRun(outcome);
  if (!outcome.modes.empty() && !outcome.modes.front().measurement.kernelTiming.empty())
    std::fprintf(stderr, "kernel timings: %s\n",
                 outcome.modes.front().measurement.kernelTiming.c_str());
  if (!outcome.error.empty())
    std::fprintf(stderr, "loupe run: %s\n", outcome.error.c_str());
  return outcome.exitCode;
}

} // namespace loupe::app
