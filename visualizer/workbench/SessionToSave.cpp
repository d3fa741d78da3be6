//===- SessionToSave.cpp - The session as the workbench shows it ---------------===//
#include "loupe/visualizer/ViewModel.h"

namespace loupe::visualizer {

namespace {
bool sameSettings(const sessions::Variant &a, const sessions::Variant &b) {
  return a.pipeline == b.pipeline && a.run == b.run;
}

/// The name under which `session` reproduces stored run `run` with settings `v`, adding a
/// variant when no existing one ("base" included) has those settings. `avoid` is a name the
/// result must not be (the other side of the comparison).
std::string nameFor(sessions::Session &session, const profiler::RunSummary &run,
                    sessions::Variant v, const std::string &avoid) {
  // The run's own variant first, then any with the same settings.
  if (run.session == session.name && run.variant != avoid)
    if (auto own = session.variant(run.variant); own && sameSettings(*own, v))
      return own->name;
  if (avoid != sessions::kBaseVariant && sameSettings(session.base(), v))
    return sessions::kBaseVariant;
  for (const sessions::Variant &known : session.variants)
    if (known.name != avoid && sameSettings(known, v))
      return known.name;
  std::string name = !run.variant.empty() && run.variant != sessions::kBaseVariant
                         ? run.variant
                         : "run" + std::to_string(run.id);
  std::string unique = name;
  for (int k = 2; session.variant(unique) || unique == avoid; ++k)
    unique = name + "_" + std::to_string(k);
  v.name = unique;
  session.variants.push_back(std::move(v));
  return unique;
}
} // namespace

ral::StatusOr<sessions::Session> sessionToSave(const ViewModel &vm) {
  sessions::Session session = vm.session;
  const Navigation &nav = vm.nav;
  if (nav.comparesVariants()) {
    for (const std::string *name : {&nav.baselineVariant, &nav.candidateVariant})
      if (!session.variant(*name))
        return ral::invalidArgument("the Compare panel's variant '" + *name +
                                    "' is not in the session");
    if (nav.baselineVariant != nav.candidateVariant)
      session.compare = {nav.baselineVariant, nav.candidateVariant};
    return session;
  }
  if (nav.baselineRunId < 0 || nav.candidateRunId < 0)
    return session; // nothing compared: keep the session's own `compare`
  const CompareView *c = vm.comparison.get();
  if (!c || c->baseline.id != nav.baselineRunId || c->candidate.id != nav.candidateRunId ||
      !c->error.empty())
    return ral::invalidArgument("the comparison of runs #" + std::to_string(nav.baselineRunId) +
                                " and #" + std::to_string(nav.candidateRunId) +
                                " is not loaded: save again when the Compare panel shows it");
  auto a = sessions::variantFromRunConfig(session, "", c->baselineConfigJson);
  auto b = sessions::variantFromRunConfig(session, "", c->candidateConfigJson);
  if (!a || !b)
    return (a ? b : a).status();
  std::string first = nameFor(session, c->baseline, std::move(*a), "");
  std::string second = nameFor(session, c->candidate, std::move(*b), first);
  session.compare = {first, second};
  return session;
}

} // namespace loupe::visualizer
