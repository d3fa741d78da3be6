//===- RunTest.cpp - The one run path: profiler::runArtifact ---------------------===//
//
// On the hand-written loupe-ral-v1 fixture artifact (tests/unit/ral/fixtures): what
// `loupe-run`, `loupe run`, replay and the GUI all get from the run path.
//
//===----------------------------------------------------------------------===//
#include "loupe/profiler/Run.h"
#include "loupe/profiler/Store.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

using namespace loupe::profiler;

namespace {

const std::string kFixture = std::string(LOUPE_RAL_FIXTURE_DIR) + "/libral_fixture_core.so";

RunSettings quick() {
  RunSettings s;
  s.measure.warmupReps = 1;
  s.measure.reps = 3;
  return s;
}

TEST(RunArtifact, WithoutACheckDirectoryNothingIsChecked) {
  ArtifactRun run = runArtifact(kFixture, quick());
  ASSERT_EQ(run.exitCode, kExitOk) << run.error;
  EXPECT_FALSE(run.checked);
  EXPECT_TRUE(run.checks.empty());
  ASSERT_EQ(run.modes.size(), 1u);
  EXPECT_EQ(run.repNs.size(), 3u);
  EXPECT_EQ(run.outputs.size(), run.manifest.outputs.size());
  EXPECT_EQ(run.dispatches.size(), run.manifest.dispatches.size());
}

TEST(RunArtifact, BothModesAreTwoMeasurementsStoredAsTwoRuns) {
  RunSettings settings = quick();
  settings.mode = "both";
  ArtifactRun run = runArtifact(kFixture, settings);
  ASSERT_EQ(run.exitCode, kExitOk) << run.error;
  ASSERT_EQ(run.modes.size(), 2u);
  EXPECT_EQ(run.modes[0].measurement.mode, CacheMode::Hot);
  EXPECT_EQ(run.modes[1].measurement.mode, CacheMode::Cold);
  auto store = Store::open(":memory:");
  ASSERT_TRUE(store.isOk()) << store.status().message();
  RunInfo info;
  info.model = "fixture";
  for (size_t i = 0; i < run.modes.size(); ++i)
    ASSERT_TRUE(storeRun(*store, info, nullptr, run, i).isOk());
  EXPECT_EQ(run.runId, run.modes[0].runId);
  EXPECT_NE(run.modes[0].runId, run.modes[1].runId);
  EXPECT_EQ(store->listRuns()->size(), 2u);
}

TEST(RunArtifact, BadSettingsAndInputsAreExitTwo) {
  RunSettings nan = quick();
  nan.rtol = std::nan("");
  EXPECT_EQ(runArtifact(kFixture, nan).exitCode, kExitBadInput);
  RunSettings negative = quick();
  negative.atol = -1;
  EXPECT_EQ(runArtifact(kFixture, negative).exitCode, kExitBadInput);
  RunSettings mode = quick();
  mode.mode = "warm";
  EXPECT_EQ(runArtifact(kFixture, mode).exitCode, kExitBadInput);
  RunSettings inputs = quick();
  inputs.inputsDir = "/nonexistent/inputs";
  ArtifactRun missing = runArtifact(kFixture, inputs);
  EXPECT_EQ(missing.exitCode, kExitBadInput);
  EXPECT_NE(missing.error.find("/nonexistent/inputs"), std::string::npos) << missing.error;
  ArtifactRun absent = runArtifact("/nonexistent/model.so", quick());
  EXPECT_EQ(absent.exitCode, kExitBadInput);
  EXPECT_TRUE(absent.modes.empty());
}

} // namespace
