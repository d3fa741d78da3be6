//===- ComparePanelTest.cpp - Verdicts per dispatch and the bar chart ---------===//
#include "loupe/visualizer/panels/ComparePanel.h"

#include "Fixtures.h"
#include "GeneratedGraph.h"
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

TEST(ComparePanel, AttributedRowsOpenTheDiffAcrossCompiles) {
  // A slower row whose IR first differs at pass 14 gets an "IR diff" button: pressing it asks
  // for both compiles with IR text and sends the Diff tab to pass 14, across the compiles.
  profiler::RunData base = makeRun(1, {10000, 20000}, 30, 0.01, 1);
  profiler::RunData cand = makeRun(2, {10000, 30000}, 30, 0.01, 2);
  auto built = makeCompareView(base, cand, 0.05);
  auto view = std::make_shared<CompareView>(*built);
  sessions::PassAttribution at;
  at.index = 14;
  at.pass = "loupe-form-clusters";
  view->rows[1].attribution = at;
  ViewModel vm;
  vm.comparison = view;
  ComparePanel panel;
  RecordingActions actions;
  ImGuiHarness ui;
  auto draw = [&] { panel.draw(vm, actions); };
  ui.frames(3, draw);
  EXPECT_TRUE(panel.diffButtonRect(view->rows[0].name).empty()) << "no attribution, no button";
  ScreenRect button = panel.diffButtonRect(view->rows[1].name);
  ASSERT_FALSE(button.empty());
  ui.click(button.center(), draw);
  EXPECT_TRUE(vm.nav.diffAcrossCompiles);
  EXPECT_EQ(vm.nav.crossDiffPass, 14);
  ASSERT_TRUE(vm.nav.tabRequest.has_value());
  EXPECT_EQ(*vm.nav.tabRequest, Tab::Diff);
  EXPECT_EQ(actions.crossCompiles, 1);
  // Compiles already there for these runs: nothing to compile again.
  auto cross = std::make_shared<CrossCompileView>();
  cross->baselineRunId = view->baseline.id;
  cross->candidateRunId = view->candidate.id;
  vm.crossCompile = cross;
  ComparePanel::openCrossDiff(vm, actions, 3);
  EXPECT_EQ(actions.crossCompiles, 1);
  EXPECT_EQ(vm.nav.crossDiffPass, 3);
}

TEST(CompareView, ClustersMatchedBySourceOps) {
  // Baseline: one block of the generated graph (5 clusters, one kernel each). Candidate: the
  // same with fusion off: add2, res and mul in three clusters, every later id shifted, and a
  // copy in no cluster.
  std::vector<profiler::DispatchRecord> base = recordsOf(generatedGraph(9));
  std::vector<profiler::DispatchRecord> cand;
  auto add = [&](const std::string &kernel, const std::string &loc, const std::string &backend,
                 int64_t cluster) {
    int64_t id = static_cast<int64_t>(cand.size());
    cand.push_back({id, "dispatch_" + std::to_string(id) + "_" + kernel, "linalg.generic", loc,
                    backend, cluster});
  };
  add("ral_gemm_epilogue_onednn", "b0_mm1,b0_add1,b0_relu1", "onednn", 0);
  add("ral_gemm_onednn", "b0_mm2", "onednn", 1);
  add("generic", "b0_add2", "codegen", 2);
  add("generic", "b0_res", "codegen", 3);
  add("generic", "b0_mul", "codegen", 4);
  add("generic_reduce", "b0_rsum", "codegen", 5);
  add("generic", "b0_sub", "codegen", 6);
  add("copy", "b0_sub", "codegen", -1);
  profiler::RunData a = makeRunOf(1, base, {10000, 20000, 30000, 4000, 5000}, 20, 0.01, 1);
  profiler::RunData b =
      makeRunOf(2, cand, {10000, 20000, 15000, 15000, 15000, 4000, 5000, 1000}, 20, 0.01, 2);
  auto view = makeCompareView(a, b, 0.05);
  const loupe::visualizer::clusters::ClusterComparison &c = view->clusters;
  ASSERT_TRUE(c.recorded);
  ASSERT_EQ(c.rows.size(), 6u);
  EXPECT_EQ(c.corresponding, 4);
  auto ids = [](const std::vector<int64_t> &v) { return v; };
  EXPECT_EQ(ids(c.rows[0].baselineClusters), (std::vector<int64_t>{0}));
  EXPECT_EQ(ids(c.rows[0].candidateClusters), (std::vector<int64_t>{0}));
  EXPECT_TRUE(c.rows[0].sameKernels);
  EXPECT_EQ(c.rows[0].comparison.verdict, Verdict::Same);
  // add2+res+mul: one cluster here, three there; compared as sums (30 us -> 45 us).
  const auto &split = c.rows[2];
  EXPECT_FALSE(split.corresponds);
  EXPECT_EQ(split.baselineClusters, (std::vector<int64_t>{2}));
  EXPECT_EQ(split.candidateClusters, (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(split.sources, "b0_add2,b0_mul,b0_res");
  EXPECT_EQ(split.candidateKernels, 3u);
  EXPECT_NEAR(split.ratio, 1.5, 0.03);
  EXPECT_EQ(split.comparison.verdict, Verdict::Slower);
  // rsum and sub: the same clusters under other ids.
  EXPECT_EQ(c.rows[3].baselineClusters, (std::vector<int64_t>{3}));
  EXPECT_EQ(c.rows[3].candidateClusters, (std::vector<int64_t>{5}));
  EXPECT_TRUE(c.rows[3].sameKernels);
  EXPECT_EQ(c.rows[4].candidateClusters, (std::vector<int64_t>{6}));
  // The copy: in no cluster, only in the candidate.
  EXPECT_TRUE(c.rows[5].outsideClusters);
  EXPECT_EQ(c.rows[5].baselineKernels, 0u);
  EXPECT_EQ(c.rows[5].candidateKernels, 1u);
  // Drawn in the panel.
  ViewModel vm;
  vm.comparison = view;
  ComparePanel panel;
  RecordingActions actions;
  ImGuiHarness ui;
  ui.frames(2, [&] { panel.draw(vm, actions); });
  // Runs without stored clusters have no cluster rows.
  EXPECT_FALSE(makeCompareView(makeRun(1, {1000}, 9, 0.01, 1), makeRun(2, {1000}, 9, 0.01, 2), 0.05)
                   ->clusters.recorded);
}

TEST(CompareView, DispatchesMissingOnOneSide) {
  profiler::RunData base = makeRun(1, {1000, 2000}, 10, 0.01, 1);
  profiler::RunData cand = makeRun(2, {1000}, 10, 0.01, 2);
  auto view = makeCompareView(base, cand, 0.05);
  // The unmatched dispatch, then its source-op group (only a baseline side here).
  ASSERT_EQ(view->rows.size(), 3u);
  EXPECT_TRUE(view->rows[1].inBaseline);
  EXPECT_FALSE(view->rows[1].inCandidate);
  EXPECT_TRUE(std::isnan(view->rows[1].ratio));
  EXPECT_EQ(view->rows[1].group, 0) << "its verdict is its group's";
  EXPECT_EQ(view->rows[2].id, -1);
  EXPECT_EQ(view->rows[2].name.rfind("group 1: source ops ", 0), 0u) << view->rows[2].name;
  EXPECT_EQ(view->rows[2].comparison.verdict, Verdict::Ambiguous) << "nothing to compare with";
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
