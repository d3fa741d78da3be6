//===- DbMaintenance.cpp - loupe db merge|export|gc ---------------------------===//
//
// Moving runs between profile DBs and trimming one (docs/cli.md, docs/ci.md):
//   merge  combines the DBs of CI shards (`loupe replay --shard I/N`) into one;
//   export hands a baseline (a run and its batch's trials) to another machine, or its samples
//          to a spreadsheet;
//   gc     keeps a long-lived DB small.
// A run is the same run in two DBs when its start time, model, session and variant agree;
// merge never copies it twice. Inputs are opened read-only and never change.
//
//===----------------------------------------------------------------------===//
#include "DbMaintenance.h"

#include "CompareCli.h"

#include "loupe/profiler/Run.h"
#include "loupe/profiler/Store.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

namespace loupe::app {

namespace {

int fail(const char *sub, const ral::Status &s) {
  std::fprintf(stderr, "loupe db %s: %s\n", sub, s.message().c_str());
  return profiler::exitCodeFor(s);
}

using RunKey = std::tuple<int64_t, std::string, std::string, std::string>;
RunKey keyOf(const profiler::RunSummary &r) {
  return {r.startedNs, r.model, r.session, r.variant};
}

bool samePath(const std::string &a, const std::string &b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec);
}

/// Copies the runs `ids` of `from` into `to` (oldest first), skipping the runs `to` holds
/// already, then the verdicts whose two runs are both in `to`. `copied` counts new runs.
ral::Status copyRuns(profiler::Store &from, profiler::Store &to, std::vector<int64_t> ids,
                     int64_t &copied, int64_t &present) {
  auto existing = to.listRuns();
  if (!existing)
    return existing.status();
  std::map<RunKey, int64_t> inTarget;
  for (const profiler::RunSummary &r : *existing)
    inTarget[keyOf(r)] = r.id;
  std::sort(ids.begin(), ids.end());
  std::map<int64_t, int64_t> newId;
  for (int64_t id : ids) {
    auto run = from.loadRun(id);
    if (!run)
      return run.status();
    if (auto it = inTarget.find(keyOf(run->summary)); it != inTarget.end()) {
      newId[id] = it->second;
      ++present;
      continue;
    }
    auto added = to.addCopiedRun(*run);
    if (!added)
      return added.status();
    newId[id] = *added;
    inTarget[keyOf(run->summary)] = *added;
    ++copied;
  }
  std::set<int64_t> seen;
  for (int64_t id : ids) {
    auto verdicts = from.comparisons(id);
    if (!verdicts)
      return verdicts.status();
    for (profiler::ComparisonRecord c : *verdicts) {
      if (!seen.insert(c.id).second || !newId.count(c.baselineRunId) ||
          !newId.count(c.candidateRunId))
        continue;
      c.baselineRunId = newId[c.baselineRunId];
      c.candidateRunId = newId[c.candidateRunId];
      if (auto s = to.addComparison(c); !s)
        return s.status();
    }
  }
  return ral::Status::ok();
}

} // namespace

int dbMerge(const CommandLine &cl) {
  const std::vector<std::string> &args = cl.positionals();
  if (args.size() < 2)
    return fail("merge", ral::invalidArgument("expected OUT.db IN.db [IN.db ...]"));
  std::vector<profiler::Store> inputs;
  for (size_t i = 1; i < args.size(); ++i) {
    if (samePath(args[i], args[0]))
      return fail("merge", ral::invalidArgument(args[i] + ": is the output DB itself"));
    profiler::Store::OpenOptions readOnly;
    readOnly.readOnly = true;
    auto in = profiler::Store::open(args[i], readOnly);
    if (!in)
      return fail("merge", in.status());
    inputs.push_back(std::move(*in));
  }
  auto out = profiler::Store::open(args[0]);
  if (!out)
    return fail("merge", out.status());
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto runs = inputs[i].listRuns();
    if (!runs)
      return fail("merge", runs.status());
    std::vector<int64_t> ids;
    for (const profiler::RunSummary &r : *runs)
      if (r.status != profiler::RunStatus::Running)
        ids.push_back(r.id);
    int64_t copied = 0, present = 0;
    if (ral::Status s = copyRuns(inputs[i], *out, ids, copied, present); !s)
      return fail("merge", s);
    // The shard's tuning rows too (a newer row of the same signature and device wins).
    auto tuning = inputs[i].allTuning();
    if (!tuning)
      return fail("merge", tuning.status());
    if (ral::Status s = out->putTuning(*tuning); !s)
      return fail("merge", s);
    std::printf("%s: %lld runs copied, %lld already in %s; %zu tuning rows\n", args[i + 1].c_str(),
                static_cast<long long>(copied), static_cast<long long>(present), args[0].c_str(),
                tuning->size());
  }
  return 0;
}

int dbExport(const CommandLine &cl) {
  std::string outPath = cl.get("-o");
  std::string ext = std::filesystem::path(outPath).extension().string();
  if (outPath.empty() || (ext != ".db" && ext != ".csv"))
    return fail("export", ral::invalidArgument("-o OUT.db or OUT.csv is required"));
  if (cl.positionals().empty())
    return fail("export", ral::invalidArgument("expected RUN ids"));
  std::error_code ec;
  if (std::filesystem::exists(outPath, ec))
    return fail("export", ral::invalidArgument(outPath + ": exists; not replacing it"));
  std::vector<int64_t> requested;
  for (const std::string &text : cl.positionals()) {
    auto id = parseRunId(text);
    if (!id)
      return fail("export", id.status());
    requested.push_back(*id);
  }
  auto store = openExistingDb(cl.get("--db"));
  if (!store)
    return fail("export", store.status());
  std::set<int64_t> ids; // each run with the trials of its batch
  for (int64_t id : requested) {
    auto trials = store->trialRunIds(id);
    if (!trials)
      return fail("export", trials.status());
    ids.insert(trials->begin(), trials->end());
  }
  if (ext == ".db") {
    auto out = profiler::Store::open(outPath);
    if (!out)
      return fail("export", out.status());
    int64_t copied = 0, present = 0;
    if (ral::Status s = copyRuns(*store, *out, {ids.begin(), ids.end()}, copied, present); !s)
      return fail("export", s);
    std::printf("exported %lld runs to %s\n", static_cast<long long>(copied), outPath.c_str());
    return 0;
  }
  std::ofstream csv(outPath, std::ios::binary);
  if (!csv)
    return fail("export", ral::invalidArgument(outPath + ": cannot write"));
  csv << "run_id,variant,trial,dispatch_id,dispatch,backend,rep,duration_ns\n";
  for (int64_t id : ids) {
    auto run = store->loadRun(id);
    if (!run)
      return fail("export", run.status());
    std::map<int64_t, const profiler::DispatchRecord *> byId;
    for (const profiler::DispatchRecord &d : run->dispatches)
      byId[d.dispatchId] = &d;
    for (const auto &[dispatch, rows] : run->samples)
      for (const profiler::SampleRecord &s : rows) {
        const profiler::DispatchRecord *d = byId.count(dispatch) ? byId[dispatch] : nullptr;
        csv << id << ',' << run->summary.variant << ',' << run->trial << ',' << dispatch << ','
            << (d ? d->name : std::string("whole repetition")) << ','
            << (d ? d->backend : std::string()) << ',' << s.rep << ',' << s.durationNs() << '\n';
      }
  }
  if (!csv)
    return fail("export", ral::internalError(outPath + ": write failed"));
  std::printf("exported the samples of %zu runs to %s\n", ids.size(), outPath.c_str());
  return 0;
}

int dbGc(const CommandLine &cl) {
  int keep = -1, days = -1;
  std::string error;
  if (!cl.getInt("--keep", keep, error) || !cl.getInt("--older-than", days, error))
    return fail("gc", ral::invalidArgument(error));
  if ((cl.has("--keep") && keep < 0) || (cl.has("--older-than") && days < 0))
    return fail("gc", ral::invalidArgument("--keep and --older-than take a number >= 0"));
  if (!cl.has("--keep") && !cl.has("--older-than") && !cl.has("--failed"))
    return fail("gc", ral::invalidArgument("say what to delete: --keep N, --older-than DAYS "
                                           "and/or --failed"));
  auto store = openExistingDb(cl.get("--db"));
  if (!store)
    return fail("gc", store.status());
  auto runs = store->listRuns(); // newest first
  if (!runs)
    return fail("gc", runs.status());
  int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  std::vector<int64_t> doomed;
  for (size_t i = 0; i < runs->size(); ++i) {
    const profiler::RunSummary &r = (*runs)[i];
    if (r.status == profiler::RunStatus::Running)
      continue; // another process may be writing it
    bool old = days >= 0 && now - r.startedNs > int64_t(days) * 86400 * 1000000000LL;
    bool beyond = keep >= 0 && i >= static_cast<size_t>(keep);
    bool failed = cl.has("--failed") && (r.status == profiler::RunStatus::Failed ||
                                         r.status == profiler::RunStatus::Interrupted);
    if (old || beyond || failed)
      doomed.push_back(r.id);
  }
  if (cl.has("--dry-run")) {
    for (int64_t id : doomed)
      std::printf("would delete run %lld\n", static_cast<long long>(id));
    return 0;
  }
  auto deleted = store->deleteRuns(doomed);
  if (!deleted)
    return fail("gc", deleted.status());
  std::printf("deleted %lld runs from %s\n", static_cast<long long>(*deleted),
              store->path().c_str());
  return 0;
}

} // namespace loupe::app
