//===- Comparison.h - Two runs compared dispatch by dispatch -----*- C++ -*-===//
//
// The one implementation of "compare run B with run A" that the GUI's Compare panel, the
// replay report's `comparison` section and `loupe compare` share: dispatches are matched by id
// when the names agree (the same compiled program), else by name, else by source ops and
// kernel kind (the same loc and the name without its "dispatch_N_" prefix: two schedules of
// one model). Dispatches left unmatched are compared as source-op groups: the dispatches of
// both sides whose locs share a source op, transitively, summed per repetition. Every pair,
// group and the whole repetitions go through profiler::compare on the runs' trials.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_SESSIONS_COMPARISON_H
#define LOUPE_SESSIONS_COMPARISON_H

#include "loupe/profiler/Records.h"
#include "loupe/sessions/Attribution.h"
#include "loupe/profiler/Statistics.h"
#include "loupe/ral/Status.h"
#include "loupe/sessions/Runner.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace loupe::sessions {

/// One dispatch's samples (ns), one per measured repetition, per trial.
struct TimedDispatch {
  int64_t id = 0;
  std::string name, loc; ///< loc: the source ops, comma-separated ("conv1,relu1").
  profiler::Trials trials;
  std::string backend; ///< "codegen", "onednn", ...; empty when unknown.
};

/// The timings of one or more trials (runs) of one program, whether just measured or loaded
/// from the profile DB.
struct TimedRun {
  profiler::Trials repNs; ///< Whole repetitions, per trial.
  std::vector<TimedDispatch> dispatches;
};
/// One trial.
TimedRun timedRun(const RunOutcome &outcome);
TimedRun timedRun(const profiler::RunData &data);
/// Adds the trials of `more`, another run of the same program, to `run` (dispatches by
/// position); an empty `run` takes `more` whole.
void addTrials(TimedRun &run, TimedRun more);

/// How compareTimings decides: the profiler's options, whose minAbsoluteNs defaults here to
/// kTimerResolutionMultiple x this host's timer resolution (profiler::timerResolutionNs).
profiler::CompareOptions defaultCompareOptions(double threshold = 0.05);
inline constexpr double kTimerResolutionMultiple = 10;

/// One dispatch (or the whole repetition) compared between two runs.
struct DispatchComparison {
  int64_t id = profiler::kWholeRep;
  std::string name, loc;         ///< The baseline's (the candidate's when only it has one).
  std::string candidateName;     ///< The matched candidate dispatch's name.
  std::string baselineBackend, candidateBackend; ///< Empty on a side without the dispatch.
  bool inBaseline = false, inCandidate = false;
  profiler::Comparison comparison; ///< profiler::compare(baseline, candidate).
  /// Candidate median / baseline median (< 1: faster); NaN when either is missing or the
  /// baseline's is 0.
  double ratio = 0;
  /// FASTER / SLOWER rows with both compiles known: the first pass after which the two
  /// compiles' IR differs for this row's source ops (Attribution.h).
  std::optional<PassAttribution> attribution;
  /// Unmatched dispatches: the index in RunComparison::groups of the source-op group that
  /// compares them; -1 for matched rows.
  int group = -1;
};

/// Unmatched dispatches of both sides whose source ops overlap, compared as one: per
/// repetition, the sum of the members' samples.
struct GroupComparison {
  std::string loc;                                   ///< The union of the members' source ops.
  std::vector<int64_t> baselineIds, candidateIds;    ///< Dispatch ids of the members.
  DispatchComparison row; ///< name "source ops <loc>"; id kWholeRep.
};

struct RunComparison {
  profiler::CompareOptions options;
  DispatchComparison total;              ///< Whole repetitions ("whole repetition").
  std::vector<DispatchComparison> rows;  ///< Baseline dispatches by id, then unmatched ones.
  std::vector<GroupComparison> groups;   ///< Source-op groups of the unmatched rows.
};

/// Compares `candidate` with `baseline`.
RunComparison compareTimings(const TimedRun &baseline, const TimedRun &candidate,
                             const profiler::CompareOptions &options);
/// The dispatches of both runs that compute the source ops `ops`, compared as one source-op
/// group (per repetition, the sum of the members' samples): the members are the dispatches
/// whose locs share a source op with `ops` or, transitively, with another member, so what a
/// schedule fused into them on either side is counted on both. The group never grows through
/// the source ops in `barriers` (a dispatch holding one is a member only through another of
/// its ops), so fused elementwise chains do not join the groups of two separate ops (loupe
/// tune passes the other tuned ops). `row.name` is "source ops <loc>", `row.loc` the source
/// ops reached; no members on a side: that side is missing (the verdict says so).
DispatchComparison compareSourceOps(const TimedRun &baseline, const TimedRun &candidate,
                                    const std::set<std::string> &ops,
                                    const profiler::CompareOptions &options,
                                    const std::set<std::string> &barriers = {});
/// compareTimings with defaultCompareOptions(threshold).
RunComparison compareTimings(const TimedRun &baseline, const TimedRun &candidate,
                             double threshold);

/// The verdicts that fail a CI gate (`--fail-on slower,ambiguous`). The gate looks at the
/// whole-model verdict only: one verdict per comparison keeps the false-alarm rate at the
/// verdict's own (docs/ci.md); the regressed dispatches are listed, not gated.
using FailOn = std::set<profiler::Verdict>;
/// "slower", "ambiguous", "faster", "same", comma-separated, case-insensitive.
/// kInvalidArgument naming the bad word.
ral::StatusOr<FailOn> parseFailOn(const std::string &list);
/// Whether the whole-model verdict of `c` is in `failOn`.
bool gateFails(const FailOn &failOn, const RunComparison &c);
/// A comparison's change with its interval when it has one: "+12.1% [+8.3%, +15.0%]", "+12.1%".
std::string changeText(const profiler::Comparison &c);
/// The matched dispatches and source-op groups whose verdict is SLOWER, the largest change
/// first: "dispatch_4_conv (onednn -> codegen): +288.1% [+270.2%, +301.0%]".
std::vector<std::string> regressedRows(const RunComparison &c);

} // namespace loupe::sessions

#endif // LOUPE_SESSIONS_COMPARISON_H
