//===- RunCli.h - Run flags and run output of loupe run and loupe-run -*- C++ -*-===//
//
// One parser for the flags that fill profiler::RunSettings (docs/cli.md, docs/profiler.md
// "Method") and one JSON/text form of a run's result, compiled into both `loupe` and
// `loupe-run`; the running itself is profiler::runArtifact (loupe/profiler/Run.h).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_APP_RUNCLI_H
#define LOUPE_APP_RUNCLI_H

#include "CommandLine.h"
#include "loupe/profiler/Run.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <set>
#include <string>

namespace loupe::app {

/// The valued flags: --inputs, --check, --seed, --rtol, --atol and the measuring ones
/// (--warmup, --warmup-ms, --reps, --min-reps, --max-reps, --max-ms, --noise, --mode).
std::set<std::string> runFlagNames();

/// Usage text of the measuring flags (indented lines, ending in a newline).
extern const char *const kMeasureFlagsUsage;

/// Applies the run flags over `run`. Measuring starts from profiler::MeasureOptions' defaults
/// (by time and adaptive) unless --warmup / --reps say otherwise (applyMeasureFlags). False
/// with `error` set on a malformed number, a tolerance that is negative or not finite, or a
/// measuring flag's error.
bool applyRunFlags(const CommandLine &cl, profiler::RunSettings &run, std::string &error);

/// Applies the flags over `options` and `mode` ("hot", "cold", "both"). Without --warmup and
/// --reps the measurement is by time and adaptive (options' defaults). False with `error` set
/// on a malformed number, --warmup with --warmup-ms, --reps with an adaptive flag
/// (--min-reps, --max-reps, --max-ms, --noise), an unknown mode, or profiler::validate's
/// message.
bool applyMeasureFlags(const CommandLine &cl, profiler::MeasureOptions &options,
                       std::string &mode, std::string &error);

/// How one mode was measured, as `--json` prints it: mode, warmup_reps, warmup_ms, reps,
/// sample_ms, noise (null when undefined), stop, flush_bytes, sm_clock_mhz (median over the
/// samples; null without a clock), clock_note (only when set).
nlohmann::json measurementJson(const profiler::MeasurementRecord &m,
                               std::optional<double> smClockMhz);

/// The same in words for the "run:" line: "hot; noise 1.2%, stop: noise; warmup 412 reps in
/// 100 ms" (plus "; flush 72 MiB" when cold and "; SM 1980 MHz" with a clock).
std::string measurementText(const profiler::MeasurementRecord &m,
                            std::optional<double> smClockMhz);

/// A run's result as `--json` prints it (docs/cli.md): the first mode's fields at the top
/// level, every mode in "modes", fallbacks, check ("pass", "fail" or null), exit_code and the
/// error when there is one.
nlohmann::json runJson(const profiler::ArtifactRun &run);

/// The same for people: device, each mode's "run:" line and dispatch table, fallbacks,
/// checks and the run ids stored.
void printRun(const profiler::ArtifactRun &run);

} // namespace loupe::app

#endif // LOUPE_APP_RUNCLI_H
