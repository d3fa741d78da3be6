//===- DbCommand.cpp - loupe db list|show|import-nsys|merge|export|gc ---------===//
//
// The profile DB from the shell (docs/cli.md, docs/db-schema.md):
//   loupe db list [--db DB] [--model TEXT] [--json]   the runs, newest first
//   loupe db show RUN [--db DB] [--json]               one run: where it ran, how it was
//                                                      measured, its dispatches by median
//   loupe db import-nsys FILE.sqlite [--db DB]         an Nsight Systems SQLite export
//                                                      (`nsys export --type sqlite`) as a new run
// list and show open an existing DB only (never create one); like every read-write open they
// mark the runs of dead processes 'interrupted'. import-nsys reads the export completely
// before opening the DB: a bad export leaves the DB untouched (exit code 2).
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "CompareCli.h"
#include "DbMaintenance.h"
#include "RunCli.h"
#include "loupe/Commands.h"

#include "loupe/profiler/NsysImport.h"
#include "loupe/profiler/Run.h"
#include "loupe/profiler/RunProvenance.h"
#include "loupe/profiler/Statistics.h"
#include "loupe/profiler/Store.h"
#include "loupe/visualizer/Format.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace loupe::app {

namespace {

const char *const kUsage =
    "usage: loupe db list [--db DB] [--model TEXT] [--json]   the runs, newest first\n"
    "       loupe db show RUN [--db DB] [--json]               one run and its dispatches\n"
    "       loupe db import-nsys FILE.sqlite [--db DB]         an `nsys export --type sqlite`\n"
    "                                                          file as a new run\n"
    "       loupe db merge OUT.db IN.db...                     the runs of the inputs into OUT\n"
    "       loupe db export RUN... [--db DB] -o OUT.db|OUT.csv the runs and their trials\n"
    "       loupe db gc [--db DB] [--keep N] [--older-than DAYS] [--failed] [--dry-run]\n"
    "  DB: the default profile DB when not given (docs/db-schema.md)\n";

int fail(const std::string &sub, const ral::Status &s) {
  std::fprintf(stderr, "loupe db %s: %s\n", sub.c_str(), s.message().c_str());
  return profiler::exitCodeFor(s);
}

/// --db, else the default profile DB.
ral::StatusOr<std::string> databasePath(const CommandLine &cl) {
  if (!cl.get("--db").empty())
    return cl.get("--db");
  return profiler::defaultDatabasePath();
}

nlohmann::json summaryJson(const profiler::RunSummary &r) {
  nlohmann::json j = {{"run_id", r.id},
                      {"status", profiler::runStatusName(r.status)},
                      {"model", r.model},
                      {"device_kind", r.deviceKind},
                      {"device", r.deviceName},
                      {"started_ns", r.startedNs},
                      {"finished_ns", r.finishedNs ? nlohmann::json(r.finishedNs) : nullptr}};
  if (!r.session.empty())
    j["session"] = r.session;
  if (!r.variant.empty())
    j["variant"] = r.variant;
  if (!r.error.empty())
    j["error"] = r.error;
  return j;
}

int list(const CommandLine &cl) {
  auto store = openExistingDb(cl.get("--db"));
  if (!store)
    return fail("list", store.status());
  auto runs = store->listRuns(cl.get("--model"));
  if (!runs)
    return fail("list", runs.status());
  if (cl.has("--json")) {
    nlohmann::json out = nlohmann::json::array();
    for (const profiler::RunSummary &r : *runs)
      out.push_back(summaryJson(r));
    std::printf("%s\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return 0;
  }
  std::printf("%6s  %-19s  %-11s  %-5s  %-28s  %s\n", "run", "started", "status", "kind",
              "device", "model [session:variant]");
  for (const profiler::RunSummary &r : *runs) {
    std::string where = r.model;
    if (!r.session.empty() || !r.variant.empty())
      where += " [" + r.session + ":" + r.variant + "]";
    std::string started = visualizer::formatWallTime(r.startedNs);
    std::printf("%6lld  %-19s  %-11s  %-5s  %-28.28s  %s\n", static_cast<long long>(r.id),
                started.c_str(), profiler::runStatusName(r.status), r.deviceKind.c_str(),
                r.deviceName.c_str(), where.c_str());
  }
  std::printf("%zu runs in %s\n", runs->size(), store->path().c_str());
  return 0;
}

/// Each dispatch's samples summarised, by median, longest first.
struct DispatchTime {
  const profiler::DispatchRecord *dispatch;
  profiler::Summary summary;
};

std::vector<DispatchTime> dispatchTimes(const profiler::RunData &data) {
  std::vector<DispatchTime> out;
  for (const profiler::DispatchRecord &d : data.dispatches)
    out.push_back({&d, profiler::summarize(data.durations(d.dispatchId))});
  std::stable_sort(out.begin(), out.end(), [](const DispatchTime &a, const DispatchTime &b) {
    return a.summary.median > b.summary.median;
  });
  return out;
}

int show(const CommandLine &cl) {
  if (cl.positionals().size() != 1)
    return fail("show", ral::invalidArgument("expected one RUN id"));
  auto runId = parseRunId(cl.positionals()[0]);
  if (!runId)
    return fail("show", runId.status());
  auto store = openExistingDb(cl.get("--db"));
  if (!store)
    return fail("show", store.status());
  auto data = store->loadRun(*runId);
  if (!data)
    return fail("show", data.status());
  profiler::Summary whole = profiler::summarize(data->durations(profiler::kWholeRep));
  std::vector<DispatchTime> times = dispatchTimes(*data);

  if (cl.has("--json")) {
    nlohmann::json j = summaryJson(data->summary);
    j["config"] = nlohmann::json::parse(data->configJson, nullptr, false);
    if (!data->host.empty()) {
      j["host"] = data->host;
      j["pid"] = data->pid;
    }
    j["environment"] = nlohmann::json::parse(data->environmentJson, nullptr, false);
    if (data->measurement)
      j["measurement"] = measurementJson(*data->measurement, std::nullopt);
    if (whole.count)
      j["median_ns"] = whole.median, j["iqr_ns"] = whole.iqr();
    nlohmann::json dispatches = nlohmann::json::array();
    for (const DispatchTime &t : times)
      dispatches.push_back({{"id", t.dispatch->dispatchId}, {"name", t.dispatch->name},
                            {"backend", t.dispatch->backend}, {"loc", t.dispatch->loc},
                            {"samples", t.summary.count}, {"median_ns", t.summary.median},
                            {"iqr_ns", t.summary.iqr()}});
    j["dispatches"] = dispatches;
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return 0;
  }
  const profiler::RunSummary &r = data->summary;
  std::printf("run %lld: %s, %s %s, started %s\n", static_cast<long long>(r.id),
              profiler::runStatusName(r.status), r.deviceKind.c_str(), r.deviceName.c_str(),
              visualizer::formatWallTime(r.startedNs).c_str());
  std::string session =
      r.session.empty() ? "" : " (session " + r.session + ", variant " + r.variant + ")";
  std::printf("model: %s%s\n", r.model.c_str(), session.c_str());
  if (!data->host.empty()) {
    std::string environment = profiler::describeEnvironment(data->environmentJson);
    std::printf("on %s (pid %lld)%s%s\n", data->host.c_str(), static_cast<long long>(data->pid),
                environment.empty() ? "" : ": ", environment.c_str());
  }
  if (data->measurement)
    std::printf("measured: %s\n", measurementText(*data->measurement, std::nullopt).c_str());
  if (data->measurement && !data->measurement->kernelTiming.empty())
    std::printf("kernel timings: %s\n", data->measurement->kernelTiming.c_str());
  if (whole.count)
    std::printf("repetition: median %.3f ms, IQR %.3f ms over %zu reps\n", whole.median / 1e6,
                whole.iqr() / 1e6, whole.count);
  if (!r.error.empty())
    std::printf("error: %s\n", r.error.c_str());
  for (const profiler::CheckRecord &c : data->checks)
    std::printf("check output %lld: %s (max abs err %g)\n", static_cast<long long>(c.outputIdx),
                c.passed ? "pass" : "FAIL", c.maxAbsErr);
  if (!times.empty()) {
    std::printf("%4s  %-34s %-9s %-28s %8s %12s %12s\n", "id", "dispatch", "backend", "loc",
                "samples", "median us", "IQR us");
    for (const DispatchTime &t : times)
      std::printf("%4lld  %-34.34s %-9s %-28.28s %8zu %12.2f %12.2f\n",
                  static_cast<long long>(t.dispatch->dispatchId), t.dispatch->name.c_str(),
                  t.dispatch->backend.c_str(), t.dispatch->loc.c_str(), t.summary.count,
                  t.summary.median / 1e3, t.summary.iqr() / 1e3);
  }
  for (const profiler::FallbackRecord &f : data->fallbacks)
    std::printf("fallback: dispatch %lld: %s failed, ran %s instead (%lld executions): %s\n",
                static_cast<long long>(f.dispatchId), f.failedKernel.c_str(),
                f.fallbackKernel.c_str(), static_cast<long long>(f.executions),
                f.message.c_str());
  return 0;
}

int importNsys(const CommandLine &cl) {
  if (cl.positionals().size() != 1)
    return fail("import-nsys", ral::invalidArgument("expected exactly one FILE.sqlite"));
  auto db = databasePath(cl);
  if (!db)
    return fail("import-nsys", db.status());
  const std::string &file = cl.positionals()[0];
  auto result = profiler::importNsys(file, *db);
  if (!result)
    return fail("import-nsys", result.status());
  for (const std::string &w : result->warnings)
    std::fprintf(stderr, "loupe db import-nsys: warning: %s\n", w.c_str());
  std::printf("imported %s as run %lld of %s: %zu kernels, %zu copies/sets on %s\n", file.c_str(),
              static_cast<long long>(result->runId), db->c_str(), result->kernels,
              result->memcpys, result->device.c_str());
  return 0;
}

} // namespace

int dbCommand(int argc, char **argv, int first) {
  if (first >= argc || !std::strcmp(argv[first], "--help") || !std::strcmp(argv[first], "-h")) {
    std::fputs(kUsage, first >= argc ? stderr : stdout);
    return first >= argc ? 2 : 0;
  }
  std::string sub = argv[first];
  if (sub != "list" && sub != "show" && sub != "import-nsys" && sub != "merge" &&
      sub != "export" && sub != "gc") {
    std::fprintf(stderr, "loupe db: unknown subcommand '%s'\n%s", sub.c_str(), kUsage);
    return 2;
  }
  std::set<std::string> valued = {"--db"};
  std::set<std::string> flags;
  if (sub == "list")
    valued.insert("--model");
  if (sub == "list" || sub == "show")
    flags.insert("--json");
  if (sub == "merge")
    valued.clear();
  if (sub == "export")
    valued.insert("-o");
  if (sub == "gc") {
    valued.insert({"--keep", "--older-than"});
    flags.insert({"--failed", "--dry-run"});
  }
  CommandLine cl(valued, flags);
  std::string error;
  if (!cl.parse(argc, argv, first + 1, error)) {
    std::fprintf(stderr, "loupe db %s: %s\n%s", sub.c_str(), error.c_str(), kUsage);
    return 2;
  }
  if (sub == "list" && !cl.positionals().empty()) {
    std::fprintf(stderr, "loupe db list: unexpected '%s'\n%s", cl.positionals()[0].c_str(),
                 kUsage);
    return 2;
  }
  if (sub == "gc" && !cl.positionals().empty()) {
    std::fprintf(stderr, "loupe db gc: unexpected '%s'\n%s", cl.positionals()[0].c_str(), kUsage);
    return 2;
  }
  if (sub == "merge")
    return dbMerge(cl);
  if (sub == "export")
    return dbExport(cl);
  if (sub == "gc")
    return dbGc(cl);
  return sub == "list" ? list(cl) : sub == "show" ? show(cl) : importNsys(cl);
}

} // namespace loupe::app
