//===- PipelinePanelTest.cpp - Pass list: filter, selection, arrow keys -------===//
#include "loupe/visualizer/panels/PipelinePanel.h"

#include "Fixtures.h"
#include "ImGuiHarness.h"

#include <gtest/gtest.h>

using namespace loupe::visualizer;
using namespace loupe::visualizer::testing;

TEST(PipelinePanel, ListsEveryPassOfARealCompile) {
  ViewModel vm = mlpTosaViewModel();
  ASSERT_TRUE(vm.compile->result.ok()) << vm.compile->result.error->message;
  PipelinePanel panel;
  ImGuiHarness ui;
  RecordingActions actions;
  ui.frames(2, [&] { panel.draw(vm, actions); });
  const std::vector<int> &rows = panel.visibleRows(vm);
  // The .mlir source first, then every snapshot in order.
  ASSERT_EQ(rows.size(), static_cast<size_t>(vm.compile->passCount()) + 1);
  EXPECT_EQ(rows.front(), kSourcePass);
  for (int i = 0; i < vm.compile->passCount(); ++i)
    EXPECT_EQ(rows[i + 1], i);
}

TEST(PipelinePanel, ChangedOnlyAndSearchFilter) {
  ViewModel vm = mlpTosaViewModel();
  PipelinePanel panel;
  ImGuiHarness ui;
  RecordingActions actions;
  panel.setChangedOnly(true);
  ui.frame([&] { panel.draw(vm, actions); });
  size_t changed = 0;
  for (const auto &s : vm.compile->result.snapshots)
    changed += s.changed || s.failed;
  const std::vector<int> &rows = panel.visibleRows(vm);
  EXPECT_EQ(rows.size(), changed);
  EXPECT_LT(rows.size(), static_cast<size_t>(vm.compile->passCount()));
  for (int r : rows)
    EXPECT_TRUE(vm.compile->result.snapshots[r].changed);

  panel.setChangedOnly(false);
  panel.setSearch("CANONICAL");
  ui.frame([&] { panel.draw(vm, actions); });
  ASSERT_FALSE(panel.visibleRows(vm).empty());
  for (int r : panel.visibleRows(vm))
    EXPECT_NE(vm.compile->result.snapshots[r].pass.find("canonicalize"), std::string::npos);
}

TEST(PipelinePanel, ArrowKeysStepThroughVisibleRows) {
  ViewModel vm = mlpTosaViewModel();
  PipelinePanel panel;
  ImGuiHarness ui;
  RecordingActions actions;
  auto draw = [&] { panel.draw(vm, actions); };
  ui.frames(2, draw);
  vm.selectPass(0);
  ui.pressKey(ImGuiKey_DownArrow, draw);
  EXPECT_EQ(vm.nav.selectedPass, 1);
  ui.pressKey(ImGuiKey_DownArrow, draw);
  EXPECT_EQ(vm.nav.selectedPass, 2);
  ui.pressKey(ImGuiKey_UpArrow, draw);
  EXPECT_EQ(vm.nav.selectedPass, 1);
  ui.pressKey(ImGuiKey_Home, draw);
  EXPECT_EQ(vm.nav.selectedPass, kSourcePass);
  ui.pressKey(ImGuiKey_End, draw);
  EXPECT_EQ(vm.nav.selectedPass, vm.compile->passCount() - 1);

  // With "changed only", Down skips the passes that did not change the IR.
  panel.setChangedOnly(true);
  ui.frame(draw);
  const std::vector<int> rows = panel.visibleRows(vm);
  ASSERT_GE(rows.size(), 3u);
  vm.selectPass(rows[0]);
  ui.pressKey(ImGuiKey_DownArrow, draw);
  EXPECT_EQ(vm.nav.selectedPass, rows[1]);
  ui.pressKey(ImGuiKey_DownArrow, draw);
  EXPECT_EQ(vm.nav.selectedPass, rows[2]);
}

TEST(PipelinePanel, KeysAreIgnoredWithoutFocus) {
  ViewModel vm = mlpTosaViewModel();
  PipelinePanel panel;
  ImGuiHarness ui;
  RecordingActions actions;
  vm.selectPass(3);
  // Another window on top has the focus.
  auto draw = [&] {
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(600, 600));
    ImGui::Begin("pipeline");
    panel.draw(vm, actions);
    ImGui::End();
    ImGui::SetNextWindowFocus();
    ImGui::Begin("other");
    ImGui::End();
  };
  ImGuiIO &io = ImGui::GetIO();
  ui.rawFrame(draw);
  io.KeysDown[ImGuiKey_DownArrow] = true;
  ui.rawFrame(draw);
  io.KeysDown[ImGuiKey_DownArrow] = false;
  ui.rawFrame(draw);
  EXPECT_EQ(vm.nav.selectedPass, 3);
}

TEST(PipelinePanel, StepFromTheSourceRowAndClamp) {
  ViewModel vm = mlpTosaViewModel();
  PipelinePanel panel;
  vm.selectPass(kSourcePass);
  EXPECT_EQ(panel.step(vm, 1), 0);
  EXPECT_EQ(panel.step(vm, -5), kSourcePass);
  EXPECT_EQ(panel.step(vm, 100000), vm.compile->passCount() - 1);
  // A selection hidden by the filter steps to the nearest visible row.
  panel.setSearch("tosa-to-linalg");
  vm.selectPass(0);
  int next = panel.step(vm, 1);
  EXPECT_NE(vm.compile->result.snapshots[next].pass.find("tosa-to-linalg"), std::string::npos);
}

TEST(PipelinePanel, CacheSummaryNamesTheAnswerAndTheCounts) {
  loupe::compiler::CompileResult r;
  loupe::compiler::CompileCacheStats stats{2, 1, 4};
  EXPECT_EQ(PipelinePanel::cacheSummary(r, stats), "");
  r.cache = "disk";
  EXPECT_EQ(PipelinePanel::cacheSummary(r, stats), "compile cache: disk hit (3 hits, 4 misses)");
  r.cache = "miss";
  EXPECT_EQ(PipelinePanel::cacheSummary(r, stats), "compile cache: miss (3 hits, 4 misses)");
}
