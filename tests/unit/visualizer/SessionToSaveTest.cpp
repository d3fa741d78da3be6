//===- SessionToSaveTest.cpp - Save writes what the workbench shows -----------===//
//
// The Compare panel's two sides become the saved session's variants and `compare`; reading
// the file back gives the settings of the compared runs.
//
//===----------------------------------------------------------------------===//
#include "Fixtures.h"
#include "RunDataFactory.h"

#include "loupe/sessions/Runner.h"

#include <gtest/gtest.h>

using namespace loupe::visualizer;
using namespace loupe::visualizer::testing;
namespace profiler = loupe::profiler;
namespace sessions = loupe::sessions;

namespace {
/// A stored run made with `run` settings (what RunStore writes as its config).
profiler::RunData storedRun(int64_t id, const sessions::RunSettings &run,
                            const std::string &session = "", const std::string &variant = "") {
  profiler::RunData data = makeRun(id, {1000, 2000}, 10, 0.01, id);
  data.summary.session = session;
  data.summary.variant = variant;
  sessions::PipelineSettings pipeline;
  pipeline.phaseTo = "artifact"; // what every run compiles to
  data.configJson = sessions::runConfigJson(pipeline, run);
  return data;
}

ViewModel comparing(const profiler::RunData &a, const profiler::RunData &b) {
  ViewModel vm;
  vm.session.name = "demo";
  vm.session.model = "/models/m.mlir";
  vm.session.pipeline.phaseTo = "lower";
  vm.session.run.measure.reps = 15;
  vm.session.run.seed = 7;
  vm.comparison = makeCompareView(a, b, 0.05);
  vm.nav.baselineRunId = a.summary.id;
  vm.nav.candidateRunId = b.summary.id;
  return vm;
}
} // namespace

TEST(SessionToSave, ComparedRunsBecomeVariants) {
  sessions::RunSettings first;
  first.measure.warmupReps = 1;
  first.measure.reps = 10;
  first.inputsDir = first.checkDir = "/models/m/test_data_set_0";
  sessions::RunSettings second;
  second.measure.reps = 15;
  second.seed = 7;
  ViewModel vm = comparing(storedRun(3, first), storedRun(4, second));
  auto saved = sessionToSave(vm);
  ASSERT_TRUE(saved) << saved.status().message();
  // The second run has the Run panel's settings: it is "base"; the first becomes a variant.
  ASSERT_EQ(saved->variants.size(), 1u);
  EXPECT_EQ(saved->variants[0].name, "run3");
  EXPECT_EQ(saved->variants[0].run, first);
  EXPECT_EQ(saved->variants[0].pipeline.phaseTo, "lower") << "the session's view phase";
  EXPECT_EQ(saved->compare, (std::vector<std::string>{"run3", "base"}));
  EXPECT_EQ(saved->run, vm.session.run);

  // Written and read back: the same variants, so replay runs the compared settings.
  TempDir dir;
  std::string path = dir.str("saved.json");
  ASSERT_TRUE(sessions::saveSession(*saved, path));
  auto back = sessions::loadSession(path);
  ASSERT_TRUE(back) << back.status().message();
  ASSERT_EQ(back->runList().size(), 2u);
  EXPECT_EQ(back->runList()[0].name, "base");
  EXPECT_EQ(back->runList()[0].run, second);
  EXPECT_EQ(back->runList()[1].run, first);
  EXPECT_EQ(back->compare, saved->compare);
  sessions::RunRequest request =
      sessions::requestForVariant(*back, *back->variant("run3"), "/tmp/p.db");
  EXPECT_EQ(request.variant, "run3");
  EXPECT_EQ(request.run.measure.reps, 10);
  EXPECT_EQ(request.compile.phaseTo, "artifact");
}

TEST(SessionToSave, NamesFollowTheRunsVariants) {
  sessions::RunSettings fast, slow;
  fast.measure.reps = 11;
  slow.measure.reps = 12;
  // Runs of this session's variant "fast" (same settings) and of another session's "slow".
  ViewModel vm = comparing(storedRun(5, fast, "demo", "fast"), storedRun(6, slow, "other", "slow"));
  sessions::Variant known{"fast", vm.session.pipeline, fast};
  vm.session.variants.push_back(known);
  auto saved = sessionToSave(vm);
  ASSERT_TRUE(saved) << saved.status().message();
  ASSERT_EQ(saved->variants.size(), 2u);
  EXPECT_EQ(saved->variants[1].name, "slow");
  EXPECT_EQ(saved->compare, (std::vector<std::string>{"fast", "slow"}));

  // Two runs with the same settings: an A/A comparison needs two names.
  ViewModel same = comparing(storedRun(7, fast), storedRun(8, fast));
  auto aa = sessionToSave(same);
  ASSERT_TRUE(aa) << aa.status().message();
  ASSERT_EQ(aa->compare.size(), 2u);
  EXPECT_NE(aa->compare[0], aa->compare[1]);
  EXPECT_EQ(aa->variant(aa->compare[0])->run, aa->variant(aa->compare[1])->run);
}

TEST(SessionToSave, VariantsPickedByNameAndErrors) {
  ViewModel vm;
  vm.session.model = "/models/m.mlir";
  vm.session.variants.push_back({"a", vm.session.pipeline, vm.session.run});
  vm.nav.baselineVariant = "base";
  vm.nav.candidateVariant = "a";
  auto saved = sessionToSave(vm);
  ASSERT_TRUE(saved);
  EXPECT_EQ(saved->compare, (std::vector<std::string>{"base", "a"}));
  EXPECT_EQ(saved->variants.size(), 1u);

  vm.nav.candidateVariant = "gone";
  EXPECT_FALSE(sessionToSave(vm));

  // Nothing compared: the session's own compare stays.
  ViewModel plain;
  plain.session.model = "/models/m.mlir";
  plain.session.variants.push_back({"a", plain.session.pipeline, plain.session.run});
  plain.session.compare = {"base", "a"};
  EXPECT_EQ(sessionToSave(plain)->compare, plain.session.compare);

  // Runs picked but their comparison not loaded (yet): no guessing.
  plain.nav.baselineRunId = 1;
  plain.nav.candidateRunId = 2;
  auto pending = sessionToSave(plain);
  ASSERT_FALSE(pending);
  EXPECT_NE(pending.status().message().find("not loaded"), std::string::npos);

  // A stored config that does not parse is an error, not a silent default.
  profiler::RunData bad = storedRun(1, {});
  bad.configJson = R"({"reps": "ten"})";
  ViewModel broken = comparing(bad, storedRun(2, {}));
  auto error = sessionToSave(broken);
  ASSERT_FALSE(error);
  EXPECT_NE(error.status().message().find("'reps' must be an integer"), std::string::npos)
      << error.status().message();
}
