//===- Comparison.cpp - Two runs compared dispatch by dispatch ----------------===//
#include "loupe/sessions/Comparison.h"

#include "loupe/profiler/Measure.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>
#include <limits>
#include <map>
#include <numeric>
#include <set>

namespace loupe::sessions {

TimedRun timedRun(const RunOutcome &outcome) {
  TimedRun run;
  run.repNs = {outcome.repNs};
  for (const DispatchStats &d : outcome.dispatches)
    run.dispatches.push_back({d.info.id, d.info.name, d.info.loc, {d.samplesNs}, d.info.backend});
  return run;
}

TimedRun timedRun(const profiler::RunData &data) {
  TimedRun run;
  run.repNs = {data.durations(profiler::kWholeRep)};
  for (const profiler::DispatchRecord &d : data.dispatches)
    run.dispatches.push_back(
        {d.dispatchId, d.name, d.loc, {data.durations(d.dispatchId)}, d.backend});
  return run;
}

void addTrials(TimedRun &run, TimedRun more) {
  if (run.repNs.empty() && run.dispatches.empty()) {
    run = std::move(more);
    return;
  }
  run.repNs.insert(run.repNs.end(), more.repNs.begin(), more.repNs.end());
  for (size_t i = 0; i < run.dispatches.size() && i < more.dispatches.size(); ++i) {
    profiler::Trials &to = run.dispatches[i].trials;
    to.insert(to.end(), more.dispatches[i].trials.begin(), more.dispatches[i].trials.end());
  }
}

profiler::CompareOptions defaultCompareOptions(double threshold) {
  profiler::CompareOptions options;
  options.threshold = threshold;
  options.minAbsoluteNs =
      kTimerResolutionMultiple * static_cast<double>(profiler::timerResolutionNs());
  return options;
}

namespace {

/// "dispatch_12_generic" -> "generic": the kernel kind, without the program position.
std::string kernelKind(const std::string &name) {
  if (name.rfind("dispatch_", 0) != 0)
    return name;
  size_t end = name.find('_', 9);
  return end == std::string::npos ? name : name.substr(end + 1);
}

/// Per trial and repetition, the sum of the members' samples (repetitions that every member
/// has).
profiler::Trials summed(const std::vector<const TimedDispatch *> &members) {
  profiler::Trials out;
  for (const TimedDispatch *d : members)
    for (size_t t = 0; t < d->trials.size(); ++t) {
      if (out.size() <= t)
        out.push_back(d->trials[t]);
      else {
        out[t].resize(std::min(out[t].size(), d->trials[t].size()));
        for (size_t r = 0; r < out[t].size(); ++r)
          out[t][r] += d->trials[t][r];
      }
    }
  return out;
}

/// Compares `row`'s two sides and sets its ratio.
void finish(DispatchComparison &row, const profiler::Trials &a, const profiler::Trials &b,
            const profiler::CompareOptions &options) {
  row.comparison = profiler::compare(a, b, options);
  const profiler::Comparison &c = row.comparison;
  // The change's own estimate (Hodges-Lehmann when trialed), so ratio and change agree.
  row.ratio = c.baseline.count == 0 || c.candidate.count == 0
                  ? std::numeric_limits<double>::quiet_NaN()
                  : 1 + c.change;
}

/// Matches dispatches in three passes, so a weaker rule never takes a dispatch a stronger one
/// pairs: by id when name and loc agree (the same compiled program), by name and loc, then by
/// loc and kernel kind in program order (another schedule of the same source ops). Returns,
/// per baseline dispatch, the index of its candidate or -1.
std::vector<long> matchDispatches(const std::vector<TimedDispatch> &base,
                                  const std::vector<TimedDispatch> &cands) {
  std::vector<bool> used(cands.size(), false);
  std::vector<long> matchOf(base.size(), -1);
  auto pass = [&](auto key) { // pairs dispatches with equal keys, in program order
    std::multimap<std::string, size_t> byKey;
    for (size_t j = 0; j < cands.size(); ++j)
      if (!used[j])
        byKey.emplace(key(cands[j]), j);
    for (size_t i = 0; i < base.size(); ++i) {
      if (matchOf[i] >= 0)
        continue;
      std::string k = key(base[i]);
      auto it = byKey.lower_bound(k); // equal keys keep insertion (program) order
      if (it == byKey.end() || it->first != k)
        continue;
      matchOf[i] = static_cast<long>(it->second);
      used[it->second] = true;
      byKey.erase(it);
    }
  };
  pass([](const TimedDispatch &d) { return std::to_string(d.id) + "\n" + d.name + "\n" + d.loc; });
  pass([](const TimedDispatch &d) { return d.name + "\n" + d.loc; });
  pass([](const TimedDispatch &d) { return d.loc + "\n" + kernelKind(d.name); });
  return matchOf;
}

} // namespace

RunComparison compareTimings(const TimedRun &baseline, const TimedRun &candidate,
                             const profiler::CompareOptions &options) {
  RunComparison out;
  out.options = options;
  auto finish = [&](DispatchComparison &row, const profiler::Trials &a,
                    const profiler::Trials &b) { sessions::finish(row, a, b, options); };

  out.total.name = "whole repetition";
  out.total.inBaseline = out.total.inCandidate = true;
  finish(out.total, baseline.repNs, candidate.repNs);

  const std::vector<TimedDispatch> &bases = baseline.dispatches, &cands = candidate.dispatches;
  std::vector<long> matchOf = matchDispatches(bases, cands);
  std::vector<bool> used(cands.size(), false);
  for (long j : matchOf)
    if (j >= 0)
      used[static_cast<size_t>(j)] = true;
  const profiler::Trials none;
  std::vector<const TimedDispatch *> sourceOf; // per row: the dispatch it stands for
  for (size_t i = 0; i < bases.size(); ++i) {
    const TimedDispatch &b = bases[i];
    const TimedDispatch *match = matchOf[i] >= 0 ? &cands[static_cast<size_t>(matchOf[i])] : nullptr;
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
    finish(row, b.trials, match ? match->trials : none);
    out.rows.push_back(std::move(row));
    sourceOf.push_back(&b);
  }
  for (size_t j = 0; j < cands.size(); ++j) {
    if (used[j])
      continue;
    const TimedDispatch &c = cands[j];
    DispatchComparison row;
    row.id = c.id;
    row.name = c.name;
    row.candidateName = c.name;
    row.loc = c.loc;
    row.candidateBackend = c.backend;
    row.inCandidate = true;
    finish(row, none, c.trials);
    out.rows.push_back(std::move(row));
    sourceOf.push_back(&c);
  }

  // Source-op groups: connected components of the unmatched rows under "their locs share a
  // source op" (union-find over the rows).
  std::vector<size_t> parent(out.rows.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto root = [&](size_t r) {
    while (parent[r] != r)
      r = parent[r] = parent[parent[r]];
    return r;
  };
  std::map<std::string, size_t> rowOfOp;
  for (size_t r = 0; r < out.rows.size(); ++r) {
    if (out.rows[r].inBaseline && out.rows[r].inCandidate)
      continue;
    for (const std::string &op : splitSourceOps(out.rows[r].loc)) {
      auto [it, fresh] = rowOfOp.emplace(op, r);
      if (!fresh)
        parent[root(r)] = root(it->second);
    }
  }
  std::map<size_t, size_t> groupOfRoot;
  std::vector<std::vector<const TimedDispatch *>> baseMembers, candMembers;
  std::vector<std::set<std::string>> groupOps;
  for (size_t r = 0; r < out.rows.size(); ++r) {
    DispatchComparison &row = out.rows[r];
    if (row.inBaseline && row.inCandidate)
      continue;
    const TimedDispatch *d = sourceOf[r];
    auto [it, fresh] = groupOfRoot.emplace(root(r), out.groups.size());
    if (fresh) {
      out.groups.emplace_back();
      baseMembers.emplace_back();
      candMembers.emplace_back();
      groupOps.emplace_back();
    }
    size_t g = it->second;
    row.group = static_cast<int>(g);
    (row.inBaseline ? out.groups[g].baselineIds : out.groups[g].candidateIds).push_back(d->id);
    (row.inBaseline ? baseMembers[g] : candMembers[g]).push_back(d);
    for (const std::string &op : splitSourceOps(row.loc))
      groupOps[g].insert(op);
  }
  for (size_t g = 0; g < out.groups.size(); ++g) {
    GroupComparison &group = out.groups[g];
    for (const std::string &op : groupOps[g])
      group.loc += (group.loc.empty() ? "" : ",") + op;
    group.row.name = "source ops " + group.loc;
    group.row.loc = group.loc;
    group.row.inBaseline = !baseMembers[g].empty();
    group.row.inCandidate = !candMembers[g].empty();
    finish(group.row, summed(baseMembers[g]), summed(candMembers[g]));
  }
  return out;
}

DispatchComparison compareSourceOps(const TimedRun &baseline, const TimedRun &candidate,
                                    const std::set<std::string> &ops,
                                    const profiler::CompareOptions &options,
                                    const std::set<std::string> &barriers) {
  std::set<std::string> closure = ops;
  std::vector<bool> inBase(baseline.dispatches.size()), inCand(candidate.dispatches.size());
  auto grow = [&](const std::vector<TimedDispatch> &side, std::vector<bool> &member) {
    bool grew = false;
    for (size_t i = 0; i < side.size(); ++i) {
      if (member[i])
        continue;
      std::vector<std::string> locs = splitSourceOps(side[i].loc);
      if (std::none_of(locs.begin(), locs.end(), [&](const auto &op) { return closure.count(op); }))
        continue;
      member[i] = grew = true;
      for (const std::string &op : locs)
        if (!barriers.count(op) || ops.count(op))
          closure.insert(op);
    }
    return grew;
  };
  while (grow(baseline.dispatches, inBase) | grow(candidate.dispatches, inCand)) {
  }
  auto members = [](const std::vector<TimedDispatch> &side, const std::vector<bool> &member) {
    std::vector<const TimedDispatch *> out;
    for (size_t i = 0; i < side.size(); ++i)
      if (member[i])
        out.push_back(&side[i]);
    return out;
  };
  std::vector<const TimedDispatch *> a = members(baseline.dispatches, inBase),
                                     b = members(candidate.dispatches, inCand);
  DispatchComparison row;
  for (const std::string &op : closure)
    row.loc += (row.loc.empty() ? "" : ",") + op;
  row.name = "source ops " + row.loc;
  row.inBaseline = !a.empty();
  row.inCandidate = !b.empty();
  finish(row, summed(a), summed(b), options);
  return row;
}

RunComparison compareTimings(const TimedRun &baseline, const TimedRun &candidate,
                             double threshold) {
  return compareTimings(baseline, candidate, defaultCompareOptions(threshold));
}

ral::StatusOr<FailOn> parseFailOn(const std::string &list) {
  FailOn out;
  for (size_t begin = 0; begin <= list.size();) {
    size_t end = std::min(list.find(',', begin), list.size());
    std::string word = list.substr(begin, end - begin);
    std::transform(word.begin(), word.end(), word.begin(), ::toupper);
    std::optional<profiler::Verdict> v = profiler::parseVerdict(word);
    if (!v)
      return ral::invalidArgument("--fail-on: unknown verdict '" + list.substr(begin, end - begin) +
                                  "' (use slower, ambiguous, faster or same, comma-separated)");
    out.insert(*v);
    begin = end + 1;
  }
  return out;
}

bool gateFails(const FailOn &failOn, const RunComparison &c) {
  return failOn.count(c.total.comparison.verdict) != 0;
}

std::string changeText(const profiler::Comparison &c) {
  char buf[96];
  if (std::isfinite(c.changeLow) && std::isfinite(c.changeHigh))
    std::snprintf(buf, sizeof buf, "%+.1f%% [%+.1f%%, %+.1f%%]", 100 * c.change,
                  100 * c.changeLow, 100 * c.changeHigh);
  else
    std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * c.change);
  return buf;
}

std::vector<std::string> regressedRows(const RunComparison &c) {
  std::vector<const DispatchComparison *> slower;
  for (const DispatchComparison &row : c.rows)
    if (row.group < 0 && row.comparison.verdict == profiler::Verdict::Slower)
      slower.push_back(&row);
  for (const GroupComparison &g : c.groups)
    if (g.row.comparison.verdict == profiler::Verdict::Slower)
      slower.push_back(&g.row);
  std::sort(slower.begin(), slower.end(), [](const DispatchComparison *a, const DispatchComparison *b) {
    return a->comparison.change > b->comparison.change;
  });
  std::vector<std::string> out;
  for (const DispatchComparison *row : slower) {
    std::string line = row->name;
    if (!row->candidateName.empty() && row->candidateName != row->name)
      line += " vs " + row->candidateName;
    if (row->baselineBackend != row->candidateBackend && !row->baselineBackend.empty())
      line += " (" + row->baselineBackend + " -> " + row->candidateBackend + ")";
    line += ": " + changeText(row->comparison);
    if (row->attribution)
      line += "; IR first differs after " + describe(*row->attribution);
    out.push_back(line);
  }
  return out;
}

} // namespace loupe::sessions
