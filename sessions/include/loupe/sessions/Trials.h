//===- Trials.h - The trials behind one side of a comparison -----*- C++ -*-===//
//
// A side of a comparison is a set of trials: the runs of one variant in one replay (a batch,
// docs/profiler.md "Verdicts"), just measured or loaded from the profile DB. This file moves
// them between the two and stores the verdicts taken on them (the `comparisons` table).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_SESSIONS_TRIALS_H
#define LOUPE_SESSIONS_TRIALS_H

#include "loupe/profiler/RunProvenance.h"
#include "loupe/sessions/Comparison.h"

#include <optional>
#include <string>
#include <vector>

namespace loupe::profiler {
class Store;
}

namespace loupe::sessions {

/// One side: its runs, their timings and what surrounded their measurement.
struct TrialSet {
  std::vector<int64_t> runIds;           ///< By trial; -1 for a run that was not stored.
  TimedRun timings;                      ///< Every trial's samples.
  std::vector<std::string> environments; ///< Each trial's environment JSON (its load).
  std::string batch; ///< The replay that ran them (RunInfo::batch); empty when unknown.
  /// The compile of the first trial (the others ran its artifact), for pass attribution.
  std::optional<profiler::CompileRecord> compile;

  /// Adds one trial.
  void add(int64_t runId, TimedRun trial, std::string environmentJson);
  /// The first trial's run id (what reports and the DB name the side by); -1 when none.
  int64_t firstRunId() const { return runIds.empty() ? -1 : runIds.front(); }
};

/// The trials of stored run `runId`: every complete run of its batch (Store::trialRunIds),
/// loaded. Errors: the store's (kNotFound for an unknown run).
ral::StatusOr<TrialSet> loadTrials(profiler::Store &store, int64_t runId);
/// The same for a run already loaded: only the other trials are read.
ral::StatusOr<TrialSet> loadTrials(profiler::Store &store, const profiler::RunData &run);

/// Whether the two sides' trials ran interleaved in pairs (one replay, equal counts): then
/// compare them paired (profiler::CompareOptions::paired).
bool interleaved(const TrialSet &baseline, const TrialSet &candidate);

/// The load during both sides' measurements (profiler::loadDuring over their trials).
profiler::LoadDuring loadOf(const TrialSet &baseline, const TrialSet &candidate);

/// Compares the two sides' timings (paired when interleaved) and attributes every FASTER or
/// SLOWER row to the first pass where the two compiles differ, when both are known.
RunComparison compareTrials(const TrialSet &baseline, const TrialSet &candidate,
                            profiler::CompareOptions options);

/// Stores the verdicts of `comparison` between the first runs of the two sides: the whole
/// repetition, every matched dispatch (by the baseline's dispatch id) and every source-op
/// group (dispatch id kWholeRep, named "source ops ...").
ral::Status storeComparison(profiler::Store &store, const TrialSet &baseline,
                            const TrialSet &candidate, const RunComparison &comparison,
                            bool underLoad);

} // namespace loupe::sessions

#endif // LOUPE_SESSIONS_TRIALS_H
