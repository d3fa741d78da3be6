//===- Comparison.cpp - Two runs compared dispatch by dispatch ----------------===//
#include "loupe/sessions/Comparison.h"

#include <limits>
#include <map>

namespace loupe::sessions {

TimedRun timedRun(const RunOutcome &outcome) {
  TimedRun run;
  run.repNs = outcome.repNs;
  for (const DispatchStats &d : outcome.dispatches)
    run.dispatches.push_back({d.info.id, d.info.name, d.info.loc, d.samplesNs, d.info.backend});
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
    run.dispatches.push_back({d.dispatchId, d.name, d.loc, durations(d.dispatchId), d.backend});
  return run;
}

namespace {
/// "dispatch_12_generic" -> "generic": the kernel kind, without the program position.
std::string kernelKind(const std::string &name) {
  if (name.rfind("dispatch_", 0) != 0)
    return name;
  size_t end = name.find('_', 9);
  return end == std::string::npos ? name : name.substr(end + 1);
}
} // namespace

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

  // Match dispatches in three passes, so a weaker rule never takes a dispatch a stronger one
  // pairs: by id when name and loc agree (the same compiled program), by name and loc, then by
  // loc and kernel kind in program order (another schedule of the same source ops).
  const std::vector<TimedDispatch> &cands = candidate.dispatches;
  std::vector<bool> used(cands.size(), false);
  std::vector<const TimedDispatch *> matchOf(baseline.dispatches.size(), nullptr);
  auto pass = [&](auto key) { // pairs dispatches with equal keys, in program order
    std::multimap<std::string, size_t> byKey;
    for (size_t j = 0; j < cands.size(); ++j)
      if (!used[j])
        byKey.emplace(key(cands[j]), j);
    for (size_t i = 0; i < baseline.dispatches.size(); ++i) {
      if (matchOf[i])
        continue;
      std::string k = key(baseline.dispatches[i]);
      auto it = byKey.lower_bound(k); // equal keys keep insertion (program) order
      if (it == byKey.end() || it->first != k)
        continue;
      matchOf[i] = &cands[it->second];
      used[it->second] = true;
      byKey.erase(it);
    }
  };
  pass([](const TimedDispatch &d) { return std::to_string(d.id) + "\n" + d.name + "\n" + d.loc; });
  pass([](const TimedDispatch &d) { return d.name + "\n" + d.loc; });
  pass([](const TimedDispatch &d) { return d.loc + "\n" + kernelKind(d.name); });
  const std::vector<int64_t> none;
  for (size_t i = 0; i < baseline.dispatches.size(); ++i) {
    const TimedDispatch &b = baseline.dispatches[i];
    const TimedDispatch *match = matchOf[i];
    DispatchComparison row;
    row.id = b.id;
    row.name = b.name;
    row.loc = b.loc;
    row.baselineBackend = b.backend;
    row.inBaseline = true;
    row.inCandidate = match != nullptr;
    if (match) {
      row.candidateName = match->name;
      row.candidateBackend = match->backend;
    }
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
    row.candidateName = c.name;
    row.loc = c.loc;
    row.candidateBackend = c.backend;
    row.inCandidate = true;
    finish(row, none, c.samplesNs);
    out.rows.push_back(std::move(row));
  }
  return out;
}

} // namespace loupe::sessions
