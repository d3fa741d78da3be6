//===- Replay.h - Run every variant of a session, compare two -----*- C++ -*-===//
//
// What `loupe replay SESSION` does, as a library: each variant of Session::runList() is
// compiled, run, checked and stored as its own run (recorded under its variant name), and
// when the session names two variants in `compare` their timings are compared
// (sessions::compareTimings, the GUI Compare panel's code).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_SESSIONS_REPLAY_H
#define LOUPE_SESSIONS_REPLAY_H

#include "loupe/sessions/Comparison.h"
#include "loupe/sessions/Runner.h"
#include "loupe/sessions/Session.h"

#include <functional>
#include <optional>

namespace loupe::sessions {

struct VariantRun {
  Variant variant;
  RunOutcome outcome;
};

struct ComparisonResult {
  std::string baseline, candidate; ///< Variant names, as in Session::compare.
  int64_t baselineRunId = -1, candidateRunId = -1;
  std::optional<RunComparison> comparison; ///< Absent when either side failed.
  std::string error;                       ///< Why it is absent.
};

struct ReplayResult {
  std::vector<VariantRun> runs;            ///< In Session::runList() order.
  std::optional<ComparisonResult> compare; ///< When the session has `compare`.
  /// The worst exit code of the runs (kExitOk < kExitMismatch < kExitBadInput < ...).
  int exitCode() const;
  const VariantRun *find(const std::string &variant) const;
};

/// Progress of one variant's run: its name, the runner's stage and fraction.
using ReplayProgressFn =
    std::function<void(const std::string &variant, const std::string &stage, double fraction)>;

/// Runs every variant of `session` (requestForVariant), storing runs in `dbPath` (empty:
/// none), and compares the two of `session.compare` with `threshold`.
ReplayResult replaySession(const Session &session, const std::string &dbPath,
                           const ReplayProgressFn &progress = {}, double threshold = 0.05);

} // namespace loupe::sessions

#endif // LOUPE_SESSIONS_REPLAY_H
