//===- ReplayTest.cpp - Every variant run and stored, two compared ------------===//
#include "loupe/sessions/Replay.h"
#include "loupe/sessions/Report.h"

#include "loupe/profiler/Store.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

using namespace loupe;
using namespace loupe::sessions;

namespace {
const std::string kModels = std::string(LOUPE_SOURCE_DIR) + "/examples/models/";

/// mlp_tosa with test data; variants given as JSON text.
Session mlpSession(const std::string &variants) {
  std::string text = R"({"loupe_session": 2, "name": "mlp", "model": "mlp_tosa.mlir",
    "run": {"warmup": 1, "reps": 9, "inputs": "mlp_tosa/test_data_set_0",
            "check": "mlp_tosa/test_data_set_0", "rtol": 1e-4})" + variants + "}";
  auto s = parseSession(text, kModels + "s.json");
  EXPECT_TRUE(s.isOk()) << s.status().message();
  return s.isOk() ? *s : Session();
}

std::string freshDb(const char *name) {
  auto db = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove(db);
  return db.string();
}

TEST(ReplayTest, RunsEveryVariantStoresItsNameAndCompares) {
  Session s = mlpSession(R"(, "variants": [{"name": "short"}, {"name": "long", "run": {"reps": 12}}],
    "compare": ["short", "long"])");
  std::string db = freshDb("replay_test.db");
  std::vector<std::string> progressed;
  ReplayOptions options;
  options.trials = 3;
  ReplayResult r = replaySession(s, db, options,
                                 [&](const std::string &v, const std::string &, double) {
                                   if (progressed.empty() || progressed.back() != v)
                                     progressed.push_back(v);
                                 });
  // Interleaved trials: A B A B A B.
  EXPECT_EQ(progressed, (std::vector<std::string>{"short trial 1/3", "long trial 1/3",
                                                  "short trial 2/3", "long trial 2/3",
                                                  "short trial 3/3", "long trial 3/3"}));
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.exitCode(), kExitOk);
  EXPECT_EQ(r.runs[1].outcome.repNs.size(), 12u);
  EXPECT_EQ(r.runs[1].trials.runIds.size(), 3u);

  auto store = profiler::Store::open(db);
  ASSERT_TRUE(store.isOk());
  auto runs = store->listRuns();
  ASSERT_TRUE(runs.isOk());
  ASSERT_EQ(runs->size(), 6u);
  EXPECT_EQ((*runs)[0].variant, "long"); // newest first
  EXPECT_EQ((*runs)[1].variant, "short");
  EXPECT_EQ((*runs)[1].session, "mlp");
  // Any trial names the whole batch; the other variant's runs are not in it.
  auto batch = store->trialRunIds(r.runs[1].trials.runIds[1]);
  ASSERT_TRUE(batch.isOk());
  EXPECT_EQ(*batch, r.runs[1].trials.runIds);
  auto stored = store->loadRun(r.runs[1].outcome.runId);
  ASSERT_TRUE(stored.isOk());
  auto again = variantFromRunConfig(s, "again", stored->configJson);
  ASSERT_TRUE(again.isOk());
  EXPECT_EQ(again->run, s.variant("long")->run) << "the stored config reproduces the variant";

  ASSERT_TRUE(r.compare && r.compare->comparison) << (r.compare ? r.compare->error : "");
  EXPECT_TRUE(r.compare->error.empty()) << r.compare->error;
  const RunComparison &c = *r.compare->comparison;
  EXPECT_EQ(r.compare->baselineRunId, r.runs[0].outcome.runId);
  EXPECT_EQ(c.total.comparison.baseline.count, 27u);
  EXPECT_EQ(c.total.comparison.candidate.count, 36u);
  EXPECT_EQ(c.total.comparison.baselineTrials, 3u);
  ASSERT_EQ(c.rows.size(), r.runs[0].outcome.dispatches.size());
  // The same numbers as profiler::compare on the trials (one implementation).
  const profiler::Trials &a = r.runs[0].trials.timings.dispatches[0].trials;
  const profiler::Trials &b = r.runs[1].trials.timings.dispatches[0].trials;
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0], r.runs[0].outcome.dispatches[0].samplesNs);
  profiler::Comparison direct = profiler::compare(a, b, defaultCompareOptions());
  EXPECT_EQ(c.rows[0].comparison.verdict, direct.verdict);
  EXPECT_DOUBLE_EQ(c.rows[0].comparison.test.pValue, direct.test.pValue);
  EXPECT_DOUBLE_EQ(c.rows[0].ratio, direct.candidate.median / direct.baseline.median);
  // The verdicts are stored: the whole repetition and every matched dispatch.
  auto verdicts = store->comparisons(r.compare->candidateRunId);
  ASSERT_TRUE(verdicts.isOk());
  ASSERT_EQ(verdicts->size(), 1 + c.rows.size());
  EXPECT_EQ((*verdicts)[0].name, "whole repetition");
  EXPECT_EQ((*verdicts)[0].verdict, c.total.comparison.verdict);
  EXPECT_EQ((*verdicts)[0].baselineTrials, 3);
  EXPECT_EQ((*verdicts)[0].reason, c.total.comparison.reason);

  nlohmann::json report = buildReport(r, s);
  EXPECT_EQ(report["loupe_report"], 2);
  ASSERT_EQ(report["variants"].size(), 2u);
  EXPECT_EQ(report["variants"][1]["name"], "long");
  EXPECT_EQ(report["variants"][1]["settings"]["reps"], 12);
  EXPECT_TRUE(report["variants"][1]["correctness"]["passed"]);
  const nlohmann::json &cj = report["comparison"];
  EXPECT_EQ(cj["baseline"], "short");
  EXPECT_EQ(cj["candidate"], "long");
  EXPECT_EQ(cj["dispatches"].size(), c.rows.size());
  EXPECT_EQ(cj["verdict"], profiler::verdictName(c.total.comparison.verdict));
  EXPECT_EQ(cj["dispatches"][0]["verdict"], profiler::verdictName(direct.verdict));
  EXPECT_DOUBLE_EQ(cj["dispatches"][0]["baseline_median_ns"].get<double>(), direct.baseline.median);
  EXPECT_EQ(cj["run"]["trials"], nlohmann::json({3, 3}));
  int counted = 0;
  for (auto &[verdict, n] : cj["counts"].items())
    counted += n.get<int>();
  EXPECT_EQ(counted, static_cast<int>(c.rows.size()));
  std::string md = renderMarkdown(report);
  EXPECT_NE(md.find("\n## Comparison\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| all | whole repetition |"), std::string::npos);
  EXPECT_NE(md.find("\n## Variant `short`\n"), std::string::npos);
  EXPECT_NE(md.find("\n### Dispatches\n"), std::string::npos);
  EXPECT_EQ(md.find("\n## Pipeline\n"), std::string::npos) << "per-variant sections are ###";
}

TEST(ReplayTest, AFailingVariantFailsTheReplayAndTheComparison) {
  Session s = mlpSession(R"(, "variants": [{"name": "ok"},
    {"name": "nowhere", "run": {"inputs": "/nonexistent/inputs"}},
    {"name": "random", "run": {"inputs": "", "seed": 3}}], "compare": ["ok", "nowhere"])");
  ReplayResult r = replaySession(s, "");
  ASSERT_EQ(r.runs.size(), 3u) << "the other variants still run";
  EXPECT_EQ(r.runs[0].outcome.exitCode, kExitOk);
  EXPECT_EQ(r.runs[1].outcome.exitCode, kExitBadInput);
  EXPECT_EQ(r.runs[2].outcome.exitCode, kExitMismatch) << "random inputs against test data";
  EXPECT_EQ(r.exitCode(), kExitBadInput);
  ASSERT_TRUE(r.compare);
  EXPECT_FALSE(r.compare->comparison);
  EXPECT_NE(r.compare->error.find("variant 'nowhere' failed"), std::string::npos) << r.compare->error;
  nlohmann::json report = buildReport(r, s);
  EXPECT_EQ(report["exit_code"], kExitBadInput);
  EXPECT_NE(report["error"].get<std::string>().find("variant 'nowhere'"), std::string::npos);
  EXPECT_TRUE(report["comparison"].contains("error"));
  EXPECT_NE(renderMarkdown(report).find("not compared"), std::string::npos);
}

TEST(ReplayTest, ASessionWithoutVariantsReportsAsBefore) {
  Session s = mlpSession("");
  ReplayResult r = replaySession(s, "");
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].variant.name, "base");
  EXPECT_FALSE(r.compare);
  nlohmann::json report = buildReport(r, s);
  EXPECT_EQ(report, buildReport(r.runs[0].outcome, s.model, s.name));
  EXPECT_EQ(report["loupe_report"], 1);
  EXPECT_FALSE(report.contains("variants"));
  std::string md = renderMarkdown(report);
  EXPECT_NE(md.find("\n## Pipeline\n"), std::string::npos);
  EXPECT_EQ(md.find("Variant"), std::string::npos);
  EXPECT_FALSE(report.contains("kernel_timing")); // a CPU run
}

TEST(ReplayTest, AGpuRunsReportSaysWhereItsTimesComeFrom) {
  RunOutcome outcome;
  outcome.modes.emplace_back();
  outcome.modes[0].measurement.kernelTiming = "CUDA events (CUPTI is held by another subscriber: ...)";
  nlohmann::json report = buildReport(outcome, "m.onnx", "s");
  EXPECT_EQ(report["kernel_timing"], outcome.modes[0].measurement.kernelTiming);
  EXPECT_NE(renderMarkdown(report).find("\n- Kernel timings: CUDA events (CUPTI is held by "
                                        "another subscriber: ...)\n"),
            std::string::npos)
      << renderMarkdown(report);
}

// A CPU run whose pool stalled on a descheduled thread says so: its times mix one and two
// threads. None: no line.
TEST(ReplayTest, ARunsReportSaysItsThreadsStalled) {
  RunOutcome outcome;
  outcome.modes.emplace_back();
  EXPECT_FALSE(buildReport(outcome, "m.onnx", "s").contains("thread_stalls"));
  outcome.modes[0].measurement.threadStalls = 3;
  nlohmann::json report = buildReport(outcome, "m.onnx", "s");
  EXPECT_EQ(report["thread_stalls"], 3);
  EXPECT_NE(renderMarkdown(report).find("\n- Thread stalls: 3 stretches on one thread: waits "
                                        "for a thread another process kept from its core"),
            std::string::npos)
      << renderMarkdown(report);
}

// A stored run keeps them (measurements.thread_stalls, schema version 10): `loupe report
// --run` says so as the replay's report did.
TEST(ReplayTest, AStoredRunsReportSaysItsThreadsStalled) {
  profiler::RunData run;
  run.measurement.emplace();
  EXPECT_FALSE(buildReport(run).contains("thread_stalls"));
  run.measurement->threadStalls = 2;
  nlohmann::json report = buildReport(run);
  EXPECT_EQ(report["thread_stalls"], 2);
  EXPECT_NE(renderMarkdown(report).find("\n- Thread stalls: 2 stretches on one thread"),
            std::string::npos)
      << renderMarkdown(report);
}

// A cuda run's report names each code-generated kernel's GPU schedule and launch sizes (the
// columns appear only when some dispatch has one, as a CPU kernel's vector schedule).
TEST(ReplayTest, ReportShowsEachGpuKernelsScheduleAndLaunch) {
  RunOutcome outcome;
  DispatchStats gemm, bias;
  gemm.info = {0, "dispatch_0_matmul", "linalg.matmul", "fc", "cublas", "kLibrary"};
  bias.info = {1, "dispatch_1_generic", "linalg.generic", "relu", "codegen", "kLoop"};
  bias.info.schedule = "thread-per-vector4";
  bias.info.launch = "grid 16x1x1 block 256x1x1";
  outcome.dispatches = {gemm, bias};
  nlohmann::json report = buildReport(outcome, "m.onnx", "gpu");
  EXPECT_EQ(report["dispatches"][1]["schedule"], "thread-per-vector4");
  EXPECT_EQ(report["dispatches"][1]["launch"], "grid 16x1x1 block 256x1x1");
  EXPECT_EQ(report["dispatches"][0]["schedule"], "");
  std::string md = renderMarkdown(report);
  EXPECT_NE(md.find("| backend | schedule | launch | cluster |"), std::string::npos) << md;
  EXPECT_NE(md.find("| codegen | thread-per-vector4 | grid 16x1x1 block 256x1x1 |"),
            std::string::npos)
      << md;

  outcome.dispatches[1].info.schedule.clear();
  EXPECT_EQ(renderMarkdown(buildReport(outcome, "m.onnx", "cpu")).find("| schedule |"),
            std::string::npos);
}
} // namespace
