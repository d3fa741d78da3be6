//===- ProfilePanelTest.cpp - Dispatch table sorting and the timeline ---------===//
#include "loupe/visualizer/panels/ProfilePanel.h"

#include "Fixtures.h"
#include "GeneratedGraph.h"
#include "ImGuiHarness.h"
#include "RunDataFactory.h"

#include "loupe/profiler/Store.h"

#include <gtest/gtest.h>

using namespace loupe::visualizer;
using namespace loupe::visualizer::testing;
namespace profiler = loupe::profiler;
namespace sessions = loupe::sessions;
namespace compiler = loupe::compiler;
namespace clusters = loupe::visualizer::clusters;

namespace {
ViewModel profileViewModel(const std::vector<double> &medians, int reps = 12) {
  ViewModel vm;
  profiler::RunData data = makeRun(7, medians, reps, 0.02, 1);
  vm.profile = makeProfileView(data);
  vm.nav.profileRunId = 7;
  auto runs = std::make_shared<RunListView>();
  runs->runs.push_back(data.summary);
  vm.runs = runs;
  return vm;
}
} // namespace

TEST(ProfileView, SummarisesDispatchesAndRepetitions) {
  profiler::RunData data = makeRun(1, {1000, 3000, 2000}, 10, 0.0, 1);
  auto view = makeProfileView(data);
  ASSERT_EQ(view->rows.size(), 3u);
  EXPECT_EQ(view->rows[1].calls, 10u);
  EXPECT_DOUBLE_EQ(view->rows[1].medianNs, 3000);
  EXPECT_NEAR(view->rows[1].share, 0.5, 1e-9);
  ASSERT_EQ(view->reps.size(), 10u);
  ASSERT_EQ(view->reps[3].size(), 3u);
  EXPECT_EQ(view->reps[3][0].startNs, 1000);
  EXPECT_EQ(view->reps[3][1].row, 1);
  EXPECT_EQ(view->repDurationNs[3], 1000 + 1200 + 3200 + 2200);
  EXPECT_EQ(view->kernelTiming, ""); // a CPU run

  // A GPU run keeps where its dispatch times came from.
  data.measurement = profiler::MeasurementRecord();
  data.measurement->kernelTiming = "CUDA events (CUPTI is held by another subscriber: nsys)";
  EXPECT_EQ(makeProfileView(data)->kernelTiming, data.measurement->kernelTiming);
}

TEST(ProfilePanel, SortsByTheChosenColumn) {
  ViewModel vm = profileViewModel({1000, 5000, 3000, 2000, 4000});
  ProfilePanel panel;
  RecordingActions actions;
  ImGuiHarness ui;
  ui.frame([&] { panel.draw(vm, actions); });
  // Default: median, descending.
  std::vector<int> order = panel.sortedRows(vm);
  EXPECT_EQ(order, (std::vector<int>{1, 4, 2, 3, 0}));
  panel.setSort(ProfilePanel::ColMedian, true);
  ui.frame([&] { panel.draw(vm, actions); });
  EXPECT_EQ(panel.sortedRows(vm), (std::vector<int>{0, 3, 2, 4, 1}));
  panel.setSort(ProfilePanel::ColShare, false);
  EXPECT_EQ(panel.sortedRows(vm), (std::vector<int>{1, 4, 2, 3, 0}));
  panel.setSort(ProfilePanel::ColName, true);
  EXPECT_EQ(panel.sortedRows(vm), (std::vector<int>{0, 1, 2, 3, 4}));
  // By backend, descending (ties by id): onednn before codegen.
  {
    profiler::RunData data = makeRun(7, {1000, 5000, 3000}, 12, 0.02, 1);
    data.dispatches[1].backend = "onednn";
    ViewModel byBackend = vm;
    byBackend.profile = makeProfileView(data);
    ProfilePanel other;
    other.setSort(ProfilePanel::ColBackend, false);
    ui.frame([&] { other.draw(byBackend, actions); });
    EXPECT_EQ(other.sortedRows(byBackend), (std::vector<int>{1, 0, 2}));
    EXPECT_EQ(byBackend.profile->rows[1].backend, "onednn");
  }
  ui.frames(2, [&] { panel.draw(vm, actions); });
  // The table's own sort spec agrees with setSort (no flip-back on the next frame).
  EXPECT_EQ(panel.sortColumn(), ProfilePanel::ColName);
  EXPECT_TRUE(panel.sortAscending());
}

TEST(ProfilePanel, ClickingAHeaderSorts) {
  ViewModel vm = profileViewModel({1000, 5000, 3000, 2000, 4000});
  ProfilePanel panel;
  RecordingActions actions;
  ImGuiHarness ui;
  auto draw = [&] { panel.draw(vm, actions); };
  ui.frames(2, draw);
  float x0, y0, x1, y1;
  panel.headerRect(ProfilePanel::ColId, &x0, &y0, &x1, &y1);
  ASSERT_GT(x1, x0);
  ui.click(ImVec2((x0 + x1) / 2, (y0 + y1) / 2), draw);
  ui.frame(draw);
  EXPECT_EQ(panel.sortColumn(), ProfilePanel::ColId);
  EXPECT_EQ(panel.sortedRows(vm), (std::vector<int>{0, 1, 2, 3, 4}));
  // A second click reverses.
  ui.click(ImVec2((x0 + x1) / 2, (y0 + y1) / 2), draw);
  ui.frame(draw);
  EXPECT_FALSE(panel.sortAscending());
  EXPECT_EQ(panel.sortedRows(vm), (std::vector<int>{4, 3, 2, 1, 0}));
}

TEST(ProfilePanel, TimelineCullsAndMergesWhatIsOffScreenOrTiny) {
  std::vector<double> medians(2000, 1000.0); // 2000 dispatches of 1 us
  ViewModel vm = profileViewModel(medians, 3);
  ProfilePanel panel;
  RecordingActions actions;
  ImGuiHarness ui(1400, 900);
  auto draw = [&] { panel.draw(vm, actions); };
  ui.frames(2, draw);
  TimelineView &t = panel.timeline();
  // Fitted: 2000 slices in ~1000 px cannot all be drawn; narrow ones merge.
  EXPECT_GT(t.lastMergedBlocks(), 0);
  EXPECT_LT(t.lastDrawnSlices() + t.lastMergedBlocks(), 1000);
  // Zoomed on 10 us: only the ~8 slices in view are drawn, each wide enough.
  t.setView(500000, 510000);
  ui.frame(draw);
  EXPECT_GE(t.lastDrawnSlices(), 7);
  EXPECT_LE(t.lastDrawnSlices(), 10);
  EXPECT_EQ(t.lastMergedBlocks(), 0);
  // Zoom and pan keep the view consistent.
  double width = t.viewEndNs() - t.viewStartNs();
  t.zoom(2.0, 505000);
  EXPECT_NEAR(t.viewEndNs() - t.viewStartNs(), width / 2, 1e-6);
  t.pan(1000);
  EXPECT_NEAR(t.viewStartNs(), 502500 + 1000, 1e-6);
}

TEST(ProfilePanel, PickingARunAsksForItsProfile) {
  ViewModel vm = profileViewModel({1000, 2000});
  auto runs = std::make_shared<RunListView>(*vm.runs);
  profiler::RunSummary other = runs->runs[0];
  other.id = 9;
  runs->runs.insert(runs->runs.begin(), other);
  vm.runs = runs;
  ProfilePanel panel;
  RecordingActions actions;
  ImGuiHarness ui;
  auto draw = [&] { panel.draw(vm, actions); };
  ui.frames(2, draw);
  // The first row of the runs table sits below the device picker and its header, at the top
  // left.
  ui.click(ImVec2(30, 52 + ImGui::GetFrameHeightWithSpacing()), draw);
  ASSERT_FALSE(actions.profiles.empty());
  EXPECT_EQ(actions.profiles.back(), 9);
}

namespace {
/// The generated two-block graph's compile, and a run of its kernels where kernel d takes
/// (d + 1) us.
struct GeneratedRun {
  compiler::CompileResult result = generatedGraph(18);
  std::vector<double> medians;
  ViewModel vm;
  GeneratedRun() {
    for (size_t d = 0; d < result.dispatches.size(); ++d)
      medians.push_back(1000.0 * static_cast<double>(d + 1));
    vm.compile = makeCompileView("generated.onnx", {}, result, 0, 0);
  }
  void show(std::vector<profiler::DispatchRecord> records) {
    vm.profile = makeProfileView(makeRunOf(4, std::move(records), medians, 9, 0, 1));
    vm.nav.profileRunId = 4;
  }
};
} // namespace

TEST(RunClusters, SumsKernelMediansPerClusterJoinedWithTheCompile) {
  GeneratedRun g;
  std::vector<profiler::DispatchRecord> records = recordsOf(g.result);
  // The run's program put b0_mm2's kernel in the epilogue's cluster and added a copy.
  records[1].clusterId = 0;
  records.push_back({10, "dispatch_10_copy", "memref.copy", "b1_sub", "codegen", -1});
  g.medians.push_back(500);
  g.show(records);
  clusters::RunClusters run = clusters::joinRunClusters(*g.vm.profile, g.vm.compile->graph.get());
  ASSERT_FALSE(run.unknown);
  ASSERT_EQ(run.clusters.size(), 10u) << "9 clusters and the kernels in none";
  const clusters::ClusterTiming &merged = run.clusters[0];
  EXPECT_EQ(merged.rows, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(merged.medianSumNs, 1000 + 2000);
  EXPECT_EQ(merged.sources, "b0_add1,b0_mm1,b0_mm2,b0_relu1");
  EXPECT_EQ(merged.compileCluster, -1) << "no cluster of the compile has these source ops";
  EXPECT_TRUE(merged.kind.empty());
  EXPECT_EQ(merged.backend, "onednn") << "its kernels' backends";
  // The others are the compile's: same source ops and kernels.
  const clusters::ClusterTiming &reduce = run.clusters[2];
  EXPECT_EQ(reduce.id, 3);
  EXPECT_EQ(reduce.compileCluster, 3);
  EXPECT_TRUE(reduce.sameKernels);
  EXPECT_EQ(reduce.kind, "kRowReduction");
  EXPECT_EQ(reduce.backend, "codegen");
  EXPECT_DOUBLE_EQ(reduce.medianSumNs, 4000);
  EXPECT_EQ(run.clusters.back().id, -1);
  EXPECT_DOUBLE_EQ(run.clusters.back().medianSumNs, 500);
  double total = 0, shares = 0;
  for (const clusters::ClusterTiming &t : run.clusters) {
    total += t.medianSumNs;
    shares += t.share;
  }
  EXPECT_DOUBLE_EQ(total, 55000 + 500);
  EXPECT_NEAR(shares, 1.0, 1e-12);
  EXPECT_EQ(run.clusterOfRow[1], 0);
  EXPECT_EQ(run.clusterOfRow[10], 9);
  // Medians of the compile's kernels where the clusters agree; none for the two it split.
  EXPECT_DOUBLE_EQ(run.medianOfDispatch.at(3), 4000);
  EXPECT_EQ(run.medianOfDispatch.count(0), 0u);
  EXPECT_EQ(run.medianOfDispatch.count(1), 0u);
}

TEST(RunClusters, RunsWithoutStoredClustersTakeThemFromTheirCompile) {
  GeneratedRun g;
  std::vector<profiler::DispatchRecord> records = recordsOf(g.result);
  for (profiler::DispatchRecord &r : records)
    r.clusterId = -1; // stored before runs recorded clusters
  g.show(records);
  clusters::RunClusters run = clusters::joinRunClusters(*g.vm.profile, g.vm.compile->graph.get());
  ASSERT_EQ(run.clusters.size(), 10u);
  EXPECT_TRUE(run.clusters[4].sameKernels);
  // Another program shown: the run's clusters are unknown.
  clusters::RunClusters other =
      clusters::joinRunClusters(*g.vm.profile, mlpTosaCompile()->graph.get());
  EXPECT_TRUE(other.unknown);
  EXPECT_TRUE(other.clusters.empty());
}

TEST(ProfilePanel, ClusterTableAndLinksToTheGraph) {
  GeneratedRun g;
  std::vector<profiler::DispatchRecord> records = recordsOf(g.result);
  g.show(records);
  g.vm.profile = makeProfileView([&] {
    profiler::RunData data = makeRunOf(4, records, g.medians, 9, 0, 1);
    data.fallbacks.push_back({1, "ral_gemm_onednn", "ral_gemm_openblas", "injected", 9});
    return data;
  }());
  ASSERT_EQ(g.vm.profile->fallbacks.size(), 1u);
  ProfilePanel panel;
  RecordingActions actions;
  ImGuiHarness ui(1400, 1000);
  auto draw = [&] { panel.draw(g.vm, actions); };
  ui.frames(2, draw);
  // The clusters table: summed medians, highest first.
  std::vector<int> order = panel.clusterOrder(g.vm);
  const clusters::RunClusters *run = panel.runClusters(g.vm);
  ASSERT_NE(run, nullptr);
  ASSERT_EQ(order.size(), 10u);
  EXPECT_EQ(run->clusters[order[0]].id, 9);
  EXPECT_EQ(run->clusters[order[9]].id, 0);
  // Sorting the kernels by cluster.
  panel.setSort(ProfilePanel::ColCluster, false);
  EXPECT_EQ(panel.sortedRows(g.vm).front(), 9);
  // A kernel's cluster cell shows that cluster in the graph.
  ui.frame(draw);
  ScreenRect kernelLink = panel.linkRect("kernel:9");
  ASSERT_FALSE(kernelLink.empty());
  ui.click(kernelLink.center(), draw);
  EXPECT_EQ(g.vm.nav.selectedCluster, 9);
  ASSERT_TRUE(g.vm.nav.tabRequest.has_value());
  EXPECT_EQ(*g.vm.nav.tabRequest, Tab::Graph);
  // So does a row of the clusters table.
  g.vm.nav.tabRequest.reset();
  ScreenRect clusterLink = panel.linkRect("cluster:8");
  ASSERT_FALSE(clusterLink.empty());
  ui.click(clusterLink.center(), draw);
  EXPECT_EQ(g.vm.nav.selectedCluster, 8);
  EXPECT_TRUE(g.vm.nav.tabRequest.has_value());
}

TEST(ProfilePanel, RealCnnRunGroupedByCluster) {
  TempDir dir;
  sessions::RunRequest request;
  request.model = std::string(LOUPE_SOURCE_DIR) + "/examples/models/cnn.onnx";
  request.compile = sessions::compileOptionsFor({});
  request.run.measure.warmupReps = 0;
  request.run.measure.reps = 3;
  request.dbPath = dir.str("p.db");
  sessions::RunOutcome outcome = sessions::runModel(request);
  ASSERT_EQ(outcome.exitCode, sessions::kExitOk) << outcome.error;
  auto store = profiler::Store::open(request.dbPath);
  ASSERT_TRUE(store.isOk());
  auto data = store->loadRun(outcome.runId);
  ASSERT_TRUE(data.isOk());
  ViewModel vm;
  vm.profile = makeProfileView(*data);
  vm.compile = makeCompileView(request.model, request.compile, *outcome.compile, 0, 0);
  const graph::GraphModel &m = *vm.compile->graph;
  clusters::RunClusters run = clusters::joinRunClusters(*vm.profile, &m);
  // The stored run is the compile's program: every cluster with kernels is described by it.
  double sum = 0, kernels = 0;
  for (const DispatchRow &r : vm.profile->rows)
    sum += r.medianNs;
  for (const clusters::ClusterTiming &t : run.clusters) {
    kernels += static_cast<double>(t.rows.size());
    if (t.id < 0)
      continue;
    ASSERT_TRUE(t.sameKernels) << t.id;
    const graph::ClusterEntry &c = m.clusters[t.compileCluster];
    EXPECT_EQ(c.summary.id, t.id);
    EXPECT_EQ(t.kind, c.summary.kind);
    EXPECT_EQ(t.rows.size(), c.dispatches.size());
    for (int d : c.dispatches)
      EXPECT_TRUE(run.medianOfDispatch.count(m.dispatches[d].summary.id));
  }
  EXPECT_EQ(kernels, static_cast<double>(vm.profile->rows.size()));
  double summed = 0;
  for (const clusters::ClusterTiming &t : run.clusters)
    summed += t.medianSumNs;
  EXPECT_NEAR(summed, sum, 1e-6 * sum);
  // Drawn: the clusters table lists every cluster with kernels.
  ProfilePanel panel;
  RecordingActions actions;
  ImGuiHarness ui(1400, 1000);
  ui.frames(2, [&] { panel.draw(vm, actions); });
  EXPECT_EQ(panel.clusterOrder(vm).size(), run.clusters.size());
}
