//===- Comparison.h - Two runs compared dispatch by dispatch -----*- C++ -*-===//
//
// The one implementation of "compare run B with run A" that the GUI's Compare panel and the
// replay report's `comparison` section share: dispatches are matched by id when the names
// agree (the same compiled program), else by name, else by source ops and kernel kind (the
// same loc and the name without its "dispatch_N_" prefix: two schedules of one model); every
// pair and the whole repetitions go through profiler::compare (Mann-Whitney U and a
// median-change threshold).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_SESSIONS_COMPARISON_H
#define LOUPE_SESSIONS_COMPARISON_H

#include "loupe/profiler/Records.h"
#include "loupe/profiler/Statistics.h"
#include "loupe/sessions/Runner.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loupe::sessions {

/// One dispatch's samples (ns), one per measured repetition.
struct TimedDispatch {
  int64_t id = 0;
  std::string name, loc;
  std::vector<int64_t> samplesNs;
  std::string backend; ///< "codegen", "onednn", ...; empty when unknown.
};

/// A run's timings, whether just measured or loaded from the profile DB.
struct TimedRun {
  std::vector<int64_t> repNs; ///< Whole repetitions.
  std::vector<TimedDispatch> dispatches;
};
TimedRun timedRun(const RunOutcome &outcome);
TimedRun timedRun(const profiler::RunData &data);

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
};

struct RunComparison {
  double threshold = 0.05;
  DispatchComparison total;              ///< Whole repetitions ("whole repetition").
  std::vector<DispatchComparison> rows;  ///< Baseline dispatches by id, then unmatched ones.
};

/// Compares `candidate` with `baseline`; `threshold` is the smallest median change that
/// counts (0.05 = 5%).
RunComparison compareTimings(const TimedRun &baseline, const TimedRun &candidate,
                             double threshold);

} // namespace loupe::sessions

#endif // LOUPE_SESSIONS_COMPARISON_H
