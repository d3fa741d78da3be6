//===- Comparison.cpp - Two runs compared dispatch by dispatch ----------------===//
#include "loupe/sessions/Comparison.h"

#include <limits>
#include <map>

namespace loupe::sessions {

TimedRun timedRun(const RunOutcome &outcome) {
  TimedRun run;
  run.repNs = outcome.repNs;
  for (const DispatchStats &d : outcome.dispatches)
    run.dispatches.push_back({d.info.id, d.info.name, d.info.loc, d.samplesNs});
  return run;
}

TimedRun timedRun(const profiler::RunData &data) {
  auto durations = [&](int64_t dispatchId) {
    std::vector<int64_t> out;
    auto it = data.samples.find(dispatchId);
    if (it != data.samples.end())
      for (const profiler::SampleRecord &s : it->second)
        out.push_back(s.durationNs());
    return out;
  };
  TimedRun run;
  run.repNs = durations(profiler::kWholeRep);
  for (const profiler::DispatchRecord &d : data.dispatches)
    run.dispatches.push_back({d.dispatchId, d.name, d.loc, durations(d.dispatchId)});
  return run;
}

RunComparison compareTimings(const TimedRun &baseline, const TimedRun &candidate,
                             double threshold) {
  RunComparison out;
  out.threshold = threshold;
  auto finish = [&](DispatchComparison &row, const std::vector<int64_t> &a,
                    const std::vector<int64_t> &b) {
    row.comparison = profiler::compare(a, b, threshold);
    const profiler::Comparison &c = row.comparison;
    row.ratio = c.baseline.count == 0 || c.candidate.count == 0 || c.baseline.median == 0
                    ? std::numeric_limits<double>::quiet_NaN()
                    : c.candidate.median / c.baseline.median;
  };

  out.total.name = "whole repetition";
  out.total.inBaseline = out.total.inCandidate = true;
  finish(out.total, baseline.repNs, candidate.repNs);

  // Match dispatches by id when the names agree (same compiled program), else by name.
  std::map<int64_t, size_t> candById;
  std::multimap<std::string, size_t> candByName;
  for (size_t i = 0; i < candidate.dispatches.size(); ++i) {
    candById[candidate.dispatches[i].id] = i;
    candByName.emplace(candidate.dispatches[i].name, i);
  }
  std::vector<bool> used(candidate.dispatches.size(), false);
  const std::vector<int64_t> none;
  for (const TimedDispatch &b : baseline.dispatches) {
    const TimedDispatch *match = nullptr;
    auto byId = candById.find(b.id);
    if (byId != candById.end() && !used[byId->second] &&
        candidate.dispatches[byId->second].name == b.name)
      match = &candidate.dispatches[byId->second];
    else
      for (auto [it, end] = candByName.equal_range(b.name); it != end && !match; ++it)
        if (!used[it->second])
          match = &candidate.dispatches[it->second];
    DispatchComparison row;
    row.id = b.id;
    row.name = b.name;
    row.loc = b.loc;
    row.inBaseline = true;
    row.inCandidate = match != nullptr;
    if (match)
      used[match - candidate.dispatches.data()] = true;
    finish(row, b.samplesNs, match ? match->samplesNs : none);
    out.rows.push_back(std::move(row));
  }
  for (size_t i = 0; i < candidate.dispatches.size(); ++i) {
    if (used[i])
      continue;
    const TimedDispatch &c = candidate.dispatches[i];
    DispatchComparison row;
    row.id = c.id;
    row.name = c.name;
    row.loc = c.loc;
    row.inCandidate = true;
    finish(row, none, c.samplesNs);
    out.rows.push_back(std::move(row));
  }
  return out;
}

} // namespace loupe::sessions
