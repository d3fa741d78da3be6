//===- RunCli.cpp - Run flags and run output of loupe run and loupe-run -------===//
#include "RunCli.h"

#include <cmath>
#include <cstdio>
#include <utility>

namespace loupe::app {

std::set<std::string> runFlagNames() {
  return {"--inputs",   "--check",     "--seed", "--rtol",     "--atol",
          "--warmup",   "--warmup-ms", "--reps", "--min-reps", "--max-reps",
          "--max-ms",   "--noise",     "--mode"};
}

const char *const kMeasureFlagsUsage =
    "  measuring (docs/profiler.md): [--warmup N | --warmup-ms MS (100)]\n"
    "    [--reps N (exact) | --min-reps N (10) --max-reps N (1000) --max-ms MS (5000)\n"
    "     --noise X (0.02: stop once the median's relative standard error is <= 2%)]\n"
    "    [--mode hot|cold|both (hot; cold flushes the caches before every sample)]\n";

static bool getDouble(const CommandLine &cl, const char *flag, double &out, std::string &error) {
  if (!cl.has(flag))
    return true;
  try {
    size_t used = 0;
    out = std::stod(cl.get(flag), &used);
    if (used == cl.get(flag).size())
      return true;
  } catch (...) {
  }
  error = std::string("flag ") + flag + " expects a number, got '" + cl.get(flag) + "'";
  return false;
}

bool applyMeasureFlags(const CommandLine &cl, profiler::MeasureOptions &options,
                       std::string &mode, std::string &error) {
  if (cl.has("--warmup") && cl.has("--warmup-ms")) {
    error = "--warmup N (an exact count) and --warmup-ms MS (a time budget) exclude each other";
    return false;
  }
  if (cl.has("--reps"))
    for (const char *flag : {"--min-reps", "--max-reps", "--max-ms", "--noise"})
      if (cl.has(flag)) {
        error = std::string("--reps N is an exact count; ") + flag +
                " only applies without it (adaptive sampling)";
        return false;
      }
  if (!cl.getInt("--warmup", options.warmupReps, error) ||
      !getDouble(cl, "--warmup-ms", options.warmupMs, error) ||
      !cl.getInt("--reps", options.reps, error) ||
      !cl.getInt("--min-reps", options.minReps, error) ||
      !cl.getInt("--max-reps", options.maxReps, error) ||
      !getDouble(cl, "--max-ms", options.maxMs, error) ||
      !getDouble(cl, "--noise", options.noise, error))
    return false;
  if (cl.has("--warmup") && options.warmupReps < 0) {
    error = "--warmup must be >= 0";
    return false;
  }
  if (cl.has("--reps") && options.reps < 1) {
    error = "--reps must be >= 1";
    return false;
  }
  if (cl.has("--warmup-ms"))
    options.warmupReps = -1;
  mode = cl.get("--mode", mode);
  if (!profiler::parseCacheModes(mode)) {
    error = "--mode expects hot, cold or both, got '" + mode + "'";
    return false;
  }
  if (ral::Status s = profiler::validate(options); !s) {
    error = s.message();
    return false;
  }
  return true;
}

bool applyRunFlags(const CommandLine &cl, profiler::RunSettings &run, std::string &error) {
  profiler::MeasureOptions measure;
  int seed = 0;
  if (!cl.getInt("--seed", seed, error) || !getDouble(cl, "--rtol", run.rtol, error) ||
      !getDouble(cl, "--atol", run.atol, error) ||
      !applyMeasureFlags(cl, measure, run.mode, error))
    return false;
  for (auto [flag, value] : {std::pair{"--rtol", run.rtol}, std::pair{"--atol", run.atol}})
    if (!profiler::validTolerance(value)) {
      error = std::string(flag) + " must be finite and >= 0, got '" + cl.get(flag) + "'";
      return false;
    }
  run.measure = measure;
  run.seed = static_cast<uint64_t>(seed);
  run.inputsDir = cl.get("--inputs");
  run.checkDir = cl.get("--check");
  return true;
}

nlohmann::json measurementJson(const profiler::MeasurementRecord &m,
                               std::optional<double> smClockMhz) {
  nlohmann::json j = {
      {"mode", profiler::cacheModeName(m.mode)},
      {"warmup_reps", m.warmupReps},
      {"warmup_ms", m.warmupNs / 1e6},
      {"reps", m.reps},
      {"sample_ms", m.sampleNs / 1e6},
      {"noise", std::isfinite(m.noise) ? nlohmann::json(m.noise) : nlohmann::json()},
      {"stop", profiler::stopReasonName(m.stop)},
      {"flush_bytes", m.flushBytes},
      {"sm_clock_mhz", smClockMhz ? nlohmann::json(*smClockMhz) : nlohmann::json()},
      {"thread_stalls", m.threadStalls >= 0 ? nlohmann::json(m.threadStalls) : nlohmann::json()}};
  if (!m.clockNote.empty())
    j["clock_note"] = m.clockNote;
  // Where the dispatch times came from: GpuRunProfile::note's three forms; the CPU's host clock.
  const std::string &timing = m.kernelTiming;
  j["kernel_timing"] = timing.rfind("CUPTI", 0) == 0         ? "cupti"
                       : timing.rfind("CUDA events", 0) == 0 ? "cuda_events"
                                                             : "host";
  if (!timing.empty())
    j["kernel_timing_note"] = timing;
  return j;
}

std::string measurementText(const profiler::MeasurementRecord &m,
                            std::optional<double> smClockMhz) {
  char buf[256];
  std::string noise = "n/a";
  if (std::isfinite(m.noise)) {
    std::snprintf(buf, sizeof buf, "%.2f%%", 100 * m.noise);
    noise = buf;
  }
  std::snprintf(buf, sizeof buf, "%s; noise %s, stop: %s; warmup %lld reps in %.0f ms",
                profiler::cacheModeName(m.mode), noise.c_str(), profiler::stopReasonName(m.stop),
                (long long)m.warmupReps, m.warmupNs / 1e6);
  std::string text = buf;
  if (m.flushBytes > 0) {
    std::snprintf(buf, sizeof buf, "; flush %.0f MiB", m.flushBytes / double(1 << 20));
    text += buf;
  }
  if (smClockMhz) {
    std::snprintf(buf, sizeof buf, "; SM %.0f MHz", *smClockMhz);
    text += buf;
  }
  if (m.threadStalls > 0)
    text += "; " + profiler::describeThreadStalls(m.threadStalls);
  return text;
}

/// One mode as `--json` prints it: how it was measured, the run's median and IQR, every
/// dispatch, its run id.
static nlohmann::json modeJson(const profiler::ModeOutcome &m) {
  nlohmann::json dispatches = nlohmann::json::array();
  for (const profiler::DispatchStats &d : m.dispatches)
    dispatches.push_back({{"id", d.info.id}, {"name", d.info.name}, {"loc", d.info.loc},
                          {"backend", d.info.backend}, {"median_ns", d.summary.median},
                          {"iqr_ns", d.summary.iqr()}, {"calls", d.samplesNs.size()}});
  nlohmann::json j = measurementJson(m.measurement, m.smClockMhz);
  j["median_ns"] = m.runSummary.median;
  j["iqr_ns"] = m.runSummary.iqr();
  j["dispatches"] = dispatches;
  j["memory"] = profiler::memoryJson(m.measurement);
  j["run_id"] = m.runId >= 0 ? nlohmann::json(m.runId) : nlohmann::json();
  return j;
}

nlohmann::json runJson(const profiler::ArtifactRun &o) {
  nlohmann::json j = o.modes.empty() ? nlohmann::json::object() : modeJson(o.modes.front());
  nlohmann::json modes = nlohmann::json::array();
  for (const profiler::ModeOutcome &m : o.modes)
    modes.push_back(modeJson(m));
  nlohmann::json fallbacks = nlohmann::json::array();
  for (const profiler::FallbackRecord &f : o.fallbacks)
    fallbacks.push_back({{"dispatch_id", f.dispatchId}, {"failed_kernel", f.failedKernel},
                         {"fallback_kernel", f.fallbackKernel}, {"message", f.message},
                         {"executions", f.executions}});
  j["exit_code"] = o.exitCode;
  if (o.modes.empty()) { // failed before measuring
    j["reps"] = 0;
    j["median_ns"] = nullptr;
    j["iqr_ns"] = nullptr;
    j["dispatches"] = nlohmann::json::array();
    j["run_id"] = nullptr;
  }
  j["artifact"] = o.artifactPath;
  j["abi"] = o.manifest.abi;
  j["device"] = o.deviceName;
  j["modes"] = modes;
  j["fallbacks"] = fallbacks;
  j["check"] = o.checked ? nlohmann::json(o.passed() ? "pass" : "fail") : nlohmann::json();
  if (!o.error.empty())
    j["error"] = o.error;
  return j;
}

void printRun(const profiler::ArtifactRun &o) {
  std::printf("device: %s\n", o.deviceName.c_str());
  for (const profiler::ModeOutcome &m : o.modes) {
    std::printf("run: median %.3f ms, IQR %.3f ms over %zu reps (%s)\n",
                m.runSummary.median / 1e6, m.runSummary.iqr() / 1e6, m.repNs.size(),
                measurementText(m.measurement, m.smClockMhz).c_str());
    if (std::string memory = profiler::describeMemory(profiler::memoryJson(m.measurement));
        !memory.empty())
      std::printf("memory: %s\n", memory.c_str());
    std::printf("%4s  %-34s %-9s %-28s %12s %12s %7s\n", "id", "dispatch", "backend", "loc",
                "median us", "IQR us", "share");
    for (const profiler::DispatchStats &d : m.dispatches)
      std::printf("%4lld  %-34s %-9s %-28.28s %12.2f %12.2f %6.1f%%\n", (long long)d.info.id,
                  d.info.name.c_str(), d.info.backend.empty() ? "codegen" : d.info.backend.c_str(),
                  d.info.loc.c_str(), d.summary.median / 1e3, d.summary.iqr() / 1e3,
                  100 * d.share);
  }
  for (const profiler::FallbackRecord &f : o.fallbacks)
    std::printf("fallback: dispatch %lld: %s failed, ran %s instead (%lld executions): %s\n",
                (long long)f.dispatchId, f.failedKernel.c_str(), f.fallbackKernel.c_str(),
                (long long)f.executions, f.message.c_str());
  for (const profiler::OutputCheck &c : o.checks)
    std::printf("check output %lld: %s%s%s\n", (long long)c.record.outputIdx,
                c.record.passed ? "pass" : "FAIL", c.message.empty() ? "" : ": ",
                c.message.c_str());
  for (const profiler::ModeOutcome &m : o.modes)
    if (m.runId >= 0)
      std::printf("stored as run %lld (%s)\n", (long long)m.runId,
                  profiler::cacheModeName(m.measurement.mode));
}

} // namespace loupe::app
