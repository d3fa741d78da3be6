//===- Tune.cpp - loupe tune: every backend of every op measured, winners kept ----===//
#include "loupe/sessions/Tune.h"

#include "loupe/Backends/BackendRegistry.h"
#include "loupe/profiler/CpuCollector.h"
#include "loupe/profiler/Store.h"
#include "loupe/sessions/Report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

using nlohmann::json;

namespace loupe::sessions {

namespace {

constexpr const char *kTryPrefix = "try-";
constexpr const char *kTunedVariant = "tuned";

bool contains(const std::vector<std::string> &list, const std::string &item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

/// "FASTER -41.0% [-45.2%, -38.8%]".
std::string verdictText(const profiler::Comparison &c) {
  return profiler::verdictName(c.verdict) + std::string(" ") + changeText(c);
}

/// The signatures of the base compile that more than one backend may run, with the backends
/// to try for each (`wanted`, or every candidate).
std::vector<TunedSignature> tunableSignatures(const compiler::CompileResult &compile,
                                              const std::vector<std::string> &wanted,
                                              std::map<std::string, std::vector<std::string>> &tryOf) {
  std::vector<TunedSignature> out;
  std::map<std::string, size_t> indexOf;
  for (const compiler::DispatchSummary &d : compile.dispatches) {
    if (d.signature.empty() || d.candidates.size() < 2 || d.selectedLoc.empty())
      continue;
    auto [it, fresh] = indexOf.emplace(d.signature, out.size());
    if (fresh) {
      TunedSignature s;
      s.signature = d.signature;
      s.op = d.signature.substr(0, d.signature.find(':'));
      s.defaultBackend = s.backend = d.backend;
      out.push_back(std::move(s));
    }
    TunedSignature &s = out[it->second];
    if (!contains(s.locs, d.selectedLoc))
      s.locs.push_back(d.selectedLoc);
    for (const std::string &b : d.candidates)
      if (b != s.defaultBackend && (wanted.empty() || contains(wanted, b)) &&
          !contains(tryOf[s.signature], b))
        tryOf[s.signature].push_back(b);
  }
  return out;
}

/// The settings with every source op of `locs` given to its backend.
Variant withOverrides(const Variant &from, std::string name,
                      const std::map<std::string, std::string> &overrides) {
  Variant v = from;
  v.name = std::move(name);
  for (const auto &[loc, backend] : overrides)
    v.pipeline.backendOverrides[loc] = backend;
  return v;
}

/// Runs `runs` as `trials` interleaved trials under `plan` (each variant's trial t before any
/// trial t + 1), skipping the trials already run and the variants that failed.
void runInterleaved(const Session &session, std::vector<VariantRun *> runs, const TrialPlan &plan) {
  for (int t = 0; t < plan.trials; ++t)
    for (VariantRun *run : runs)
      if (static_cast<int>(run->trials.runIds.size()) == t &&
          (t == 0 || run->outcome.exitCode <= kExitMismatch))
        runTrial(session, *run, t, plan);
}

/// Picks the backend of `s` from its measured rows: the fastest whose verdict is FASTER.
void choose(TunedSignature &s) {
  const BackendTime *best = nullptr;
  std::string others;
  for (const BackendTime &m : s.measured) {
    if (m.backend == s.defaultBackend)
      continue;
    const profiler::Comparison &c = m.row.comparison;
    others += (others.empty() ? "" : ", ") + m.backend + " " +
              (m.note.empty() ? verdictText(c) : m.note);
    if (m.note.empty() && c.verdict == profiler::Verdict::Faster &&
        (!best || c.candidateMedian < best->row.comparison.candidateMedian))
      best = &m;
  }
  if (best) {
    s.backend = best->backend;
    s.why = best->backend + ": " + verdictText(best->row.comparison) + " vs " + s.defaultBackend;
  } else {
    s.why = s.defaultBackend + " kept: " + (others.empty() ? "nothing else to try" : others);
  }
}

/// One signature's row of the tune report (and of the tuning table's measured_json).
json signatureJson(const TunedSignature &s) {
  auto finite = [](double x) { return std::isfinite(x) ? json(x) : json(); };
  json measured = json::array();
  for (const BackendTime &m : s.measured) {
    const profiler::Comparison &c = m.row.comparison;
    bool isDefault = m.backend == s.defaultBackend;
    measured.push_back({{"backend", m.backend},
                        {"median_ns", c.candidate.count ? finite(c.candidateMedian) : json()},
                        {"change", isDefault ? json(0.0) : finite(c.change)},
                        {"change_low", isDefault ? json() : finite(c.changeLow)},
                        {"change_high", isDefault ? json() : finite(c.changeHigh)},
                        {"verdict", isDefault ? "default" : profiler::verdictName(c.verdict)},
                        {"trials", c.candidateTrials},
                        {"source_ops", m.row.loc},
                        {"reason", isDefault ? "" : c.reason},
                        {"note", m.note}});
  }
  return {{"signature", s.signature}, {"op", s.op}, {"locs", s.locs},
          {"default", s.defaultBackend}, {"backend", s.backend}, {"why", s.why},
          {"measured", measured}};
}

/// The tuning table's rows for `result`.
std::vector<profiler::TuningRecord> tuningRecords(const TuneResult &result,
                                                  const std::string &model,
                                                  const std::string &batch) {
  std::vector<profiler::TuningRecord> out;
  for (const TunedSignature &s : result.signatures)
    out.push_back({s.signature, result.deviceKind, result.deviceName, s.op, s.backend,
                   s.defaultBackend, signatureJson(s)["measured"].dump(), s.locs.front(), model,
                   batch, 0});
  return out;
}

} // namespace

TuneResult tuneSession(const Session &session, const std::string &dbPath,
                       const TuneOptions &options, const ReplayProgressFn &progress) {
  auto started = std::chrono::steady_clock::now();
  TuneResult result;
  auto finish = [&]() -> TuneResult {
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return std::move(result);
  };
  result.tuned = session;
  result.tuned.variants.clear();
  result.tuned.compare.clear();
  result.deviceKind = session.pipeline.target == "cuda" ? "cuda" : "cpu";
  TrialPlan plan{dbPath, newBatchName(), std::max(options.trials, 1), progress};

  // The base, once, for its dispatch table.
  result.runs.reserve(16);
  result.runs.push_back({session.base(), {}, {}});
  runTrial(session, result.runs.front(), 0, plan);
  const RunOutcome &baseOutcome = result.runs.front().outcome;
  result.exitCode = baseOutcome.exitCode;
  if (baseOutcome.exitCode > kExitMismatch || !baseOutcome.compile) {
    result.error = "the base variant failed: " + baseOutcome.error;
    return finish();
  }
  result.deviceName = baseOutcome.deviceName;

  // One variant per backend to try: every op it can run, overridden to it.
  std::map<std::string, std::vector<std::string>> tryOf;
  result.signatures = tunableSignatures(*baseOutcome.compile, options.backends, tryOf);
  std::vector<std::string> backendsTried;
  for (const TunedSignature &s : result.signatures)
    for (const std::string &b : tryOf[s.signature])
      if (!contains(backendsTried, b))
        backendsTried.push_back(b);
  for (const std::string &b : backendsTried) {
    std::map<std::string, std::string> overrides;
    for (const TunedSignature &s : result.signatures)
      if (contains(tryOf[s.signature], b))
        for (const std::string &loc : s.locs)
          overrides[loc] = b;
    result.runs.push_back({withOverrides(session.base(), kTryPrefix + b, overrides), {}, {}});
  }
  std::vector<VariantRun *> all;
  for (VariantRun &r : result.runs)
    all.push_back(&r);
  runInterleaved(session, all, plan);

  // Per signature and backend: the source-op group of its ops against the base's.
  const VariantRun &base = result.runs.front();
  std::vector<std::string> environments;
  for (const VariantRun &r : result.runs)
    environments.insert(environments.end(), r.trials.environments.begin(),
                        r.trials.environments.end());
  result.load = profiler::loadDuring(environments);
  std::set<std::string> tunedOps; // every tuned op: barriers between the signatures' groups
  for (const TunedSignature &s : result.signatures)
    tunedOps.insert(s.locs.begin(), s.locs.end());
  for (TunedSignature &s : result.signatures) {
    std::set<std::string> ops(s.locs.begin(), s.locs.end());
    profiler::CompareOptions same = options.compare;
    same.paired = true;
    s.measured.push_back({s.defaultBackend,
                          compareSourceOps(base.trials.timings, base.trials.timings, ops, same,
                                           tunedOps),
                          ""});
    for (size_t v = 1; v < result.runs.size(); ++v) {
      const VariantRun &run = result.runs[v];
      std::string backend = run.variant.name.substr(std::string(kTryPrefix).size());
      if (!contains(tryOf[s.signature], backend))
        continue;
      profiler::CompareOptions compare = options.compare;
      compare.paired = interleaved(base.trials, run.trials);
      BackendTime m{backend,
                    compareSourceOps(base.trials.timings, run.trials.timings, ops, compare, tunedOps),
                    ""};
      if (run.outcome.exitCode > kExitMismatch)
        m.note = "failed: " + run.outcome.error;
      else if (run.outcome.exitCode == kExitMismatch)
        m.note = "wrong results: " + run.outcome.error;
      s.measured.push_back(std::move(m));
    }
    choose(s);
  }

  // The winners as overrides, confirmed on the whole model against the base.
  std::map<std::string, std::string> kept;
  for (const TunedSignature &s : result.signatures)
    if (s.backend != s.defaultBackend)
      for (const std::string &loc : s.locs)
        kept[loc] = s.backend;
  for (const auto &[loc, backend] : kept)
    result.tuned.pipeline.backendOverrides[loc] = backend;
  if (!kept.empty()) {
    TrialPlan confirm = plan;
    confirm.batch = newBatchName();
    size_t first = result.runs.size();
    result.runs.push_back({session.base(), {}, {}});
    result.runs.push_back({withOverrides(session.base(), kTunedVariant, kept), {}, {}});
    runInterleaved(session, {&result.runs[first], &result.runs[first + 1]}, confirm);
    const VariantRun &a = result.runs[first], &b = result.runs[first + 1];
    ComparisonResult &c = result.confirmation.emplace();
    c.baseline = kBaseVariant;
    c.candidate = kTunedVariant;
    c.baselineRunId = a.trials.firstRunId();
    c.candidateRunId = b.trials.firstRunId();
    if (b.outcome.exitCode > kExitMismatch || a.outcome.exitCode > kExitMismatch) {
      c.error = "the confirmation failed: " + (b.outcome.error.empty() ? a.outcome.error
                                                                       : b.outcome.error);
    } else {
      c.comparison = compareTrials(a.trials, b.trials, options.compare);
      c.load = loadOf(a.trials, b.trials);
    }
  }

  if (dbPath.empty())
    return finish();
  auto store = profiler::Store::open(dbPath);
  ral::Status stored = store ? store->putTuning(tuningRecords(result, session.model, plan.batch))
                             : store.status();
  if (stored && result.confirmation && result.confirmation->comparison) {
    const VariantRun &a = result.runs[result.runs.size() - 2], &b = result.runs.back();
    stored = storeComparison(*store, a.trials, b.trials, *result.confirmation->comparison,
                             result.confirmation->load.loaded);
  }
  if (!stored) {
    result.error = "tuning not stored: " + stored.message();
    result.exitCode = std::max<int>(result.exitCode, kExitInternal);
  }
  return finish();
}

ral::Status resolveTunedBackends(compiler::CompileOptions &options, const std::string &dbPath) {
  if (!contains(options.backends, backends::kAuto))
    return ral::Status();
  std::string path = dbPath;
  if (path.empty()) {
    auto fallback = profiler::defaultDatabasePath();
    if (!fallback)
      return ral::Status(); // no DB anywhere: an empty table
    path = *fallback;
  }
  if (!std::filesystem::exists(path))
    return ral::Status();
  profiler::Store::OpenOptions readOnly;
  readOnly.readOnly = true;
  auto store = profiler::Store::open(path, readOnly);
  if (!store)
    return store.status();
  bool cuda = options.target == "cuda";
  auto rows = store->tuning(cuda ? "cuda" : "cpu", cuda ? "" : profiler::cpuDeviceName());
  if (!rows)
    return rows.status();
  for (const profiler::TuningRecord &r : *rows)
    options.tunedBackends[r.signature] = r.backend;
  return ral::Status();
}

std::string describeTuning(const profiler::TuningRecord &record) {
  std::string out;
  json measured = json::parse(record.measuredJson, nullptr, false);
  if (measured.is_array())
    for (const json &m : measured) {
      char line[160];
      double ns = m.value("median_ns", json()).is_number() ? m["median_ns"].get<double>() : NAN;
      double change = m.value("change", json()).is_number() ? m["change"].get<double>() : NAN;
      std::string verdict = m.value("verdict", "");
      std::string note = m.value("note", "");
      if (!note.empty())
        std::snprintf(line, sizeof line, "%s: %s", m.value("backend", "?").c_str(), note.c_str());
      else if (verdict == "default")
        std::snprintf(line, sizeof line, "%s %.2f us (default)", m.value("backend", "?").c_str(),
                      ns / 1e3);
      else
        std::snprintf(line, sizeof line, "%s %.2f us %+.1f%% %s", m.value("backend", "?").c_str(),
                      ns / 1e3, 100 * change, verdict.c_str());
      out += std::string(line) + "\n";
    }
  return out + "kept: " + record.backend + " (default " + record.defaultBackend + "; measured on " +
         record.loc + " of " + record.model + ")";
}

json buildTuneReport(const TuneResult &result, const std::string &model,
                     const std::string &tunedSessionPath) {
  json report = result.confirmation ? buildReport(*result.confirmation, model)
                                    : json{{"loupe_report", 2}, {"model", model}};
  json signatures = json::array();
  for (const TunedSignature &s : result.signatures)
    signatures.push_back(signatureJson(s));
  int trials = 0;
  for (const VariantRun &r : result.runs)
    trials = std::max(trials, static_cast<int>(r.trials.runIds.size()));
  json tuning = {{"seconds", result.seconds},     {"trials", trials},
                 {"device", result.deviceName},   {"device_kind", result.deviceKind},
                 {"under_load", result.load.loaded}, {"signatures", signatures}};
  if (!result.load.note.empty())
    tuning["load"] = result.load.note;
  if (!tunedSessionPath.empty())
    tuning["session"] = tunedSessionPath;
  if (!result.error.empty())
    tuning["error"] = result.error;
  report["tuning"] = tuning;
  return report;
}

} // namespace loupe::sessions
