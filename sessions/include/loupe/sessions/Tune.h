//===- Tune.h - loupe tune: every backend of every op measured, winners kept -*- C++ -*-===//
//
// Profile-guided backend placement (seed 001: device placement from profile databases; seed
// 004: priority dispatch, with backends forced to compare them). The base variant is compiled
// once to learn which ops more than one backend runs (the dispatch table's candidates). For
// each other backend one variant overrides every such op it runs, so one run measures all of
// them. The base and those variants run as interleaved trials (A B C A B C ...). Per op
// signature, the dispatches computing its ops are compared with the base's as one source-op
// group (sessions::compareSourceOps: only what changed is compared), and the fastest backend
// whose verdict is FASTER replaces the default; otherwise the default stays. The winners
// become per-op overrides of the tuned session, a last variant with them is compared with the
// base on the whole model, and the table goes to the profile DB (`tuning`), which
// `--backends auto` reads (resolveTunedBackends).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_SESSIONS_TUNE_H
#define LOUPE_SESSIONS_TUNE_H

#include "loupe/sessions/Replay.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace loupe::sessions {

/// One backend measured for one op signature.
struct BackendTime {
  std::string backend;
  /// The source-op group of the signature's ops under this backend, compared with the default
  /// backend's (for the default itself: its own median, verdict SAME).
  DispatchComparison row;
  std::string note; ///< Why it was not measured (the variant failed), else "".
};

/// The tuning of one op signature (every op of the model with it).
struct TunedSignature {
  std::string signature;      ///< opSignature: "conv2d:1x226x226x3xf32:...:s1x1:d1x1".
  std::string op;             ///< The op kind: "conv2d".
  std::vector<std::string> locs; ///< Its source ops (what overrides name), in program order.
  std::string defaultBackend; ///< The compiler's choice without tuning.
  std::string backend;        ///< The one kept.
  std::vector<BackendTime> measured; ///< The default first, then the others tried.
  std::string why;            ///< "codegen: FASTER -41.0% [-45.2%, -38.8%]" or why the default.
};

struct TuneOptions {
  int trials = kDefaultTrials; ///< Per variant, interleaved.
  profiler::CompareOptions compare = defaultCompareOptions();
  /// The backends to try besides the default; empty: every candidate of every op.
  std::vector<std::string> backends;
};

struct TuneResult {
  std::vector<TunedSignature> signatures; ///< In program order of their first op.
  /// The base, one variant per backend tried ("try-<backend>"), and "tuned" (when any
  /// override was kept), each with its trials.
  std::vector<VariantRun> runs;
  Session tuned; ///< The input session with the winners as per-op overrides (top level).
  /// "tuned" vs the base, whole model and per dispatch; absent when nothing changed.
  std::optional<ComparisonResult> confirmation;
  profiler::LoadDuring load; ///< While the base and the backend variants were measured.
  double seconds = 0;        ///< Wall time of the whole tune.
  std::string deviceKind, deviceName;
  std::string error; ///< Why tuning stopped (the base failed, nothing to tune is not an error).
  int exitCode = kExitOk;
};

/// Tunes `session`'s top-level settings (its variants and `compare` are ignored): runs and
/// verdicts stored in `dbPath` (empty: none; then nothing is stored in `tuning` either).
TuneResult tuneSession(const Session &session, const std::string &dbPath,
                       const TuneOptions &options = {}, const ReplayProgressFn &progress = {});

/// When `options.backends` names "auto": fills options.tunedBackends from the tuning table of
/// the DB at `dbPath` (empty: profiler::defaultDatabasePath()) for this host's CPU (target
/// cpu) or any CUDA device (target cuda). A missing DB is an empty table; errors: an
/// unreadable or foreign DB.
ral::Status resolveTunedBackends(compiler::CompileOptions &options, const std::string &dbPath);

/// A stored tuning row as lines for people: "onednn 26.07 us (default)", "codegen 55.37 us
/// +62.3% SLOWER", ..., then "kept: onednn (measured <date>, batch ...)"; the GUI's tooltip.
std::string describeTuning(const profiler::TuningRecord &record);

/// The tune as a report (sessions/Report.h: every format writeReport knows): the
/// confirmation's comparison, and "tuning": {"seconds", "trials", "device", "load",
/// "session", "signatures": [{signature, op, locs, default, backend, why, measured:
/// [{backend, median_ns, change, change_low, change_high, verdict, reason, note}]}]}.
nlohmann::json buildTuneReport(const TuneResult &result, const std::string &model,
                               const std::string &tunedSessionPath);

} // namespace loupe::sessions

#endif // LOUPE_SESSIONS_TUNE_H
