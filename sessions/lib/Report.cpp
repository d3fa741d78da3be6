//===- Report.cpp - Replay reports: JSON and Markdown -------------------------===//
#include "loupe/sessions/Report.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>

using nlohmann::json;

namespace loupe::sessions {

static json summaryJson(const profiler::Summary &s) {
  return {{"count", s.count}, {"median_ns", s.median}, {"iqr_ns", s.iqr()},
          {"min_ns", s.min},  {"max_ns", s.max},       {"mean_ns", s.mean}};
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
                          {"last_phase", c.lastPhase}};
  }
  report["artifact"] = outcome.artifactPath;

  json dispatches = json::array();
  for (const DispatchStats &d : outcome.dispatches)
    dispatches.push_back({{"id", d.info.id},
                          {"name", d.info.name},
                          {"op", d.info.op},
                          {"loc", d.info.loc},
                          {"backend", d.info.backend},
                          {"calls", d.samplesNs.size()},
                          {"median_ns", d.summary.median},
                          {"iqr_ns", d.summary.iqr()},
                          {"share", d.share}});
  report["dispatches"] = dispatches;
  if (!outcome.repNs.empty())
    report["run"] = summaryJson(outcome.runSummary);

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

/// "1.23 ms", "456 us", "789 ns".
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

std::string renderMarkdown(const json &r) {
  std::string md = "# Loupe report: " +
                   (r.value("session", "").empty() ? r.value("model", "") : r["session"].get<std::string>()) +
                   "\n\n";
  md += "- Model: `" + r.value("model", "") + "`\n";
  md += "- Device: " + r.value("device", "") + "\n";
  if (r.contains("run_id"))
    md += "- Run id: " + std::to_string(r["run_id"].get<int64_t>()) + "\n";
  if (r.contains("error"))
    md += "- **Error**: " + r["error"].get<std::string>() + "\n";
  if (r.contains("run")) {
    const json &run = r["run"];
    md += "- Whole run: median " + formatNs(run["median_ns"]) + ", IQR " +
          formatNs(run["iqr_ns"]) + " over " + std::to_string(run["count"].get<int>()) +
          " repetitions\n";
  }
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
    md += "\n## Pipeline\n\n" + std::to_string(p["passes"].size()) + " passes (" +
          std::to_string(changed) + " changed the IR), total " + formatNs(p["total_ns"]) +
          ".\n\n| # | phase | pass | time | changed |\n|---:|---|---|---:|:---:|\n";
    for (const json &pass : p["passes"])
      md += "| " + std::to_string(pass["index"].get<int>()) + " | " +
            pass["phase"].get<std::string>() + " | `" + pass["pass"].get<std::string>() +
            "` | " + formatNs(pass["duration_ns"]) + " | " +
            (pass["changed"].get<bool>() ? "yes" : "") + " |\n";
  }

  md += "\n## Dispatches\n\n| id | name | op | backend | source (loc) | calls | median | IQR | share |\n"
        "|---:|---|---|---|---|---:|---:|---:|---:|\n";
  for (const json &d : r["dispatches"]) {
    char share[16];
    std::snprintf(share, sizeof share, "%.1f%%", 100 * d["share"].get<double>());
    md += "| " + std::to_string(d["id"].get<int64_t>()) + " | `" + d["name"].get<std::string>() +
          "` | `" + d["op"].get<std::string>() + "` | " + d.value("backend", "") + " | " +
          d["loc"].get<std::string>() + " | " +
          std::to_string(d["calls"].get<int64_t>()) + " | " + formatNs(d["median_ns"]) + " | " +
          formatNs(d["iqr_ns"]) + " | " + share + " |\n";
  }

  if (corr.value("checked", false)) {
    md += "\n## Correctness\n\n| output | result | max abs err | max rel err | note |\n"
          "|---:|---|---:|---:|---|\n";
    for (const json &o : corr["outputs"]) {
      char errs[64];
      std::snprintf(errs, sizeof errs, "%.3g | %.3g", o["max_abs_err"].get<double>(),
                    o["max_rel_err"].get<double>());
      md += "| " + std::to_string(o["output"].get<int64_t>()) + " | " +
            (o["passed"].get<bool>() ? "pass" : "**FAIL**") + " | " + errs + " | " +
            o.value("message", "") + " |\n";
    }
  }
  return md;
}

ral::Status writeReport(const json &report, const std::string &path) {
  bool isJson = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  bool isMd = path.size() >= 3 && path.compare(path.size() - 3, 3, ".md") == 0;
  if (!isJson && !isMd)
    return ral::invalidArgument(path + ": unknown report format (use .md or .json)");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return ral::invalidArgument(path + ": cannot write report");
  out << (isJson ? report.dump(2) + "\n" : renderMarkdown(report));
  return out ? ral::Status::ok() : ral::internalError(path + ": write failed");
}

} // namespace loupe::sessions
