//===- Trials.cpp - The trials behind one side of a comparison -------------===//
#include "loupe/sessions/Trials.h"

#include "loupe/profiler/Store.h"

namespace loupe::sessions {

void TrialSet::add(int64_t runId, TimedRun trial, std::string environmentJson) {
  runIds.push_back(runId);
  addTrials(timings, std::move(trial));
  environments.push_back(std::move(environmentJson));
}

ral::StatusOr<TrialSet> loadTrials(profiler::Store &store, int64_t runId) {
  auto run = store.loadRun(runId);
  if (!run)
    return run.status();
  return loadTrials(store, *run);
}

ral::StatusOr<TrialSet> loadTrials(profiler::Store &store, const profiler::RunData &run) {
  auto ids = store.trialRunIds(run.summary.id);
  if (!ids)
    return ids.status();
  TrialSet set;
  set.batch = run.batch;
  for (int64_t id : *ids) {
    std::optional<profiler::RunData> other;
    if (id != run.summary.id) {
      auto loaded = store.loadRun(id);
      if (!loaded)
        return loaded.status();
      other = std::move(*loaded);
    }
    const profiler::RunData &data = other ? *other : run;
    if (!set.compile && !data.compiles.empty())
      set.compile = data.compiles.front();
    set.add(id, timedRun(data), data.environmentJson);
  }
  return set;
}

bool interleaved(const TrialSet &baseline, const TrialSet &candidate) {
  return !baseline.batch.empty() && baseline.batch == candidate.batch &&
         baseline.runIds.size() == candidate.runIds.size();
}

RunComparison compareTrials(const TrialSet &baseline, const TrialSet &candidate,
                            profiler::CompareOptions options) {
  options.paired = interleaved(baseline, candidate);
  RunComparison c = compareTimings(baseline.timings, candidate.timings, options);
  if (baseline.compile && candidate.compile)
    attributeChanges(c, *baseline.compile, *candidate.compile);
  return c;
}

profiler::LoadDuring loadOf(const TrialSet &baseline, const TrialSet &candidate) {
  std::vector<std::string> all = baseline.environments;
  all.insert(all.end(), candidate.environments.begin(), candidate.environments.end());
  return profiler::loadDuring(all);
}

ral::Status storeComparison(profiler::Store &store, const TrialSet &baseline,
                            const TrialSet &candidate, const RunComparison &comparison,
                            bool underLoad) {
  auto store1 = [&](const DispatchComparison &row, int64_t dispatchId) {
    const profiler::Comparison &c = row.comparison;
    profiler::ComparisonRecord r;
    r.baselineRunId = baseline.firstRunId();
    r.candidateRunId = candidate.firstRunId();
    r.dispatchId = dispatchId;
    r.verdict = c.verdict;
    r.baselineMedianNs = c.baselineMedian;
    r.candidateMedianNs = c.candidateMedian;
    r.change = c.change;
    r.pValue = c.test.pValue;
    r.threshold = comparison.options.threshold;
    r.name = row.name;
    r.changeLow = c.changeLow;
    r.changeHigh = c.changeHigh;
    r.baselineTrials = static_cast<int64_t>(c.baselineTrials);
    r.candidateTrials = static_cast<int64_t>(c.candidateTrials);
    r.underLoad = underLoad;
    r.reason = c.reason;
    return store.addComparison(r).status();
  };
  if (ral::Status s = store1(comparison.total, profiler::kWholeRep); !s)
    return s;
  for (const DispatchComparison &row : comparison.rows)
    if (row.inBaseline && row.inCandidate)
      if (ral::Status s = store1(row, row.id); !s)
        return s;
  for (const GroupComparison &g : comparison.groups)
    if (ral::Status s = store1(g.row, profiler::kWholeRep); !s)
      return s;
  return ral::Status();
}

} // namespace loupe::sessions
