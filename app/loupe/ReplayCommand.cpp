//===- ReplayCommand.cpp - loupe replay ---------------------------------------===//
#include "CommandLine.h"
#include "loupe/Commands.h"

#include "loupe/profiler/Store.h"
#include "loupe/sessions/Replay.h"
#include "loupe/sessions/Report.h"
#include "loupe/sessions/Runner.h"
#include "loupe/sessions/Session.h"

#include <nlohmann/json.hpp>

#include <cstdio>

using namespace loupe::sessions;

namespace loupe::app {

int replayCommand(int argc, char **argv, int first) {
  CommandLine cl({"--db", "--report"}, {});
  std::string error;
  if (!cl.parse(argc, argv, first, error) || cl.positionals().size() != 1) {
    std::fprintf(stderr, "loupe replay: %s\n",
                 error.empty() ? "expected exactly one SESSION" : error.c_str());
    return 2;
  }
  auto session = loadSession(cl.positionals()[0]);
  if (!session) {
    std::fprintf(stderr, "loupe replay: %s\n", session.status().message().c_str());
    return 2;
  }
  if (cl.has("--report"))
    if (ral::Status s = checkReportPath(cl.get("--report"), cl.positionals()[0]); !s) {
      std::fprintf(stderr, "loupe replay: %s\n", s.message().c_str());
      return 2;
    }
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
      *session, db, [named](const std::string &variant, const std::string &stage, double fraction) {
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
  return replay.exitCode();
}

} // namespace loupe::app
