//===- ComparePanelTest.cpp - Verdicts per dispatch and the bar chart ---------===//
#include "loupe/visualizer/panels/ComparePanel.h"

#include "Fixtures.h"
#include "ImGuiHarness.h"
#include "RunDataFactory.h"

#include <gtest/gtest.h>

using namespace loupe::visualizer;
using namespace loupe::visualizer::testing;
namespace profiler = loupe::profiler;
namespace sessions = loupe::sessions;
using loupe::profiler::Verdict;

TEST(CompareView, VerdictsFollowProfilerCompare) {
  // Dispatch 0 gets 20% faster, 1 stays, 2 gets 30% slower; 30 samples each, 1% noise.
  profiler::RunData base = makeRun(1, {10000, 20000, 30000}, 30, 0.01, 1);
  profiler::RunData cand = makeRun(2, {8000, 20000, 39000}, 30, 0.01, 2);
  auto view = makeCompareView(base, cand, 0.05);
  ASSERT_EQ(view->rows.size(), 3u);
  EXPECT_EQ(view->rows[0].comparison.verdict, Verdict::Faster);
  EXPECT_EQ(view->rows[1].comparison.verdict, Verdict::Same);
  EXPECT_EQ(view->rows[2].comparison.verdict, Verdict::Slower);
  EXPECT_NEAR(view->rows[0].ratio, 0.8, 0.02);
  EXPECT_NEAR(view->rows[2].ratio, 1.3, 0.02);
  // Same numbers as calling the profiler directly.
  std::vector<int64_t> a, b;
  for (const auto &s : base.samples.at(0))
    a.push_back(s.durationNs());
  for (const auto &s : cand.samples.at(0))
    b.push_back(s.durationNs());
  EXPECT_EQ(view->rows[0].comparison.test.pValue, profiler::compare(a, b, 0.05).test.pValue);
  // Too few samples: AMBIGUOUS for a big change.
  auto few = makeCompareView(makeRun(1, {1000}, 4, 0.01, 1), makeRun(2, {2000}, 4, 0.01, 2), 0.05);
  EXPECT_EQ(few->rows[0].comparison.verdict, Verdict::Ambiguous);
}

TEST(CompareView, EachSideKeepsItsBackend) {
  profiler::RunData base = makeRun(1, {10000, 20000}, 12, 0.01, 1);
  profiler::RunData cand = makeRun(2, {10000, 20000}, 12, 0.01, 2);
  base.dispatches[1].backend = "onednn";
  auto view = makeCompareView(base, cand, 0.05);
  ASSERT_EQ(view->rows.size(), 2u);
  EXPECT_EQ(view->rows[0].baselineBackend, "codegen");
  EXPECT_EQ(view->rows[1].baselineBackend, "onednn");
  EXPECT_EQ(view->rows[1].candidateBackend, "codegen");
  // Drawn without trouble in the panel's backend column.
  ViewModel vm;
  vm.comparison = view;
  ComparePanel panel;
  RecordingActions actions;
  ImGuiHarness ui;
  ui.frames(2, [&] { panel.draw(vm, actions); });
  EXPECT_EQ(panel.lastDrawnBars(), 4);
}

TEST(CompareView, DispatchesMissingOnOneSide) {
  profiler::RunData base = makeRun(1, {1000, 2000}, 10, 0.01, 1);
  profiler::RunData cand = makeRun(2, {1000}, 10, 0.01, 2);
  auto view = makeCompareView(base, cand, 0.05);
  ASSERT_EQ(view->rows.size(), 2u);
  EXPECT_TRUE(view->rows[1].inBaseline);
  EXPECT_FALSE(view->rows[1].inCandidate);
  EXPECT_TRUE(std::isnan(view->rows[1].ratio));
  EXPECT_EQ(view->rows[1].comparison.verdict, Verdict::Ambiguous);
}

TEST(ComparePanel, TableSortAndVerdictCounts) {
  ViewModel vm;
  profiler::RunData base = makeRun(1, {10000, 20000, 30000, 5000}, 30, 0.01, 1);
  profiler::RunData cand = makeRun(2, {8000, 20000, 39000, 5000}, 30, 0.01, 2);
  vm.comparison = makeCompareView(base, cand, 0.05);
  auto runs = std::make_shared<RunListView>();
  runs->runs = {cand.summary, base.summary};
  vm.runs = runs;
  vm.nav.baselineRunId = 1;
  vm.nav.candidateRunId = 2;
  ComparePanel panel;
  RecordingActions actions;
  ImGuiHarness ui;
  ui.frames(2, [&] { panel.draw(vm, actions); });
  auto counts = panel.verdictCounts(vm);
  EXPECT_EQ(counts[static_cast<int>(Verdict::Faster)], 1);
  EXPECT_EQ(counts[static_cast<int>(Verdict::Slower)], 1);
  EXPECT_EQ(counts[static_cast<int>(Verdict::Same)], 2);
  EXPECT_EQ(panel.lastDrawnBars(), 8); // two bars per dispatch
  panel.setSort(ComparePanel::ColRatio, false);
  EXPECT_EQ(panel.sortedRows(vm).front(), 2); // the slowdown first
  panel.setSort(ComparePanel::ColRatio, true);
  EXPECT_EQ(panel.sortedRows(vm).front(), 0); // the speedup first
  EXPECT_TRUE(actions.comparisons.empty());   // drawing alone asks for nothing
}

TEST(ComparePanel, VariantModePicksTheSessionsVariants) {
  ViewModel vm;
  vm.session.model = "model.mlir";
  vm.session.variants.push_back({"fast", vm.session.pipeline, vm.session.run});
  vm.session.variants.push_back({"slow", vm.session.pipeline, vm.session.run});
  vm.session.compare = {"slow", "fast"};
  ComparePanel panel;
  RecordingActions actions;
  ImGuiHarness ui;
  ui.frames(2, [&] { panel.draw(vm, actions); });
  EXPECT_FALSE(panel.variantMode());
  // Variants: the session's `compare` first.
  panel.setVariantMode(vm, actions, true);
  ASSERT_EQ(actions.variantComparisons.size(), 1u);
  EXPECT_EQ(actions.variantComparisons[0], std::make_pair(std::string("slow"), std::string("fast")));
  // The controller sets the picked names; drawing keeps variant mode and asks for nothing.
  vm.nav.baselineVariant = "slow";
  vm.nav.candidateVariant = "fast";
  ui.frames(2, [&] { panel.draw(vm, actions); });
  EXPECT_TRUE(panel.variantMode());
  EXPECT_EQ(actions.variantComparisons.size(), 1u);
  EXPECT_TRUE(actions.variantRuns.empty());
  // Runs picked elsewhere (the controller drops the names): the panel follows.
  vm.nav.baselineVariant.clear();
  vm.nav.candidateVariant.clear();
  ui.frames(1, [&] { panel.draw(vm, actions); });
  EXPECT_FALSE(panel.variantMode());
  panel.setVariantMode(vm, actions, true);
  vm.nav.baselineVariant = "slow";
  vm.nav.candidateVariant = "fast";
  ui.frames(1, [&] { panel.draw(vm, actions); });
  EXPECT_TRUE(panel.variantMode());
  // Back to runs: the names are dropped.
  panel.setVariantMode(vm, actions, false);
  EXPECT_FALSE(vm.nav.comparesVariants());
  // A session without `compare`: its first two variants; without variants: nothing to ask.
  vm.session.compare.clear();
  panel.setVariantMode(vm, actions, true);
  EXPECT_EQ(actions.variantComparisons.back(), std::make_pair(std::string("fast"), std::string("slow")));
  vm.session.variants.clear();
  size_t asked = actions.variantComparisons.size();
  ComparePanel fresh;
  fresh.setVariantMode(vm, actions, true);
  EXPECT_EQ(actions.variantComparisons.size(), asked);
  ui.frames(2, [&] { fresh.draw(vm, actions); });
  EXPECT_TRUE(fresh.variantMode());
}
