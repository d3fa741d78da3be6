//===- Replay.cpp - Run every variant of a session, compare two ---------------===//
#include "loupe/sessions/Replay.h"

#include "loupe/profiler/Store.h"

#include <algorithm>
#include <chrono>

namespace loupe::sessions {

int ReplayResult::exitCode() const {
  int code = kExitOk;
  for (const VariantRun &r : runs)
    code = std::max(code, r.outcome.exitCode);
  return code;
}

const VariantRun *ReplayResult::find(const std::string &variant) const {
  for (const VariantRun &r : runs)
    if (r.variant.name == variant)
      return &r;
  return nullptr;
}

std::string newBatchName() {
  profiler::ProcessIdentity me = profiler::currentProcess();
  auto now = std::chrono::system_clock::now().time_since_epoch();
  return me.host + ":" + std::to_string(me.pid) + ":" +
         std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count());
}

void runTrial(const Session &session, VariantRun &run, int t, const TrialPlan &plan, bool once) {
  RunRequest request = requestForVariant(session, run.variant, plan.dbPath);
  request.compile.keepIrText = false;
  request.batch = plan.batch;
  request.trial = t;
  if (t > 0 && run.outcome.compile)
    request.compiledArtifact = run.outcome.compile->artifactPath;
  std::string label = plan.trials > 1 && !once ? run.variant.name + " trial " +
                                                     std::to_string(t + 1) + "/" +
                                                     std::to_string(plan.trials)
                                               : run.variant.name;
  RunOutcome outcome = runModel(request, [&](const std::string &stage, double f) {
    if (plan.progress)
      plan.progress(label, stage, f);
  });
  if (outcome.exitCode <= kExitMismatch) {
    run.trials.batch = plan.batch;
    if (outcome.compile)
      run.trials.compile = compileRecord(*outcome.compile, session.model, request.compile.target);
    run.trials.add(outcome.runId, timedRun(outcome), outcome.environmentJson);
  }
  if (t == 0)
    run.outcome = std::move(outcome);
  else if (outcome.exitCode > run.outcome.exitCode) { // a later trial failed: say so
    run.outcome.exitCode = outcome.exitCode;
    run.outcome.error = "trial " + std::to_string(t + 1) + ": " + outcome.error;
  }
}

namespace {

/// The variants this shard runs, in run-list order.
std::vector<Variant> shardOf(const Session &session, const ReplayOptions &options) {
  std::vector<Variant> all = session.runList(), out;
  for (size_t i = 0; i < all.size(); ++i)
    if (static_cast<int>(i % static_cast<size_t>(options.shardCount)) == options.shardIndex)
      out.push_back(all[i]);
  return out;
}

} // namespace

ReplayResult replaySession(const Session &session, const std::string &dbPath,
                           const ReplayOptions &options, const ReplayProgressFn &progress) {
  ReplayResult result;
  std::vector<Variant> variants = shardOf(session, options);
  // The two sides: session.compare, or the stored baseline and the candidate.
  std::string baselineName, candidateName;
  if (options.baseline) {
    baselineName = options.baselineName;
    candidateName = session.compare.size() == 2 ? session.compare[1]
                    : variants.empty()          ? std::string()
                                                : variants.back().name;
  } else if (session.compare.size() == 2) {
    baselineName = session.compare[0];
    candidateName = session.compare[1];
  }
  bool comparing = !candidateName.empty();
  int trials = options.trials > 0 ? options.trials : comparing ? kDefaultTrials : 1;
  std::string batch = newBatchName();

  // Trial t of every variant before trial t + 1 of any (A B A B ...): drift hits both sides
  // alike. Variants outside the comparison run once.
  for (const Variant &v : variants)
    result.runs.push_back({v, {}, {}});
  TrialPlan plan{dbPath, batch, trials, progress};
  for (int t = 0; t < trials; ++t)
    for (VariantRun &run : result.runs) {
      bool compared = run.variant.name == baselineName || run.variant.name == candidateName;
      if (t == 0 || (compared && run.outcome.exitCode <= kExitMismatch))
        runTrial(session, run, t, plan, !compared);
    }
  if (!comparing)
    return result;

  ComparisonResult &c = result.compare.emplace();
  c.baseline = baselineName;
  c.candidate = candidateName;
  const VariantRun *a = options.baseline ? nullptr : result.find(baselineName);
  const VariantRun *b = result.find(candidateName);
  for (const VariantRun *side : {a, b})
    if (side && c.error.empty() && !side->outcome.error.empty())
      c.error = "variant '" + side->variant.name + "' failed: " + side->outcome.error;
  if ((!a && !options.baseline) || !b)
    c.error = "variant '" + (b ? baselineName : candidateName) + "' did not run" +
              (options.shardCount > 1 ? " in this shard" : "");
  if (!c.error.empty())
    return result;
  const TrialSet &base = options.baseline ? *options.baseline : a->trials;
  c.baselineRunId = base.firstRunId();
  c.candidateRunId = b->trials.firstRunId();
  c.comparison = compareTrials(base, b->trials, options.compare);
  c.load = loadOf(base, b->trials);
  if (dbPath.empty() || c.baselineRunId < 0 || c.candidateRunId < 0)
    return result;
  auto store = profiler::Store::open(dbPath);
  ral::Status stored = store ? storeComparison(*store, base, b->trials, *c.comparison, c.load.loaded)
                             : store.status();
  if (!stored)
    c.error = "verdicts not stored: " + stored.message();
  return result;
}

} // namespace loupe::sessions
