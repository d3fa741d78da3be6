//===- Replay.h - Run every variant of a session, compare two -----*- C++ -*-===//
//
// What `loupe replay SESSION` does, as a library: each variant of Session::runList() is
// compiled, run, checked and stored as its own run (recorded under its variant name), and
// when the session names two variants in `compare` (or a stored baseline is given) the
// compared variants run as interleaved trials and are compared on them
// (sessions::compareTimings, the GUI Compare panel's code).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_SESSIONS_REPLAY_H
#define LOUPE_SESSIONS_REPLAY_H

#include "loupe/sessions/Comparison.h"
#include "loupe/sessions/Runner.h"
#include "loupe/sessions/Session.h"
#include "loupe/sessions/Trials.h"

#include <functional>
#include <optional>

namespace loupe::sessions {

struct VariantRun {
  Variant variant;
  RunOutcome outcome; ///< The first trial (compiled, checked, stored with the compile).
  TrialSet trials;    ///< Every trial, the first included.
};

struct ComparisonResult {
  std::string baseline, candidate; ///< Variant names, or "run N" for a stored baseline.
  int64_t baselineRunId = -1, candidateRunId = -1; ///< The sides' first trials.
  std::optional<RunComparison> comparison; ///< Absent when either side failed.
  profiler::LoadDuring load;               ///< While both sides were measured.
  std::string error;                       ///< Why `comparison` is absent.
};

struct ReplayResult {
  std::vector<VariantRun> runs;            ///< In Session::runList() order.
  std::optional<ComparisonResult> compare; ///< When the session has `compare` or a baseline.
  /// The worst exit code of the runs (kExitOk < kExitMismatch < kExitBadInput < ...).
  int exitCode() const;
  const VariantRun *find(const std::string &variant) const;
};

/// How to replay.
struct ReplayOptions {
  /// Trials of each compared variant (fresh runs, interleaved A B A B ...); other variants
  /// run once. 0: kDefaultTrials when something is compared, else 1.
  int trials = 0;
  /// How to decide; `paired` is set by the replay (its own trials are interleaved pairs).
  profiler::CompareOptions compare = defaultCompareOptions();
  /// A stored run (with its batch's trials) to compare the candidate with, instead of the
  /// session's baseline variant. The candidate: the second of `compare`, else the last
  /// variant run.
  std::optional<TrialSet> baseline;
  std::string baselineName; ///< How reports name it, e.g. "run 12".
  /// Shard `shardIndex` of `shardCount` (0-based): runs the variants whose position in
  /// Session::runList() is shardIndex modulo shardCount (no comparison unless both sides
  /// are in the shard).
  int shardIndex = 0, shardCount = 1;
};
/// Trials per compared variant by default: 7 pairs is the smallest paired design that still
/// reaches p < 0.05 with one pair disagreeing (exact signed-rank p = 4/128 = 0.031).
inline constexpr int kDefaultTrials = 7;

/// Progress of one variant's run: its name, the runner's stage and fraction.
using ReplayProgressFn =
    std::function<void(const std::string &variant, const std::string &stage, double fraction)>;

/// Where and how the trials of one replay (or tune) run.
struct TrialPlan {
  std::string dbPath; ///< Profile DB the runs are stored in; empty: none.
  std::string batch;  ///< newBatchName(): recorded with every run.
  int trials = 1;     ///< Trials per repeated variant (for progress labels).
  ReplayProgressFn progress;
};
/// A name no other replay gives its batches: host, process and start time.
std::string newBatchName();
/// Runs trial `t` of `run.variant` (compiling at t == 0, else running trial 0's artifact) and
/// adds it to `run.trials`; trial 0 becomes `run.outcome`, a later failure marks it. `once`:
/// the variant runs only once (its progress label has no trial number).
void runTrial(const Session &session, VariantRun &run, int t, const TrialPlan &plan,
              bool once = false);

/// Runs the variants of `session` (requestForVariant), storing runs in `dbPath` (empty: none)
/// and, when two sides are compared, the verdicts in its `comparisons` table.
ReplayResult replaySession(const Session &session, const std::string &dbPath,
                           const ReplayOptions &options = {},
                           const ReplayProgressFn &progress = {});

} // namespace loupe::sessions

#endif // LOUPE_SESSIONS_REPLAY_H
