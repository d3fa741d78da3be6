//===- ReplayCommand.cpp - loupe replay ---------------------------------------===//
#include "CommandLine.h"
#include "CompareCli.h"
#include "loupe/Commands.h"

#include "loupe/profiler/Store.h"
#include "loupe/sessions/Replay.h"
#include "loupe/sessions/Report.h"
#include "loupe/sessions/Runner.h"
#include "loupe/sessions/Session.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

using namespace loupe::sessions;

namespace loupe::app {

namespace {

int usageError(const std::string &message) {
  std::fprintf(stderr, "loupe replay: %s\n", message.c_str());
  return 2;
}

/// "I/N" with 1 <= I <= N: shard I of N (1-based on the command line).
bool parseShard(const std::string &text, int &index, int &count) {
  size_t slash = text.find('/');
  if (slash == std::string::npos)
    return false;
  try {
    size_t a = 0, b = 0;
    index = std::stoi(text.substr(0, slash), &a);
    count = std::stoi(text.substr(slash + 1), &b);
    return a == slash && b == text.size() - slash - 1 && count >= 1 && index >= 1 &&
           index <= count;
  } catch (...) {
    return false;
  }
}

} // namespace

int replayCommand(int argc, char **argv, int first) {
  CommandLine cl({"--db", "--report", "--trials", kThresholdFlag, kFailOnFlag, "--baseline",
                  "--baseline-db", "--shard"},
                 {});
  std::string error;
  if (!cl.parse(argc, argv, first, error) || cl.positionals().size() != 1)
    return usageError(error.empty() ? "expected exactly one SESSION" : error);

  // Every flag and file is checked before anything is compiled or run.
  auto session = loadSession(cl.positionals()[0]);
  if (!session)
    return usageError(session.status().message());
  if (cl.has("--report"))
    if (ral::Status s = checkReportPath(cl.get("--report"), cl.positionals()[0]); !s)
      return usageError(s.message());
  auto flags = readCompareFlags(cl);
  if (!flags)
    return usageError(flags.status().message());
  ReplayOptions options;
  options.compare = flags->options;
  if (!cl.getInt("--trials", options.trials, error) ||
      (cl.has("--trials") && (options.trials < 1 || options.trials > 1000)))
    return usageError(error.empty() ? "--trials expects 1 to 1000" : error);
  if (cl.has("--shard") && !parseShard(cl.get("--shard"), options.shardIndex, options.shardCount))
    return usageError("--shard expects I/N with 1 <= I <= N, got '" + cl.get("--shard") + "'");
  options.shardIndex -= cl.has("--shard") ? 1 : 0;
  if (cl.has("--baseline-db") && !cl.has("--baseline"))
    return usageError("--baseline-db needs --baseline RUN");
  if (cl.has("--baseline")) {
    auto id = parseRunId(cl.get("--baseline"), "--baseline");
    if (!id)
      return usageError(id.status().message());
    auto store = openExistingDb(cl.has("--baseline-db") ? cl.get("--baseline-db") : cl.get("--db"));
    if (!store)
      return usageError(store.status().message());
    auto trials = loadTrials(*store, *id);
    if (!trials)
      return usageError(trials.status().message());
    options.baseline = std::move(*trials);
    options.baselineName = "run " + std::to_string(*id);
  }
  if (flags->failOn && session->compare.size() != 2 && !options.baseline)
    return usageError("--fail-on needs something to compare: a session with \"compare\", or "
                      "--baseline RUN");
  std::string db = cl.get("--db");
  if (db.empty()) {
    auto path = profiler::defaultDatabasePath();
    if (!path) {
      std::fprintf(stderr, "loupe replay: %s\n", path.status().message().c_str());
      return 3;
    }
    db = *path;
  }

  // Every variant is compiled, run, checked and stored; progress names the variant when
  // there are several.
  bool named = !session->variants.empty();
  ReplayResult replay = replaySession(
      *session, db, options,
      [named](const std::string &variant, const std::string &stage, double fraction) {
        std::fprintf(stderr, "\r%s[%-7s] %3.0f%%", named ? (variant + " ").c_str() : "",
                     stage.c_str(), 100 * fraction);
        if (fraction >= 1)
          std::fputc('\n', stderr);
      });
  nlohmann::json report = buildReport(replay, *session);
  std::string md = renderMarkdown(report);
  std::fputs(md.c_str(), stdout);
  if (cl.has("--report")) {
    if (ral::Status s = writeReport(report, cl.get("--report")); !s) {
      std::fprintf(stderr, "loupe replay: %s\n", s.message().c_str());
      return 2;
    }
    std::fprintf(stderr, "report: %s\n", cl.get("--report").c_str());
  }
  for (const VariantRun &r : replay.runs)
    if (r.outcome.compile)
      for (const std::string &w : r.outcome.compile->warnings)
        std::fprintf(stderr, "loupe replay: %swarning: %s\n",
                     named ? ("variant '" + r.variant.name + "': ").c_str() : "", w.c_str());
  for (const VariantRun &r : replay.runs)
    if (!r.outcome.error.empty())
      std::fprintf(stderr, "loupe replay: %s%s\n",
                   named ? ("variant '" + r.variant.name + "': ").c_str() : "",
                   r.outcome.error.c_str());
  int code = replay.exitCode();
  if (code > profiler::kExitMismatch)
    return code;
  int gate = replay.compare ? applyGate("loupe replay", *flags, *replay.compare) : 0;
  return std::max(code, gate);
}

} // namespace loupe::app
