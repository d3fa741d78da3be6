//===- ProfilePanelTest.cpp - Dispatch table sorting and the timeline ---------===//
#include "loupe/visualizer/panels/ProfilePanel.h"

#include "Fixtures.h"
#include "ImGuiHarness.h"
#include "RunDataFactory.h"

#include <gtest/gtest.h>

using namespace loupe::visualizer;
using namespace loupe::visualizer::testing;
namespace profiler = loupe::profiler;
namespace sessions = loupe::sessions;

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
  // The first row of the runs table sits below its header, at the top left.
  ui.click(ImVec2(30, 52), draw);
  ASSERT_FALSE(actions.profiles.empty());
  EXPECT_EQ(actions.profiles.back(), 9);
}
