//===- RunnerTest.cpp - The shared compile-run-check-store path ----------------===//
#include "loupe/sessions/Report.h"
#include "loupe/sessions/Runner.h"

#include "loupe/profiler/Store.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

using namespace loupe;
using namespace loupe::sessions;

namespace {
const std::string kModels = std::string(LOUPE_SOURCE_DIR) + "/examples/models/";

RunRequest mlpRequest() {
  RunRequest r;
  r.model = kModels + "mlp_tosa.mlir";
  r.run.measure.warmupReps = 1;
  r.run.measure.reps = 9;
  r.run.inputsDir = kModels + "mlp_tosa/test_data_set_0";
  r.run.checkDir = r.run.inputsDir;
  r.run.rtol = 1e-4;
  return r;
}

TEST(RunnerTest, RunsChecksAndStores) {
  auto db = std::filesystem::temp_directory_path() / "runner_test.db";
  std::filesystem::remove(db);
  RunRequest request = mlpRequest();
  request.dbPath = db.string();
  RunOutcome out = runModel(request);
  ASSERT_EQ(out.exitCode, kExitOk) << out.error;
  EXPECT_EQ(out.repNs.size(), 9u);
  ASSERT_FALSE(out.dispatches.empty());
  double shares = 0;
  for (const DispatchStats &d : out.dispatches) {
    EXPECT_EQ(d.samplesNs.size(), 9u) << d.info.name;
    shares += d.share;
  }
  EXPECT_NEAR(shares, 1.0, 1e-9);
  ASSERT_TRUE(out.checked);
  EXPECT_TRUE(out.checks[0].record.passed) << out.checks[0].message;

  auto store = profiler::Store::open(db.string());
  ASSERT_TRUE(store.isOk());
  auto run = store->loadRun(out.runId);
  ASSERT_TRUE(run.isOk()) << run.status().message();
  EXPECT_EQ(run->summary.status, profiler::RunStatus::Complete);
  ASSERT_EQ(run->compiles.size(), 1u);
  EXPECT_EQ(run->compiles[0].passes.size(), out.compile->snapshots.size());
  ASSERT_EQ(run->dispatches.size(), out.dispatches.size());
  bool clustered = false;
  for (size_t i = 0; i < out.dispatches.size(); ++i) {
    EXPECT_EQ(run->dispatches[i].clusterId, out.dispatches[i].info.cluster) << "stored cluster";
    clustered |= run->dispatches[i].clusterId >= 0;
  }
  EXPECT_TRUE(clustered) << "the runner stores each kernel's cluster";
  EXPECT_EQ(run->samples.at(profiler::kWholeRep).size(), 9u);
  std::filesystem::remove(db);
}

TEST(RunnerTest, PipelineBackendFieldsMapToCompileOptions) {
  PipelineSettings pipeline;
  pipeline.backends = {"openblas", "codegen"};
  pipeline.fusion = false;
  pipeline.backendOverrides = {{"fc1", "codegen"}};
  compiler::CompileOptions options = compileOptionsFor(pipeline);
  EXPECT_EQ(options.backends, pipeline.backends);
  EXPECT_FALSE(options.fusion);
  EXPECT_EQ(options.backendOverrides, pipeline.backendOverrides);
  EXPECT_EQ(options.phaseTo, "artifact");
  PipelineSettings back = options; // a CompileOptions is its PipelineOptions and more
  back.phaseTo = pipeline.phaseTo;
  EXPECT_EQ(back, pipeline);
}

TEST(RunnerTest, SessionBackendsChooseTheDispatchBackends) {
  // The ONNX MLP: matmuls run on oneDNN by plevel; the session's preferences change that.
  auto backendsOf = [](const PipelineSettings &pipeline) {
    RunRequest r;
    r.model = kModels + "mlp.onnx";
    r.compile = compileOptionsFor(pipeline);
    r.run.measure.warmupReps = 0;
    r.run.measure.reps = 1;
    r.run.inputsDir = kModels + "mlp/test_data_set_0";
    r.run.checkDir = r.run.inputsDir;
    r.run.rtol = 1e-4;
    r.run.atol = 1e-4;
    RunOutcome out = runModel(r);
    EXPECT_EQ(out.exitCode, kExitOk) << out.error;
    std::map<std::string, std::string> byLoc; // first source op -> backend of its matmul
    for (const DispatchStats &d : out.dispatches)
      if (d.info.backend != "codegen" || d.info.name.find("matmul") != std::string::npos)
        byLoc[d.info.loc.substr(0, d.info.loc.find(','))] = d.info.backend;
    return std::make_pair(byLoc, out.dispatches.size());
  };
  PipelineSettings library;
  auto [lib, libCount] = backendsOf(library);
  EXPECT_EQ(lib["fc1"], "onednn");
  PipelineSettings overridden;
  overridden.backendOverrides = {{"fc1", "openblas"}};
  auto [over, overCount] = backendsOf(overridden);
  EXPECT_EQ(over["fc1"], "openblas");
  EXPECT_EQ(over["fc2"], "onednn");
  PipelineSettings codegen;
  codegen.backends = {"codegen"};
  auto [gen, genCount] = backendsOf(codegen);
  EXPECT_EQ(gen["fc1"], "codegen");
  PipelineSettings unfused = codegen;
  unfused.fusion = false;
  auto [off, offCount] = backendsOf(unfused);
  EXPECT_GT(offCount, genCount) << "fusion off: more kernels";
}

TEST(RunnerTest, RandomInputsAreDeterministic) {
  RunRequest request = mlpRequest();
  request.run.inputsDir.clear();
  request.run.checkDir.clear();
  request.run.seed = 42;
  RunOutcome a = runModel(request), b = runModel(request);
  ASSERT_EQ(a.exitCode, kExitOk) << a.error;
  ASSERT_EQ(a.outputs.size(), 1u);
  for (int64_t i = 0; i < a.outputs[0].numElements(); ++i)
    ASSERT_EQ(a.outputs[0].elementAsDouble(i), b.outputs[0].elementAsDouble(i));
}

TEST(RunnerTest, MissingInputsAreBadInput) {
  RunRequest request = mlpRequest();
  request.run.inputsDir = "/nonexistent/inputs";
  RunOutcome out = runModel(request);
  EXPECT_EQ(out.exitCode, kExitBadInput);
  EXPECT_NE(out.error.find("/nonexistent/inputs"), std::string::npos) << out.error;
}

TEST(RunnerTest, BothModesAreTwoRuns) {
  auto db = std::filesystem::temp_directory_path() / "runner_modes_test.db";
  std::filesystem::remove(db);
  RunRequest request = mlpRequest();
  request.run.measure.reps = 3;
  request.run.mode = "both";
  request.dbPath = db.string();
  RunOutcome out = runModel(request);
  ASSERT_EQ(out.exitCode, kExitOk) << out.error;
  ASSERT_EQ(out.modes.size(), 2u);
  EXPECT_EQ(out.modes[0].measurement.mode, profiler::CacheMode::Hot);
  EXPECT_EQ(out.modes[1].measurement.mode, profiler::CacheMode::Cold);
  EXPECT_EQ(out.modes[1].measurement.flushBytes,
            int64_t(profiler::cpuFlushBytes(profiler::lastLevelCacheBytes())));
  EXPECT_EQ(out.runId, out.modes[0].runId);
  EXPECT_EQ(out.repNs, out.modes[0].repNs);
  auto store = profiler::Store::open(db.string());
  ASSERT_TRUE(store.isOk());
  for (const ModeOutcome &m : out.modes) {
    auto run = store->loadRun(m.runId);
    ASSERT_TRUE(run.isOk()) << run.status().message();
    ASSERT_TRUE(run->measurement.has_value());
    EXPECT_EQ(run->measurement->mode, m.measurement.mode);
    EXPECT_EQ(run->measurement->reps, 3);
    EXPECT_EQ(run->measurement->stop, profiler::StopReason::Exact);
    EXPECT_EQ(run->samples.at(profiler::kWholeRep).size(), 3u);
    EXPECT_EQ(nlohmann::json::parse(run->configJson)["mode"],
              profiler::cacheModeName(m.measurement.mode));
  }
  std::filesystem::remove(db);
}

TEST(RunnerTest, AdaptiveSamplingTakesAtLeastTen) {
  RunRequest request = mlpRequest();
  request.run.measure.warmupReps = -1;
  request.run.measure.warmupMs = 5;
  request.run.measure.reps = 0;
  request.run.measure.maxMs = 2000;
  RunOutcome out = runModel(request);
  ASSERT_EQ(out.exitCode, kExitOk) << out.error;
  const profiler::MeasurementRecord &m = out.modes.at(0).measurement;
  EXPECT_GE(m.reps, 10);
  EXPECT_EQ(out.repNs.size(), size_t(m.reps));
  EXPECT_GE(m.warmupReps, 1);
  EXPECT_GE(m.warmupNs, 5'000'000);
  EXPECT_NE(m.stop, profiler::StopReason::Exact);
}

TEST(RunnerTest, CancelStopsBeforeMeasuring) {
  std::atomic<bool> cancel{true};
  RunOutcome out = runModel(mlpRequest(), {}, &cancel);
  EXPECT_TRUE(out.cancelled);
}

TEST(RunnerTest, ReportHasEverySection) {
  RunOutcome out = runModel(mlpRequest());
  ASSERT_EQ(out.exitCode, kExitOk) << out.error;
  nlohmann::json report = buildReport(out, "mlp_tosa.mlir", "demo");
  EXPECT_EQ(report["pipeline"]["passes"].size(), out.compile->snapshots.size());
  EXPECT_EQ(report["dispatches"].size(), out.dispatches.size());
  EXPECT_TRUE(report["correctness"]["passed"].get<bool>());
  std::string md = renderMarkdown(report);
  for (const char *section : {"# Loupe report: demo", "## Pipeline", "## Dispatches",
                              "## Correctness", "one-shot-bufferize", "**PASS**"})
    EXPECT_NE(md.find(section), std::string::npos) << section;
  EXPECT_FALSE(writeReport(report, "/tmp/report.txt").isOk()) << "unknown extension";
  EXPECT_TRUE(report["fallbacks"].empty());
  EXPECT_EQ(md.find("## Fallbacks"), std::string::npos);
}

TEST(RunnerTest, ReportListsFallbacks) {
  RunOutcome out;
  DispatchStats fc2;
  fc2.info.id = 1;
  fc2.info.name = "dispatch_1_ral_batch_gemm_onednn";
  out.dispatches.push_back(fc2);
  out.fallbacks.push_back({1, "ral_batch_gemm_onednn", "ral_batch_gemm_openblas",
                           "ral_batch_gemm_onednn: out of memory", 22});
  nlohmann::json report = buildReport(out, "mlp.onnx", "");
  ASSERT_EQ(report["fallbacks"].size(), 1u);
  const nlohmann::json &f = report["fallbacks"][0];
  EXPECT_EQ(f["dispatch_id"], 1);
  EXPECT_EQ(f["dispatch"], "dispatch_1_ral_batch_gemm_onednn");
  EXPECT_EQ(f["failed_kernel"], "ral_batch_gemm_onednn");
  EXPECT_EQ(f["fallback_kernel"], "ral_batch_gemm_openblas");
  EXPECT_EQ(f["message"], "ral_batch_gemm_onednn: out of memory");
  EXPECT_EQ(f["executions"], 22);
  std::string md = renderMarkdown(report);
  EXPECT_NE(md.find("## Fallbacks"), std::string::npos) << md;
  EXPECT_NE(md.find("| `dispatch_1_ral_batch_gemm_onednn` | `ral_batch_gemm_onednn` | "
                    "`ral_batch_gemm_openblas` | 22 | ral_batch_gemm_onednn: out of memory |"),
            std::string::npos)
      << md;
}
TEST(RunnerTest, ReportEscapesNamesFromTheModelAndSession) {
  // A session name, a model path and an ONNX node name with Markdown syntax in them.
  RunOutcome out;
  DispatchStats d;
  d.info.id = 0;
  d.info.name = "dispatch_0_generic";
  d.info.loc = "a|b,*c*";
  out.dispatches.push_back(d);
  nlohmann::json report = buildReport(out, "dir/m`x.onnx", "s|*1*");
  std::string md = renderMarkdown(report);
  EXPECT_NE(md.find("# Loupe report: s\\|\\*1\\*\n"), std::string::npos) << md;
  EXPECT_NE(md.find("- Model: ``dir/m`x.onnx``"), std::string::npos) << md;
  EXPECT_NE(md.find("| a\\|b,\\*c\\* |"), std::string::npos) << md;
}

} // namespace
