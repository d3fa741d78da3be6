//===- CompareCli.h - What `loupe replay` and `loupe compare` share -*- C++ -*-===//
//
// Stored runs named on the command line (RUN ids, existing profile DBs) and the comparison
// flags: --threshold PCT and --fail-on VERDICTS (the CI gate, docs/ci.md). Everything here
// is checked before any compile or run starts.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_APP_COMPARECLI_H
#define LOUPE_APP_COMPARECLI_H

#include "CommandLine.h"

#include "loupe/profiler/Store.h"
#include "loupe/sessions/Replay.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>

namespace loupe::app {

/// A run id as the user typed it: a whole number >= 1. kInvalidArgument otherwise.
ral::StatusOr<int64_t> parseRunId(const std::string &text, const std::string &what = "RUN");

/// `path`, or the default profile DB when empty; the DB must exist (kNotFound otherwise: these
/// commands never create one).
ral::StatusOr<profiler::Store> openExistingDb(const std::string &path);

/// --threshold PCT (> 0 and < 1000, in percent) and --fail-on LIST.
struct CompareFlags {
  profiler::CompareOptions options = sessions::defaultCompareOptions();
  std::optional<sessions::FailOn> failOn; ///< Absent: the verdicts never fail the command.
};
inline const char *const kThresholdFlag = "--threshold";
inline const char *const kFailOnFlag = "--fail-on";
ral::StatusOr<CompareFlags> readCompareFlags(const CommandLine &cl);

/// Compares stored run `candidate` (loaded from `store`) with `baselineId` of `baselineStore` (the same
/// store when null), each with the trials of its batch, paired when one replay ran both; with
/// `storeVerdicts`, the verdicts are stored in `store` when both runs are in it.
ral::StatusOr<sessions::ComparisonResult> compareStoredRuns(profiler::Store &store,
                                                            profiler::Store *baselineStore,
                                                            int64_t baselineId,
                                                            const profiler::RunData &candidate,
                                                            const profiler::CompareOptions &options,
                                                            bool storeVerdicts);

/// Prints `report` on stdout (the JSON document with --json, else its Markdown) and writes it
/// to --report OUT when given (in OUT's format). The write's error, else ok.
ral::Status emitReport(const CommandLine &cl, const nlohmann::json &report);

/// Prints the gate's outcome on stderr for `command` ("loupe replay"): the whole-model
/// verdict and the regressed rows. 1 when the gate fails, else 0.
int applyGate(const char *command, const CompareFlags &flags,
              const sessions::ComparisonResult &result);

} // namespace loupe::app

#endif // LOUPE_APP_COMPARECLI_H
