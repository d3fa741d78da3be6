//===- TuneCommand.cpp - loupe tune MODEL|SESSION -----------------------------===//
//
// Measures every backend of every op more than one backend runs, keeps the winners as
// per-op overrides in a tuned session and stores them in the profile DB's tuning table, which
// `--backends auto` reads (sessions/Tune.h; docs/cli.md, "loupe tune").
//
//===----------------------------------------------------------------------===//
#include "BackendFlags.h"
#include "CommandLine.h"
#include "CompareCli.h"
#include "loupe/Commands.h"

#include "loupe/Backends/BackendRegistry.h"
#include "loupe/profiler/Store.h"
#include "loupe/sessions/Report.h"
#include "loupe/sessions/Session.h"
#include "loupe/sessions/Tune.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>

using namespace loupe::sessions;
namespace fs = std::filesystem;

namespace loupe::app {

namespace {

int usageError(const std::string &message) {
  std::fprintf(stderr, "loupe tune: %s\n", message.c_str());
  return 2;
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// A session of the model's defaults (what `loupe run MODEL` measures, with a session file's
/// warmup and repetitions), with the backend flags applied.
ral::StatusOr<Session> sessionForModel(const std::string &model, const CommandLine &cl) {
  std::error_code ec;
  if (!fs::is_regular_file(model, ec))
    return ral::invalidArgument("model '" + model + "' does not exist or is not a file");
  Session s;
  s.model = fs::absolute(model).lexically_normal().string();
  s.name = fs::path(model).stem().string();
  compiler::CompileOptions options;
  std::string error;
  if (!applyBackendFlags(cl, options, error))
    return ral::invalidArgument(error);
  s.pipeline = options;
  s.pipeline.target = cl.get("--target", "cpu");
  if (s.pipeline.target != "cpu" && s.pipeline.target != "cuda")
    return ral::invalidArgument("--target expects cpu or cuda, got '" + s.pipeline.target + "'");
  s.run.measure.warmupReps = kFileWarmupReps;
  s.run.measure.reps = kFileReps;
  return s;
}

} // namespace

int tuneCommand(int argc, char **argv, int first) {
  std::set<std::string> valued = {"--db", "--trials", "--try", "--reps", "--report", "-o",
                                  "--target", kThresholdFlag};
  valued.merge(backendFlagNames());
  CommandLine cl(valued, {"--json"});
  std::string error;
  if (!cl.parse(argc, argv, first, error) || cl.positionals().size() != 1)
    return usageError(error.empty() ? "expected exactly one MODEL or SESSION" : error);

  // Every flag and file is checked before anything is compiled or run.
  const std::string input = cl.positionals()[0];
  bool isSession = endsWith(input, ".json");
  auto session = isSession ? loadSession(input) : sessionForModel(input, cl);
  if (!session)
    return usageError(session.status().message());
  for (const std::string &flag : backendFlagNames())
    if (isSession && cl.has(flag))
      return usageError(flag + " applies to a MODEL; a session says its own pipeline");
  TuneOptions options;
  auto flags = readCompareFlags(cl);
  if (!flags)
    return usageError(flags.status().message());
  options.compare = flags->options;
  if (!cl.getInt("--trials", options.trials, error) ||
      (cl.has("--trials") && (options.trials < 1 || options.trials > 1000)))
    return usageError(error.empty() ? "--trials expects 1 to 1000" : error);
  int reps = 0;
  if (!cl.getInt("--reps", reps, error) || (cl.has("--reps") && reps < 1))
    return usageError(error.empty() ? "--reps expects a count >= 1" : error);
  if (reps > 0)
    session->run.measure.reps = reps;
  const backends::BackendRegistry &registry = backends::BackendRegistry::global();
  for (const std::string &b : backends::parseBackendList(cl.get("--try")))
    if (!registry.find(b))
      return usageError("--try: unknown backend '" + b + "'");
    else
      options.backends.push_back(b);
  std::string tunedPath = cl.get("-o", (fs::path(input).stem().string()) + ".tuned.json");
  if (isSession && tunedPath == input)
    tunedPath = (fs::path(input).parent_path() / fs::path(input).stem()).string() + ".tuned.json";
  if (!endsWith(tunedPath, ".json"))
    return usageError("-o names the tuned session: a .json file, got '" + tunedPath + "'");
  if (ral::Status s = checkReportPath(tunedPath, input); !s)
    return usageError("-o: " + s.message());
  if (cl.has("--report"))
    if (ral::Status s = checkReportPath(cl.get("--report"), input); !s)
      return usageError(s.message());
  std::string db = cl.get("--db");
  if (db.empty()) {
    auto path = profiler::defaultDatabasePath();
    if (!path)
      return usageError(path.status().message());
    db = *path;
  }

  TuneResult result = tuneSession(
      *session, db, options, [](const std::string &variant, const std::string &stage, double f) {
        std::fprintf(stderr, "\r%s [%-7s] %3.0f%%", variant.c_str(), stage.c_str(), 100 * f);
        if (f >= 1)
          std::fputc('\n', stderr);
      });
  if (!result.error.empty())
    std::fprintf(stderr, "loupe tune: %s\n", result.error.c_str());
  if (result.exitCode > profiler::kExitMismatch)
    return result.exitCode;
  if (ral::Status s = saveSession(result.tuned, tunedPath); !s)
    return usageError(s.message());

  nlohmann::json report = buildTuneReport(result, session->model, tunedPath);
  report["device"] = result.deviceName;
  if (ral::Status s = emitReport(cl, report); !s)
    return usageError(s.message());
  std::fprintf(stderr, "tuned session: %s (%.1f s)\n", tunedPath.c_str(), result.seconds);
  return result.exitCode;
}

} // namespace loupe::app
