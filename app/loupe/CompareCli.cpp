//===- CompareCli.cpp - What `loupe replay` and `loupe compare` share --------===//
#include "CompareCli.h"

#include "loupe/sessions/Report.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace loupe::app {

ral::StatusOr<int64_t> parseRunId(const std::string &text, const std::string &what) {
  char *end = nullptr;
  long long id = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || id < 1)
    return ral::invalidArgument(what + " must be a run id (>= 1), got '" + text + "'");
  return static_cast<int64_t>(id);
}

ral::StatusOr<profiler::Store> openExistingDb(const std::string &path) {
  std::string db = path;
  if (db.empty()) {
    auto fallback = profiler::defaultDatabasePath();
    if (!fallback)
      return fallback.status();
    db = *fallback;
  }
  std::error_code ec;
  if (!std::filesystem::exists(db, ec))
    return ral::notFound("no profile DB at '" + db + "'");
  return profiler::Store::open(db);
}

ral::StatusOr<CompareFlags> readCompareFlags(const CommandLine &cl) {
  CompareFlags flags;
  if (cl.has(kThresholdFlag)) {
    std::string text = cl.get(kThresholdFlag);
    char *end = nullptr;
    double percent = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(percent > 0 && percent < 1000))
      return ral::invalidArgument(std::string(kThresholdFlag) +
                                  " expects a percentage in (0, 1000), got '" + text + "'");
    flags.options.threshold = percent / 100;
  }
  if (cl.has(kFailOnFlag)) {
    auto failOn = sessions::parseFailOn(cl.get(kFailOnFlag));
    if (!failOn)
      return failOn.status();
    flags.failOn = *failOn;
  }
  return flags;
}

ral::StatusOr<sessions::ComparisonResult> compareStoredRuns(profiler::Store &store,
                                                            profiler::Store *baselineStore,
                                                            int64_t baselineId,
                                                            const profiler::RunData &candidateRun,
                                                            const profiler::CompareOptions &options,
                                                            bool storeVerdicts) {
  auto baseline = sessions::loadTrials(baselineStore ? *baselineStore : store, baselineId);
  if (!baseline)
    return baseline.status();
  auto candidate = sessions::loadTrials(store, candidateRun);
  if (!candidate)
    return candidate.status();
  sessions::ComparisonResult result;
  result.baseline = "run " + std::to_string(baselineId);
  result.candidate = "run " + std::to_string(candidateRun.summary.id);
  result.baselineRunId = baselineId;
  result.candidateRunId = candidateRun.summary.id;
  result.comparison = sessions::compareTrials(*baseline, *candidate, options);
  result.load = sessions::loadOf(*baseline, *candidate);
  if (storeVerdicts && !baselineStore)
    if (ral::Status s = sessions::storeComparison(store, *baseline, *candidate, *result.comparison,
                                                  result.load.loaded);
        !s)
      return s;
  return result;
}

ral::Status emitReport(const CommandLine &cl, const nlohmann::json &report) {
  if (cl.has("--json"))
    std::printf("%s\n", report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  else
    std::fputs(sessions::renderMarkdown(report).c_str(), stdout);
  return cl.has("--report") ? sessions::writeReport(report, cl.get("--report")) : ral::Status();
}

int applyGate(const char *command, const CompareFlags &flags,
              const sessions::ComparisonResult &result) {
  if (!flags.failOn)
    return 0;
  if (!result.comparison) {
    std::fprintf(stderr, "%s: gate: nothing compared (%s)\n", command, result.error.c_str());
    return 2;
  }
  const sessions::RunComparison &c = *result.comparison;
  const char *verdict = profiler::verdictName(c.total.comparison.verdict);
  bool fails = sessions::gateFails(*flags.failOn, c);
  std::fprintf(stderr, "%s: gate %s: %s against %s is %s (%s)%s\n", command,
               fails ? "FAILED" : "passed", result.candidate.c_str(), result.baseline.c_str(),
               verdict, c.total.comparison.reason.c_str(),
               result.load.loaded ? ("; measured under load: " + result.load.note).c_str() : "");
  for (const std::string &row : sessions::regressedRows(c))
    std::fprintf(stderr, "  slower: %s\n", row.c_str());
  return fails ? 1 : 0;
}

} // namespace loupe::app
