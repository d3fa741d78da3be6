//===- Replay.cpp - Run every variant of a session, compare two ---------------===//
#include "loupe/sessions/Replay.h"

#include <algorithm>

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

ReplayResult replaySession(const Session &session, const std::string &dbPath,
                           const ReplayProgressFn &progress, double threshold) {
  ReplayResult result;
  for (const Variant &v : session.runList()) {
    RunRequest request = requestForVariant(session, v, dbPath);
    request.compile.keepIrText = false;
    RunOutcome outcome = runModel(request, [&](const std::string &stage, double f) {
      if (progress)
        progress(v.name, stage, f);
    });
    result.runs.push_back({v, std::move(outcome)});
  }
  if (session.compare.size() != 2)
    return result;

  ComparisonResult &c = result.compare.emplace();
  c.baseline = session.compare[0];
  c.candidate = session.compare[1];
  const VariantRun *a = result.find(c.baseline), *b = result.find(c.candidate);
  for (const VariantRun *side : {a, b})
    if (side && c.error.empty() && !side->outcome.error.empty())
      c.error = "variant '" + side->variant.name + "' failed: " + side->outcome.error;
  if (!a || !b)
    c.error = "variant '" + (a ? c.candidate : c.baseline) + "' did not run";
  if (!c.error.empty())
    return result;
  c.baselineRunId = a->outcome.runId;
  c.candidateRunId = b->outcome.runId;
  c.comparison = compareTimings(timedRun(a->outcome), timedRun(b->outcome), threshold);
  return result;
}

} // namespace loupe::sessions
