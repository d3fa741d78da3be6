//===- Report.cpp - Replay reports: JSON and Markdown -------------------------===//
#include "loupe/sessions/Report.h"

#include "ReportText.h"

#include "loupe/profiler/MachinePeaks.h"
#include "loupe/profiler/Run.h"
#include "loupe/profiler/RunProvenance.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

using nlohmann::json;

namespace loupe::sessions {

json summaryJson(const profiler::Summary &s) {
  return {{"count", s.count}, {"median_ns", s.median}, {"iqr_ns", s.iqr()},
          {"min_ns", s.min},  {"max_ns", s.max},       {"mean_ns", s.mean}};
}

json timelineJson(const std::vector<profiler::SampleRecord> &samples) {
  // The repetition whose duration is the median (the lower middle one).
  std::vector<std::pair<int64_t, int64_t>> reps; // (duration, rep)
  for (const profiler::SampleRecord &s : samples)
    if (s.dispatchId == profiler::kWholeRep)
      reps.push_back({s.durationNs(), s.rep});
  if (reps.empty())
    return json();
  std::sort(reps.begin(), reps.end());
  auto [duration, rep] = reps[(reps.size() - 1) / 2];
  json spans = json::array();
  for (const profiler::SampleRecord &s : samples)
    if (s.rep == rep && s.dispatchId != profiler::kWholeRep)
      spans.push_back({s.dispatchId, s.startNs, s.endNs});
  return {{"rep", rep}, {"duration_ns", duration}, {"spans", spans}};
}

/// Every cluster of the compile with its kernels and their summed median time (ns).
static json clustersJson(const compiler::CompileResult &compile,
                         const std::vector<DispatchStats> &dispatches) {
  json out = json::array();
  for (const compiler::ClusterSummary &c : compile.clusters) {
    json kernels = json::array();
    double medianNs = 0;
    for (const DispatchStats &d : dispatches)
      if (d.info.cluster == c.id) {
        kernels.push_back(d.info.id);
        medianNs += d.summary.median;
      }
    out.push_back({{"id", c.id},           {"kind", c.kind},       {"backend", c.backend},
                   {"pattern", c.pattern}, {"plevel", c.plevel},   {"reason", c.reason},
                   {"ops", c.ops},         {"loc", c.loc},         {"dispatches", kernels},
                   {"median_ns", medianNs}});
  }
  return out;
}

json buildReport(const RunOutcome &outcome, const std::string &model,
                 const std::string &sessionName) {
  json report = {{"loupe_report", 1}, {"session", sessionName}, {"model", model},
                 {"device", outcome.deviceName}, {"exit_code", outcome.exitCode}};
  if (!outcome.error.empty())
    report["error"] = outcome.error;
  if (outcome.runId >= 0)
    report["run_id"] = outcome.runId;

  if (outcome.compile) {
    const compiler::CompileResult &c = *outcome.compile;
    json passes = json::array();
    for (const compiler::PassSnapshot &s : c.snapshots)
      passes.push_back({{"index", s.index},
                        {"phase", s.phase},
                        {"pass", s.pass},
                        {"options", s.options},
                        {"anchor", s.anchor},
                        {"duration_ns", s.durationNs},
                        {"changed", s.changed},
                        {"ir_hash", s.irHash}});
    report["pipeline"] = {{"total_ns", c.totalNs}, {"passes", passes},
                          {"last_phase", c.lastPhase}, {"cache", c.cache}};
  }
  report["artifact"] = outcome.artifactPath;

  json dispatches = json::array();
  for (const DispatchStats &d : outcome.dispatches)
    dispatches.push_back({{"id", d.info.id},
                          {"name", d.info.name},
                          {"op", d.info.op},
                          {"loc", d.info.loc},
                          {"backend", d.info.backend},
                          {"kind", d.info.kind},
                          {"reason", d.info.reason},
                          {"cluster", d.info.cluster},
                          {"schedule", d.info.schedule},
                          {"launch", d.info.launch},
                          {"bytes", d.info.bytes},
                          {"flops", d.info.flops},
                          {"math", d.info.math},
                          {"calls", d.samplesNs.size()},
                          {"median_ns", d.summary.median},
                          {"iqr_ns", d.summary.iqr()},
                          {"share", d.share}});
  report["dispatches"] = dispatches;
  if (!outcome.modes.empty())
    report["timeline"] = timelineJson(outcome.modes.front().samples);
  if (outcome.compile && !outcome.compile->clusters.empty()) {
    report["clusters"] = clustersJson(*outcome.compile, outcome.dispatches);
    json refused = json::array();
    for (const compiler::RefusedMerge &r : outcome.compile->refusedMerges)
      refused.push_back({{"producer", r.producer},
                         {"producer_op", r.producerOp},
                         {"producer_cluster", r.producerCluster},
                         {"consumer", r.consumer},
                         {"consumer_op", r.consumerOp},
                         {"consumer_cluster", r.consumerCluster},
                         {"rule", r.rule}});
    report["refused_merges"] = refused;
  }
  json fallbacks = json::array();
  for (const profiler::FallbackRecord &f : outcome.fallbacks) {
    std::string name;
    for (const DispatchStats &d : outcome.dispatches)
      if (d.info.id == f.dispatchId)
        name = d.info.name;
    fallbacks.push_back({{"dispatch_id", f.dispatchId},
                         {"dispatch", name},
                         {"failed_kernel", f.failedKernel},
                         {"fallback_kernel", f.fallbackKernel},
                         {"message", f.message},
                         {"executions", f.executions}});
  }
  report["fallbacks"] = fallbacks;
  if (!outcome.repNs.empty())
    report["run"] = summaryJson(outcome.runSummary);
  // GPU runs: where the dispatch times come from (CUPTI, CUDA events, or the host clock).
  if (!outcome.modes.empty() && !outcome.modes.front().measurement.kernelTiming.empty())
    report["kernel_timing"] = outcome.modes.front().measurement.kernelTiming;
  if (!outcome.modes.empty())
    report::addMeasurement(report, outcome.modes.front().measurement);
  // What surrounded the measurement (load, CPUs, thread settings): a loaded machine shows.
  if (json environment = json::parse(outcome.environmentJson, nullptr, false);
      environment.is_object())
    report["environment"] = environment;

  json correctness = {{"checked", outcome.checked}};
  if (outcome.checked) {
    bool passed = true;
    json outputs = json::array();
    for (const OutputCheck &c : outcome.checks) {
      passed = passed && c.record.passed;
      json o = {{"output", c.record.outputIdx},
                {"passed", c.record.passed},
                {"max_abs_err", c.record.maxAbsErr},
                {"max_rel_err", c.record.maxRelErr}};
      if (!c.message.empty())
        o["message"] = c.message;
      outputs.push_back(o);
    }
    correctness["passed"] = passed;
    correctness["outputs"] = outputs;
  }
  report["correctness"] = correctness;
  return report;
}

static json comparisonRowJson(const DispatchComparison &row) {
  const profiler::Comparison &c = row.comparison;
  auto finite = [](double x) { return std::isfinite(x) ? json(x) : json(); };
  json out = {{"baseline_median_ns", c.baseline.count ? finite(c.baselineMedian) : json()},
          {"candidate_median_ns", c.candidate.count ? finite(c.candidateMedian) : json()},
          {"ratio", finite(row.ratio)},
          {"change", finite(c.change)},
          {"change_low", finite(c.changeLow)},
          {"change_high", finite(c.changeHigh)},
          {"trials", {c.baselineTrials, c.candidateTrials}},
          {"p_value", c.test.pValue},
          {"verdict", profiler::verdictName(c.verdict)},
          {"reason", c.reason}};
  if (row.attribution)
    out["first_differing_pass"] = {{"index", row.attribution->index},
                                   {"pass", row.attribution->pass},
                                   {"phase", row.attribution->phase},
                                   {"source_op", row.attribution->sourceOp},
                                   {"note", row.attribution->note},
                                   {"text", describe(*row.attribution)}};
  return out;
}

static json comparisonJson(const ComparisonResult &result) {
  json out = {{"baseline", result.baseline}, {"candidate", result.candidate}};
  if (!result.comparison) {
    out["error"] = result.error;
    return out;
  }
  const RunComparison &c = *result.comparison;
  if (!result.error.empty())
    out["error"] = result.error;
  out["baseline_run_id"] = result.baselineRunId;
  out["candidate_run_id"] = result.candidateRunId;
  out["threshold"] = c.options.threshold;
  out["alpha"] = c.options.alpha;
  out["min_absolute_ns"] = c.options.minAbsoluteNs;
  out["under_load"] = result.load.loaded;
  if (!result.load.note.empty())
    out["load"] = result.load.note;
  out["verdict"] = profiler::verdictName(c.total.comparison.verdict);
  out["run"] = comparisonRowJson(c.total);
  json counts = json::object();
  for (profiler::Verdict v : {profiler::Verdict::Same, profiler::Verdict::Faster,
                              profiler::Verdict::Slower, profiler::Verdict::Ambiguous})
    counts[profiler::verdictName(v)] = 0;
  json dispatches = json::array();
  for (const DispatchComparison &row : c.rows) {
    json d = {{"id", row.id},
              {"name", row.name},
              {"loc", row.loc},
              {"in_baseline", row.inBaseline},
              {"in_candidate", row.inCandidate},
              {"candidate_name", row.candidateName},
              {"baseline_backend", row.baselineBackend},
              {"candidate_backend", row.candidateBackend}};
    d.update(comparisonRowJson(row));
    if (row.group >= 0) {
      d["group"] = row.group;
    } else {
      counts[profiler::verdictName(row.comparison.verdict)] =
          counts[profiler::verdictName(row.comparison.verdict)].get<int>() + 1;
    }
    dispatches.push_back(d);
  }
  json groups = json::array();
  for (const GroupComparison &g : c.groups) {
    json j = {{"loc", g.loc}, {"baseline_ids", g.baselineIds}, {"candidate_ids", g.candidateIds}};
    j.update(comparisonRowJson(g.row));
    counts[profiler::verdictName(g.row.comparison.verdict)] =
        counts[profiler::verdictName(g.row.comparison.verdict)].get<int>() + 1;
    groups.push_back(j);
  }
  out["counts"] = counts;
  out["dispatches"] = dispatches;
  out["groups"] = groups;
  return out;
}

json buildReport(const ComparisonResult &comparison, const std::string &model) {
  return {{"loupe_report", 2}, {"model", model}, {"comparison", comparisonJson(comparison)}};
}

json buildReport(const ReplayResult &replay, const Session &session) {
  if (session.variants.empty() && replay.runs.size() == 1 && !replay.compare)
    return buildReport(replay.runs[0].outcome, session.model, session.name);
  json report = {{"loupe_report", 2},
                 {"session", session.name},
                 {"model", session.model},
                 {"device", replay.runs.empty() ? std::string() : replay.runs[0].outcome.deviceName},
                 {"exit_code", replay.exitCode()}};
  json variants = json::array();
  for (const VariantRun &r : replay.runs) {
    json body = buildReport(r.outcome, session.model, session.name);
    for (const char *key : {"loupe_report", "session", "model", "device"})
      body.erase(key);
    body["name"] = r.variant.name;
    body["settings"] = json::parse(runConfigJson(r.variant.pipeline, r.variant.run));
    if (!r.outcome.error.empty() && !report.contains("error"))
      report["error"] = "variant '" + r.variant.name + "': " + r.outcome.error;
    variants.push_back(std::move(body));
  }
  report["variants"] = variants;
  if (replay.compare)
    report["comparison"] = comparisonJson(*replay.compare);
  return report;
}

/// "1.23 ms", "456 us", "789 ns".
/// `s` as Markdown text in a line or a table cell: characters GitHub Markdown would read as
/// syntax are escaped, line breaks become spaces (names and messages come from the user's model and
/// session).
static std::string text(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '\n' || c == '\r') {
      out += ' ';
      continue;
    }
    if (std::strchr("\\`*[]<>|~", c)) // Not `_`: GFM emphasizes no underscore inside a word.
      out += '\\';
    out += c;
  }
  return out;
}

/// `s` as an inline code span (a cell-safe one: `|` escaped, line breaks as spaces), fenced
/// with more backticks than any run inside it.
static std::string code(const std::string &s) {
  std::string body;
  size_t run = 0, longest = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    body += c == '\n' || c == '\r' ? std::string(" ") : c == '|' ? std::string("\\|") : std::string(1, c);
  }
  std::string fence(longest + 1, '`');
  bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

static std::string formatNs(double ns) {
  char buf[32];
  if (std::isnan(ns))
    return "-";
  if (ns >= 1e6)
    std::snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
  else if (ns >= 1e3)
    std::snprintf(buf, sizeof buf, "%.2f us", ns / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  return buf;
}

/// "+12.3%", "-4.0%"; "-" when not finite.
static std::string formatChange(const json &change) {
  if (!change.is_number() || !std::isfinite(change.get<double>()))
    return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * change.get<double>());
  return buf;
}

static std::string formatRatio(const json &ratio) {
  if (!ratio.is_number())
    return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3fx", ratio.get<double>());
  return buf;
}

static std::string medianText(const json &ns) {
  return ns.is_number() ? formatNs(ns.get<double>()) : "missing";
}

/// ", compile cache: memory hit" etc. (empty when the cache was not used).
static std::string cacheText(const std::string &cache) {
  if (cache.empty())
    return "";
  return cache == "miss" ? ", compile cache: miss" : ", compile cache: " + cache + " hit";
}

static std::string clusterText(int64_t id) { return id < 0 ? "-" : std::to_string(id); }

/// The clusters table (kernels and time per cluster) and the merges the clustering refused.
static std::string renderClusters(const json &r, const std::string &h) {
  if (!r.contains("clusters"))
    return "";
  std::string md = "\n" + h + " Clusters\n\n" + std::to_string(r["clusters"].size()) +
                   " clusters, " + std::to_string(r["refused_merges"].size()) +
                   " refused merges.\n\n| cluster | kind | backend | pattern | ops | kernels | "
                   "median | why |\n|---:|---|---|---|---|---|---:|---|\n";
  for (const json &c : r["clusters"]) {
    std::string kernels;
    for (const json &id : c["dispatches"])
      kernels += (kernels.empty() ? "" : ", ") + std::to_string(id.get<int64_t>());
    md += "| " + std::to_string(c["id"].get<int64_t>()) + " | " + c["kind"].get<std::string>() +
          " | " + c["backend"].get<std::string>() + " | " + c["pattern"].get<std::string>() +
          " | " + text(c["loc"].get<std::string>()) + " | " + (kernels.empty() ? "-" : kernels) +
          " | " + formatNs(c["median_ns"]) + " | " + text(c["reason"].get<std::string>()) + " |\n";
  }
  if (!r["refused_merges"].empty()) {
    md += "\n" + h + " Refused merges\n\n| producer | consumer | rule |\n|---|---|---|\n";
    for (const json &m : r["refused_merges"])
      md += "| " + text(m["producer"].get<std::string>()) + " (cluster " +
            std::to_string(m["producer_cluster"].get<int64_t>()) + ") | " +
            text(m["consumer"].get<std::string>()) + " (cluster " +
            std::to_string(m["consumer_cluster"].get<int64_t>()) + ") | " +
            text(m["rule"].get<std::string>()) + " |\n";
  }
  return md;
}

/// The part of a run's report after the model and device lines: run id, error, whole run and
/// correctness lines, then the pipeline, dispatch and correctness sections under `h`.
static std::string renderRunBody(const json &r, const std::string &h) {
  std::string md;
  if (r.contains("run_id"))
    md += "- Run id: " + std::to_string(r["run_id"].get<int64_t>()) + "\n";
  if (r.contains("error"))
    md += "- **Error**: " + text(r["error"].get<std::string>()) + "\n";
  if (r.contains("run")) {
    const json &run = r["run"];
    md += "- Whole run: median " + formatNs(run["median_ns"]) + ", IQR " +
          formatNs(run["iqr_ns"]) + " over " + std::to_string(run["count"].get<int>()) +
          " repetitions\n";
  }
  if (r.contains("kernel_timing"))
    md += "- Kernel timings: " + r["kernel_timing"].get<std::string>() + "\n";
  if (r.contains("memory"))
    md += "- Transient memory: " + text(profiler::describeMemory(r["memory"])) + "\n";
  if (r.contains("thread_stalls"))
    md += "- Thread stalls: " + text(profiler::describeThreadStalls(r["thread_stalls"])) + "\n";
  if (r.contains("environment"))
    md += "- Environment: " + text(profiler::describeEnvironment(r["environment"].dump())) + "\n";
  const json &corr = r["correctness"];
  if (corr.value("checked", false))
    md += std::string("- Correctness: ") + (corr.value("passed", false) ? "**PASS**" : "**FAIL**") + "\n";
  else
    md += "- Correctness: not checked\n";

  if (r.contains("pipeline")) {
    const json &p = r["pipeline"];
    int changed = 0;
    for (const json &pass : p["passes"])
      changed += pass["changed"].get<bool>();
    md += "\n" + h + " Pipeline\n\n" + std::to_string(p["passes"].size()) + " passes (" +
          std::to_string(changed) + " changed the IR), total " + formatNs(p["total_ns"]) +
          cacheText(p.value("cache", "")) + ".\n\n| # | phase | pass | time | changed |\n|---:|---|---|---:|:---:|\n";
    for (const json &pass : p["passes"])
      md += "| " + std::to_string(pass["index"].get<int>()) + " | " +
            pass["phase"].get<std::string>() + " | `" + pass["pass"].get<std::string>() +
            "` | " + formatNs(pass["duration_ns"]) + " | " +
            (pass["changed"].get<bool>() ? "yes" : "") + " |\n";
  }

  // How each code-generated kernel was compiled: cpu, its vector tiles or why scalar loops
  // (loupe-vectorize-cpu); cuda, its GPU thread mapping and launch sizes.
  bool scheduled = std::any_of(r["dispatches"].begin(), r["dispatches"].end(),
                               [](const json &d) { return !d.value("schedule", "").empty(); });
  md += "\n" + h + " Dispatches\n\n| id | name | op | kind | backend | " +
        std::string(scheduled ? "schedule | launch | " : "") +
        "cluster | source (loc) | calls | median | IQR | share |\n"
        "|---:|---|---|---|---|" + std::string(scheduled ? "---|---|" : "") + "---:|---|---:|---:|---:|---:|\n";
  for (const json &d : r["dispatches"]) {
    char share[16];
    std::snprintf(share, sizeof share, "%.1f%%", 100 * d["share"].get<double>());
    md += "| " + std::to_string(d["id"].get<int64_t>()) + " | `" + d["name"].get<std::string>() +
          "` | `" + d["op"].get<std::string>() + "` | " + d.value("kind", "") + " | " +
          d.value("backend", "") + " | " +
          (scheduled ? text(d.value("schedule", "")) + " | " + d.value("launch", "") + " | " : "") +
          clusterText(d.value("cluster", int64_t(-1))) + " | " + text(d["loc"].get<std::string>()) +
          " | " + std::to_string(d["calls"].get<int64_t>()) + " | " + formatNs(d["median_ns"]) +
          " | " + formatNs(d["iqr_ns"]) + " | " + share + " |\n";
  }
  // Why each library-capable op got its backend (ral-lower-to-library-call's reasons).
  std::string backends;
  for (const json &d : r["dispatches"])
    if (!d.value("reason", "").empty())
      backends += "| `" + d["name"].get<std::string>() + "` | " + d.value("backend", "") + " | " +
                  text(d.value("reason", "")) + " |\n";
  if (!backends.empty())
    md += "\n" + h + " Backend choices\n\n| dispatch | backend | why |\n|---|---|---|\n" + backends;
  // The transcendental math of each code-generated kernel and how it is computed.
  std::string math;
  for (const json &d : r["dispatches"])
    if (!d.value("math", "").empty())
      math += "| `" + d["name"].get<std::string>() + "` | " + text(d.value("math", "")) + " |\n";
  if (!math.empty())
    md += "\n" + h + " Math\n\nPolynomial approximations (within 1-5 ulps of libm) or libm "
          "(`--math libm`).\n\n| dispatch | math |\n|---|---|\n" + math;
  // Library kernels that failed at run time, and what the runtime ran instead.
  if (r.contains("fallbacks") && !r["fallbacks"].empty()) {
    md += "\n" + h + " Fallbacks\n\nLibrary kernels that failed at run time; the dispatch's next "
          "kernel ran instead, on the same arguments.\n\n| dispatch | failed kernel | ran instead "
          "| executions | error |\n|---|---|---|---:|---|\n";
    for (const json &f : r["fallbacks"])
      md += "| `" + f.value("dispatch", "") + "` | `" + f["failed_kernel"].get<std::string>() +
            "` | `" + f["fallback_kernel"].get<std::string>() + "` | " +
            std::to_string(f["executions"].get<int64_t>()) + " | " +
            text(f["message"].get<std::string>()) + " |\n";
  }

  md += renderClusters(r, h);

  if (corr.value("checked", false)) {
    md += "\n" + h + " Correctness\n\n| output | result | max abs err | max rel err | note |\n"
          "|---:|---|---:|---:|---|\n";
    for (const json &o : corr["outputs"]) {
      char errs[64];
      std::snprintf(errs, sizeof errs, "%.3g | %.3g", o["max_abs_err"].get<double>(),
                    o["max_rel_err"].get<double>());
      md += "| " + std::to_string(o["output"].get<int64_t>()) + " | " +
            (o["passed"].get<bool>() ? "pass" : "**FAIL**") + " | " + errs + " | " +
            text(o.value("message", "")) + " |\n";
    }
  }
  return md;
}

/// "+12.1% [+8.3%, +15.0%]": the change and its confidence interval when there is one.
static std::string changeText(const json &r) {
  std::string text = formatChange(r["change"]);
  if (r.contains("change_low") && !r["change_low"].is_null() && !r["change_high"].is_null())
    text += " [" + formatChange(r["change_low"]) + ", " + formatChange(r["change_high"]) + "]";
  return text;
}

static std::string trialsText(const json &r) {
  if (!r.contains("trials"))
    return "";
  return std::to_string(r["trials"][0].get<int64_t>()) + " vs " +
         std::to_string(r["trials"][1].get<int64_t>()) + " trials";
}

static std::string renderComparison(const json &c) {
  std::string a = c["baseline"].get<std::string>(), b = c["candidate"].get<std::string>();
  std::string md = "\n## Comparison\n\n`" + b + "` against `" + a + "`";
  if (!c.contains("run"))
    return md + ": not compared, " + c["error"].get<std::string>() + ".\n";
  char threshold[32];
  std::snprintf(threshold, sizeof threshold, "%g%%", 100 * c["threshold"].get<double>());
  const json &run = c["run"];
  const json &n = c["counts"];
  md += " (runs " + std::to_string(c["baseline_run_id"].get<int64_t>()) + " and " +
        std::to_string(c["candidate_run_id"].get<int64_t>()) + ", " + trialsText(run) +
        ", threshold " + threshold + "): whole repetition **" + c["verdict"].get<std::string>() +
        "** (median " + medianText(run["baseline_median_ns"]) + " -> " +
        medianText(run["candidate_median_ns"]) + ", " + changeText(run) + "); dispatches: " +
        std::to_string(n["FASTER"].get<int>()) + " faster, " +
        std::to_string(n["SLOWER"].get<int>()) + " slower, " +
        std::to_string(n["AMBIGUOUS"].get<int>()) + " ambiguous, " +
        std::to_string(n["SAME"].get<int>()) + " same.\n\n";
  md += "Why: " + text(run["reason"].get<std::string>()) + ".\n\n";
  if (c.value("under_load", false))
    md += "**Measured under load** (" + text(c.value("load", "")) +
          "): these verdicts and noise figures cannot be trusted.\n\n";
  if (c.contains("error"))
    md += "Note: " + text(c["error"].get<std::string>()) + ".\n\n";
  md += "| id | dispatch | " + a + " | " + b + " | ratio | verdict | change [95% CI] |\n"
        "|---:|---|---:|---:|---:|---|---:|\n";
  auto row = [&](const std::string &id, const std::string &name, const json &r) {
    bool grouped = r.contains("group");
    md += "| " + id + " | " + name + " | " + medianText(r["baseline_median_ns"]) + " | " +
          medianText(r["candidate_median_ns"]) + " | " + formatRatio(r["ratio"]) + " | " +
          (grouped ? "group " + std::to_string(r["group"].get<int>() + 1)
                   : r["verdict"].get<std::string>()) +
          " | " + (grouped ? std::string("-") : changeText(r)) + " |\n";
  };
  row("all", "whole repetition", run);
  for (const json &d : c["dispatches"]) {
    // Another schedule of the same source ops: name both kernels and their backends.
    std::string name = "`" + d["name"].get<std::string>() + "`";
    std::string other = d.value("candidate_name", ""), fromBackend = d.value("baseline_backend", ""),
                toBackend = d.value("candidate_backend", "");
    if (d["in_baseline"].get<bool>() && d["in_candidate"].get<bool>() &&
        (other != d["name"].get<std::string>() || fromBackend != toBackend))
      name += fromBackend == toBackend
                  ? " vs `" + other + "`"
                  : " (" + fromBackend + ") vs `" + other + "` (" + toBackend + ")";
    else if (!d["in_candidate"].get<bool>())
      name += " (" + a + " only)";
    else if (!d["in_baseline"].get<bool>())
      name += " (" + b + " only)";
    row(std::to_string(d["id"].get<int64_t>()), name, d);
  }
  std::string parts;
  auto attributed = [&](const std::string &name, const json &r) {
    if (r.contains("first_differing_pass"))
      parts += "- " + name + " (" + r["verdict"].get<std::string>() + "): " +
               text(r["first_differing_pass"]["text"].get<std::string>()) + "\n";
  };
  for (const json &d : c["dispatches"])
    attributed("`" + d["name"].get<std::string>() + "`", d);
  if (c.contains("groups"))
    for (const json &g : c["groups"])
      attributed("source ops `" + g["loc"].get<std::string>() + "`", g);
  if (c.contains("groups") && !c["groups"].empty()) {
    md += "\nDispatches without a counterpart, compared by the source ops they compute (sums "
          "per repetition):\n\n| group | source ops | " + a + " | " + b +
          " | ratio | verdict | change [95% CI] |\n|---:|---|---:|---:|---:|---|---:|\n";
    int index = 0;
    for (const json &g : c["groups"]) {
      auto ids = [](const json &list) {
        std::string out;
        for (const json &id : list)
          out += (out.empty() ? "" : ", ") + std::to_string(id.get<int64_t>());
        return out.empty() ? std::string("none") : out;
      };
      md += "| " + std::to_string(++index) + " | `" + g["loc"].get<std::string>() +
            "` (dispatches " + ids(g["baseline_ids"]) + " vs " + ids(g["candidate_ids"]) +
            ") | " + medianText(g["baseline_median_ns"]) + " | " +
            medianText(g["candidate_median_ns"]) + " | " + formatRatio(g["ratio"]) + " | " +
            g["verdict"].get<std::string>() + " | " + changeText(g) + " |\n";
    }
  }
  if (!parts.empty())
    md += "\nWhere the two compiles first differ for the ops of each changed row (pass "
          "attribution):\n\n" + parts;
  return md;
}

/// `loupe tune`'s matrix: per op signature, each backend's time and verdict, and the choice.
static std::string renderTuning(const json &t) {
  std::vector<std::string> backends;
  for (const json &s : t["signatures"])
    for (const json &m : s["measured"])
      if (std::find(backends.begin(), backends.end(), m["backend"]) == backends.end())
        backends.push_back(m["backend"].get<std::string>());
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f s", t["seconds"].get<double>());
  std::string md = "\n## Tuning\n\n" + std::to_string(t["signatures"].size()) +
                   " op signatures run by more than one backend, measured in " +
                   std::to_string(t["trials"].get<int>()) + " interleaved trials per backend (" +
                   seconds + ")";
  if (t.contains("session"))
    md += "; tuned session: " + code(t["session"].get<std::string>());
  md += ".\n";
  if (t.value("under_load", false))
    md += "\n**Measured under load**: " + text(t.value("load", "")) + ".\n";
  if (t.contains("error"))
    md += "\n**Error**: " + text(t["error"].get<std::string>()) + "\n";
  if (t["signatures"].empty())
    return md;
  md += "\n| op | source ops | signature |";
  std::string rule = "|---|---|---|";
  for (const std::string &b : backends) {
    md += " " + b + " |";
    rule += "---:|";
  }
  md += " kept | why |\n" + rule + "---|---|\n";
  for (const json &s : t["signatures"]) {
    std::string locs;
    for (const json &l : s["locs"])
      locs += (locs.empty() ? "" : ", ") + l.get<std::string>();
    md += "| " + text(s["op"].get<std::string>()) + " | " + text(locs) + " | " +
          code(s["signature"].get<std::string>()) + " |";
    for (const std::string &b : backends) {
      auto m = std::find_if(s["measured"].begin(), s["measured"].end(),
                            [&](const json &x) { return x["backend"] == b; });
      if (m == s["measured"].end())
        md += " - |";
      else if (!(*m)["note"].get<std::string>().empty())
        md += " " + text((*m)["note"].get<std::string>()) + " |";
      else if ((*m)["verdict"] == "default")
        md += " " + medianText((*m)["median_ns"]) + " (default) |";
      else
        md += " " + medianText((*m)["median_ns"]) + " " + formatChange((*m)["change"]) + " " +
              (*m)["verdict"].get<std::string>() + " |";
    }
    md += " **" + s["backend"].get<std::string>() + "** | " + text(s["why"].get<std::string>()) +
          " |\n";
  }
  return md;
}

std::string renderMarkdown(const json &r) {
  std::string md = "# Loupe report: " +
                   text(r.value("session", "").empty() ? r.value("model", "")
                                                       : r["session"].get<std::string>()) +
                   "\n\n";
  md += "- Model: " + code(r.value("model", "")) + "\n";
  md += "- Device: " + text(r.value("device", "")) + "\n";
  if (!r.contains("variants"))
    return md + (r.contains("tuning") ? renderTuning(r["tuning"]) : std::string()) +
           (r.contains("comparison") ? renderComparison(r["comparison"]) : std::string()) +
           (r.contains("dispatches") ? renderRunBody(r, "##") : std::string());

  std::string list;
  for (const json &v : r["variants"])
    list += (list.empty() ? "" : ", ") + code(v["name"].get<std::string>()) +
            (v.contains("run_id") ? " (run " + std::to_string(v["run_id"].get<int64_t>()) + ")"
                                  : std::string(" (not stored)"));
  md += "- Variants: " + list + "\n";
  if (r.contains("error"))
    md += "- **Error**: " + text(r["error"].get<std::string>()) + "\n";
  if (r.contains("comparison"))
    md += renderComparison(r["comparison"]);
  for (const json &v : r["variants"])
    md += "\n## Variant " + code(v["name"].get<std::string>()) + "\n\n- Settings: " +
          code(v["settings"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) +
          "\n" + renderRunBody(v, "###");
  return md;
}

ral::Status checkReportPath(const std::string &path, const std::string &protectedPath) {
  namespace fs = std::filesystem;
  std::string ext = fs::path(path).extension().string();
  if (ext != ".json" && ext != ".md" && ext != ".html" && ext != ".csv" && ext != ".xml")
    return ral::invalidArgument(path +
                                ": unknown report format (use .md, .json, .html, .csv or .xml)");
  std::error_code ec;
  fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    return ral::invalidArgument(path + ": the report's directory does not exist");
  if (fs::is_directory(path, ec))
    return ral::invalidArgument(path + ": is a directory");
  if (!protectedPath.empty() && fs::equivalent(path, protectedPath, ec))
    return ral::invalidArgument(path + ": is the session file itself; not replacing it");
  return ral::Status::ok();
}

ral::Status writeReport(const json &report, const std::string &path) {
  if (ral::Status s = checkReportPath(path); !s)
    return s;
  std::string ext = std::filesystem::path(path).extension().string();
  std::string body;
  if (ext == ".json") {
    body = report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  } else if (ext == ".html") {
    json withMachine = report;
    profiler::MachinePeaks peaks = profiler::measureMachinePeaks();
    withMachine["machine"] = {{"peak_flops", peaks.flopsPerSecond},
                              {"bandwidth_bytes", peaks.bytesPerSecond},
                              {"how", peaks.how}};
    body = renderHtml(withMachine);
  } else if (ext == ".csv") {
    body = renderCsv(report);
  } else if (ext == ".xml") {
    body = renderJunit(report);
  } else {
    body = renderMarkdown(report);
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return ral::invalidArgument(path + ": cannot write report");
  out << body;
  return out ? ral::Status::ok() : ral::internalError(path + ": write failed");
}

} // namespace loupe::sessions
