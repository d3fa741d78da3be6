//===- RunCommand.cpp - loupe run ---------------------------------------------===//
#include "BackendFlags.h"
#include "CommandLine.h"
#include "MeasureFlags.h"
#include "loupe/Commands.h"

#include "loupe/sessions/Report.h"
#include "loupe/sessions/Runner.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

using namespace loupe::sessions;

namespace loupe::app {

/// One mode as `--json` prints it: how it was measured, the run's median and IQR, every
/// dispatch, its run id.
static nlohmann::json modeJson(const ModeOutcome &m) {
  nlohmann::json dispatches = nlohmann::json::array();
  for (const DispatchStats &d : m.dispatches)
    dispatches.push_back({{"id", d.info.id}, {"name", d.info.name}, {"loc", d.info.loc},
                          {"backend", d.info.backend}, {"median_ns", d.summary.median},
                          {"iqr_ns", d.summary.iqr()}, {"calls", d.samplesNs.size()}});
  nlohmann::json j = measurementJson(m.measurement, m.smClockMhz);
  j["median_ns"] = m.runSummary.median;
  j["iqr_ns"] = m.runSummary.iqr();
  j["dispatches"] = dispatches;
  j["run_id"] = m.runId >= 0 ? nlohmann::json(m.runId) : nlohmann::json();
  return j;
}

/// The machine-readable summary of `loupe run --json` (docs/cli.md): the first mode's fields
/// at the top level, every mode in "modes".
static nlohmann::json runSummaryJson(const RunOutcome &o) {
  nlohmann::json j = o.modes.empty() ? nlohmann::json::object() : modeJson(o.modes.front());
  nlohmann::json modes = nlohmann::json::array();
  for (const ModeOutcome &m : o.modes)
    modes.push_back(modeJson(m));
  nlohmann::json fallbacks = nlohmann::json::array();
  for (const profiler::FallbackRecord &f : o.fallbacks)
    fallbacks.push_back({{"dispatch_id", f.dispatchId}, {"failed_kernel", f.failedKernel},
                         {"fallback_kernel", f.fallbackKernel}, {"message", f.message},
                         {"executions", f.executions}});
  nlohmann::json check = nullptr;
  if (o.checked) {
    bool passed = true;
    for (const OutputCheck &c : o.checks)
      passed = passed && c.record.passed;
    check = passed ? "pass" : "fail";
  }
  j["exit_code"] = o.exitCode;
  if (o.modes.empty()) { // failed before measuring
    j["reps"] = 0;
    j["median_ns"] = nullptr;
    j["iqr_ns"] = nullptr;
    j["dispatches"] = nlohmann::json::array();
    j["run_id"] = nullptr;
  }
  j["modes"] = modes;
  j["fallbacks"] = fallbacks;
  j["check"] = check;
  if (!o.error.empty())
    j["error"] = o.error;
  return j;
}

static void printHuman(const RunOutcome &o) {
  std::printf("device: %s\n", o.deviceName.c_str());
  for (const ModeOutcome &m : o.modes) {
    std::printf("run: median %.3f ms, IQR %.3f ms over %zu reps (%s)\n", m.runSummary.median / 1e6,
                m.runSummary.iqr() / 1e6, m.repNs.size(),
                measurementText(m.measurement, m.smClockMhz).c_str());
    std::printf("%4s  %-34s %-9s %-28s %12s %12s %7s\n", "id", "dispatch", "backend", "loc",
                "median us", "IQR us", "share");
    for (const DispatchStats &d : m.dispatches)
      std::printf("%4lld  %-34s %-9s %-28.28s %12.2f %12.2f %6.1f%%\n", (long long)d.info.id,
                  d.info.name.c_str(), d.info.backend.c_str(), d.info.loc.c_str(),
                  d.summary.median / 1e3, d.summary.iqr() / 1e3, 100 * d.share);
  }
  for (const profiler::FallbackRecord &f : o.fallbacks)
    std::printf("fallback: dispatch %lld: %s failed, ran %s instead (%lld executions): %s\n",
                (long long)f.dispatchId, f.failedKernel.c_str(), f.fallbackKernel.c_str(),
                (long long)f.executions, f.message.c_str());
  for (const OutputCheck &c : o.checks)
    std::printf("check output %lld: %s%s%s\n", (long long)c.record.outputIdx,
                c.record.passed ? "pass" : "FAIL", c.message.empty() ? "" : ": ",
                c.message.c_str());
  for (const ModeOutcome &m : o.modes)
    if (m.runId >= 0)
      std::printf("stored as run %lld (%s)\n", (long long)m.runId,
                  profiler::cacheModeName(m.measurement.mode));
}

static bool parseDouble(const CommandLine &cl, const char *flag, double &out, std::string &error) {
  if (!cl.has(flag))
    return true;
  try {
    out = std::stod(cl.get(flag));
    return true;
  } catch (...) {
    error = std::string("flag ") + flag + " expects a number";
    return false;
  }
}

int runCommand(int argc, char **argv, int first) {
  std::set<std::string> valued = {"--inputs", "--check",  "--seed",   "--rtol",    "--atol",
                                  "--db",     "--target", "--device", "--gpu-arch"};
  valued.merge(backendFlagNames());
  valued.merge(measureFlagNames());
  CommandLine cl(valued, {"--json"});
  std::string error;
  RunRequest request;
  int seed = 0;
  profiler::MeasureOptions measure; // by time and adaptive unless --warmup / --reps
  bool ok = cl.parse(argc, argv, first, error) && cl.getInt("--seed", seed, error) &&
            parseDouble(cl, "--rtol", request.run.rtol, error) &&
            parseDouble(cl, "--atol", request.run.atol, error) &&
            applyMeasureFlags(cl, measure, request.run.mode, error) &&
            applyBackendFlags(cl, request.compile, error);
  if (ok && cl.positionals().size() != 1)
    error = "expected exactly one MODEL or ARTIFACT", ok = false;
  std::string device = cl.get("--device", cl.get("--target", "cpu"));
  if (ok && device != "cpu" && device != "cuda")
    error = "--device must be cpu or cuda, not '" + device + "'", ok = false;
  if (!ok) {
    std::fprintf(stderr, "loupe run: %s\n", error.c_str());
    return 2;
  }
  setMeasureOptions(request.run, measure);
  request.model = cl.positionals()[0];
  request.compile.target = device; // the target compiled for is the device run on
  request.compile.gpuArch = cl.get("--gpu-arch", request.compile.gpuArch);
  request.compile.keepIrText = false;
  request.run.seed = static_cast<uint64_t>(seed);
  request.run.inputsDir = cl.get("--inputs");
  request.run.checkDir = cl.get("--check");
  request.dbPath = cl.get("--db");

  RunOutcome outcome = runModel(request);
  if (!outcome.modes.empty() && !outcome.modes.front().measurement.clockNote.empty())
    std::fprintf(stderr, "loupe run: note: %s\n",
                 outcome.modes.front().measurement.clockNote.c_str());
  if (cl.has("--json"))
    std::cout << runSummaryJson(outcome).dump(2) << "\n";
  else if (outcome.error.empty())
    printHuman(outcome);
  if (!outcome.modes.empty() && !outcome.modes.front().measurement.kernelTiming.empty())
    std::fprintf(stderr, "kernel timings: %s\n",
                 outcome.modes.front().measurement.kernelTiming.c_str());
  if (!outcome.error.empty())
    std::fprintf(stderr, "loupe run: %s\n", outcome.error.c_str());
  return outcome.exitCode;
}

} // namespace loupe::app
