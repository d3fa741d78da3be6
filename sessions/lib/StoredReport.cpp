//===- StoredReport.cpp - The report of a run read back from the profile DB ---===//
#include "loupe/sessions/Report.h"

#include "ReportText.h"

#include "loupe/profiler/Run.h"
#include "loupe/profiler/Statistics.h"

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace loupe::sessions {

json buildReport(const profiler::RunData &run) {
  const profiler::RunSummary &r = run.summary;
  bool failed = r.status != profiler::RunStatus::Complete;
  json report = {{"loupe_report", 1},     {"session", r.session},
                 {"model", r.model},      {"device", r.deviceName},
                 {"run_id", r.id},        {"exit_code", failed ? profiler::kExitBadInput : 0}};
  if (!r.error.empty())
    report["error"] = r.error;
  if (!run.compiles.empty()) {
    const profiler::CompileRecord &c = run.compiles.front();
    json passes = json::array();
    for (const profiler::PassRecord &p : c.passes)
      passes.push_back({{"index", p.idx},
                        {"phase", p.phase},
                        {"pass", p.pass},
                        {"options", p.options},
                        {"anchor", p.anchor},
                        {"duration_ns", p.durationNs},
                        {"changed", p.changed},
                        {"ir_hash", p.irHash}});
    report["pipeline"] = {{"total_ns", c.totalNs}, {"passes", passes}};
    report["artifact"] = c.artifactPath;
  }

  double sum = 0;
  std::vector<profiler::Summary> summaries;
  for (const profiler::DispatchRecord &d : run.dispatches) {
    summaries.push_back(profiler::summarize(run.durations(d.dispatchId)));
    sum += summaries.back().count ? summaries.back().median : 0;
  }
  json dispatches = json::array();
  for (size_t i = 0; i < run.dispatches.size(); ++i) {
    const profiler::DispatchRecord &d = run.dispatches[i];
    const profiler::Summary &s = summaries[i];
    dispatches.push_back({{"id", d.dispatchId},
                          {"name", d.name},
                          {"op", d.op},
                          {"loc", d.loc},
                          {"backend", d.backend},
                          {"cluster", d.clusterId},
                          {"bytes", d.bytes},
                          {"flops", d.flops},
                          {"calls", s.count},
                          {"median_ns", s.count ? json(s.median) : json()},
                          {"iqr_ns", s.count ? json(s.iqr()) : json()},
                          {"share", sum > 0 && s.count ? s.median / sum : 0.0}});
  }
  report["dispatches"] = dispatches;
  std::vector<profiler::SampleRecord> samples;
  for (const auto &[id, rows] : run.samples)
    samples.insert(samples.end(), rows.begin(), rows.end());
  if (json timeline = timelineJson(samples); !timeline.is_null())
    report["timeline"] = timeline;
  if (std::vector<int64_t> reps = run.durations(profiler::kWholeRep); !reps.empty())
    report["run"] = summaryJson(profiler::summarize(reps));
  json fallbacks = json::array();
  for (const profiler::FallbackRecord &f : run.fallbacks)
    fallbacks.push_back({{"dispatch_id", f.dispatchId},
                         {"failed_kernel", f.failedKernel},
                         {"fallback_kernel", f.fallbackKernel},
                         {"message", f.message},
                         {"executions", f.executions}});
  report["fallbacks"] = fallbacks;
  if (run.measurement)
    report::addMeasurement(report, *run.measurement);
  if (json environment = json::parse(run.environmentJson, nullptr, false); environment.is_object())
    report["environment"] = environment;
  json correctness = {{"checked", !run.checks.empty()}};
  if (!run.checks.empty()) {
    bool passed = true;
    json outputs = json::array();
    for (const profiler::CheckRecord &c : run.checks) {
      passed = passed && c.passed;
      outputs.push_back({{"output", c.outputIdx},
                         {"passed", c.passed},
                         {"max_abs_err", c.maxAbsErr},
                         {"max_rel_err", c.maxRelErr}});
    }
    correctness["passed"] = passed;
    correctness["outputs"] = outputs;
  }
  report["correctness"] = correctness;
  return report;
}

} // namespace loupe::sessions
