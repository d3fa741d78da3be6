//===- MeasureFlags.h - Measurement flags of loupe run and loupe-run -*- C++ -*-===//
//
// One parser and one JSON/text form for the measurement flags (docs/cli.md, docs/profiler.md
// "Method"), compiled into both `loupe` and `loupe-run`; the measuring itself is
// profiler::measureArtifact (loupe/profiler/Measure.h).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_APP_MEASUREFLAGS_H
#define LOUPE_APP_MEASUREFLAGS_H

#include "CommandLine.h"
#include "loupe/profiler/Measure.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <set>
#include <string>

namespace loupe::app {

/// The valued flags: --warmup, --warmup-ms, --reps, --min-reps, --max-reps, --max-ms, --noise,
/// --mode.
std::set<std::string> measureFlagNames();

/// Usage text of those flags (indented lines, ending in a newline).
extern const char *const kMeasureFlagsUsage;

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

} // namespace loupe::app

#endif // LOUPE_APP_MEASUREFLAGS_H
