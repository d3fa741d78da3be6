//===- CompareCommand.cpp - loupe compare RUN_A RUN_B -------------------------===//
//
// Compares two stored runs, each with the trials of its batch (Store::trialRunIds), the way a
// replay compares its variants; prints the Markdown report, stores the verdicts in the
// candidate's DB and, with --fail-on, gates like `loupe replay` (docs/cli.md, docs/ci.md).
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "CompareCli.h"
#include "loupe/Commands.h"

#include "loupe/sessions/Report.h"

#include <nlohmann/json.hpp>

#include <cstdio>

using namespace loupe::sessions;

namespace loupe::app {

namespace {
int failWith(const ral::Status &s) {
  std::fprintf(stderr, "loupe compare: %s\n", s.message().c_str());
  return profiler::exitCodeFor(s);
}
} // namespace

int compareCommand(int argc, char **argv, int first) {
  CommandLine cl({"--db", "--baseline-db", "--report", kThresholdFlag, kFailOnFlag}, {"--json"});
  std::string error;
  if (!cl.parse(argc, argv, first, error) || cl.positionals().size() != 2)
    return failWith(ral::invalidArgument(error.empty() ? "expected RUN_A RUN_B" : error));
  auto baselineId = parseRunId(cl.positionals()[0], "RUN_A");
  if (!baselineId)
    return failWith(baselineId.status());
  auto candidateId = parseRunId(cl.positionals()[1], "RUN_B");
  if (!candidateId)
    return failWith(candidateId.status());
  auto flags = readCompareFlags(cl);
  if (!flags)
    return failWith(flags.status());
  if (cl.has("--report"))
    if (ral::Status s = checkReportPath(cl.get("--report")); !s)
      return failWith(s);

  auto store = openExistingDb(cl.get("--db"));
  if (!store)
    return failWith(store.status());
  std::optional<profiler::Store> baselineStore;
  if (cl.has("--baseline-db")) {
    auto other = openExistingDb(cl.get("--baseline-db"));
    if (!other)
      return failWith(other.status());
    baselineStore = std::move(*other);
  }
  auto run = store->loadRun(*candidateId);
  if (!run)
    return failWith(run.status());
  auto result = compareStoredRuns(*store, baselineStore ? &*baselineStore : nullptr, *baselineId,
                                  *run, flags->options, /*storeVerdicts=*/true);
  if (!result)
    return failWith(result.status());

  nlohmann::json report = buildReport(*result, run->summary.model);
  report["device"] = run->summary.deviceName;
  if (ral::Status s = emitReport(cl, report); !s)
    return failWith(s);
  return applyGate("loupe compare", *flags, *result);
}

} // namespace loupe::app
