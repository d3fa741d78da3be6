//===- MeasureFlags.cpp - Measurement flags of loupe run and loupe-run -------===//
#include "MeasureFlags.h"

#include <cmath>
#include <cstdio>

namespace loupe::app {

std::set<std::string> measureFlagNames() {
  return {"--warmup", "--warmup-ms", "--reps",  "--min-reps",
          "--max-reps", "--max-ms",  "--noise", "--mode"};
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
      {"sm_clock_mhz", smClockMhz ? nlohmann::json(*smClockMhz) : nlohmann::json()}};
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
  return text;
}

} // namespace loupe::app
