//===- ReportCommand.cpp - loupe report --db DB --run ID [--compare ID] -o OUT -===//
//
// A report of a stored run, optionally compared with another (the baseline, with the trials of
// both batches, as `loupe compare`), in the format of OUT's extension: .md, .json, .html
// (self-contained, inline SVG), .csv or .xml (JUnit). docs/cli.md, docs/sessions.md.
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "CompareCli.h"
#include "loupe/Commands.h"

#include "loupe/sessions/Report.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace loupe::app {

namespace {
int failWith(const ral::Status &s) {
  std::fprintf(stderr, "loupe report: %s\n", s.message().c_str());
  return profiler::exitCodeFor(s);
}
} // namespace

int reportCommand(int argc, char **argv, int first) {
  CommandLine cl({"--db", "--run", "--compare", "-o", kThresholdFlag}, {});
  std::string error;
  if (!cl.parse(argc, argv, first, error))
    return failWith(ral::invalidArgument(error));
  if (!cl.positionals().empty())
    return failWith(ral::invalidArgument("unexpected '" + cl.positionals()[0] + "'"));
  if (!cl.has("--run") || !cl.has("-o"))
    return failWith(ral::invalidArgument("expected --run ID and -o OUT.md|.json|.html|.csv|.xml"));
  auto runId = parseRunId(cl.get("--run"), "--run");
  if (!runId)
    return failWith(runId.status());
  std::optional<int64_t> baselineId;
  if (cl.has("--compare")) {
    auto id = parseRunId(cl.get("--compare"), "--compare");
    if (!id)
      return failWith(id.status());
    baselineId = *id;
  }
  auto flags = readCompareFlags(cl);
  if (!flags)
    return failWith(flags.status());
  if (ral::Status s = sessions::checkReportPath(cl.get("-o")); !s)
    return failWith(s);
  auto store = openExistingDb(cl.get("--db"));
  if (!store)
    return failWith(store.status());
  auto run = store->loadRun(*runId);
  if (!run)
    return failWith(run.status());
  nlohmann::json report = sessions::buildReport(*run);
  if (baselineId) {
    // A report reads the DB; the verdicts are `loupe compare`'s to store.
    auto compared = compareStoredRuns(*store, nullptr, *baselineId, *run, flags->options,
                                      /*storeVerdicts=*/false);
    if (!compared)
      return failWith(compared.status());
    report["comparison"] = sessions::buildReport(*compared, run->summary.model)["comparison"];
  }
  if (ral::Status s = sessions::writeReport(report, cl.get("-o")); !s)
    return failWith(s);
  std::fprintf(stderr, "report: %s\n", cl.get("-o").c_str());
  return 0;
}

} // namespace loupe::app
