//===- DiffPanelTest.cpp - Diff panel: hunks, navigation, ignore options ------===//
#include "loupe/visualizer/panels/DiffPanel.h"

#include "Fixtures.h"
#include "GeneratedModule.h"
#include "ImGuiHarness.h"

#include <gtest/gtest.h>

using namespace loupe::visualizer;
using namespace loupe::visualizer::testing;

namespace {
std::string numbered(int n, const std::vector<int> &changed) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    bool c = std::find(changed.begin(), changed.end(), i) != changed.end();
    out += "  %" + std::to_string(i) + " = arith.addf %a, %b : f32 // line " + std::to_string(i) +
           (c ? " changed" : "") + "\n";
  }
  return out;
}
} // namespace

TEST(DiffPanel, HunksAndNextPreviousNavigation) {
  auto a = std::make_shared<const text::IrDocument>(numbered(200, {}));
  auto b = std::make_shared<const text::IrDocument>(numbered(200, {20, 100, 180}));
  DocumentCache docs;
  DiffPanel panel(docs);
  ImGuiHarness ui;
  auto draw = [&] { panel.drawDocuments(a, b, "A", "B"); };
  ui.frames(2, draw);
  ASSERT_NE(panel.diff(), nullptr);
  EXPECT_EQ(panel.hunkCount(), 3u);
  EXPECT_EQ(panel.diff()->deletedLines(), 3u);
  EXPECT_EQ(panel.diff()->insertedLines(), 3u);
  // A new diff starts at the first hunk; next/previous walk the hunks and wrap.
  EXPECT_EQ(panel.currentHunk(), 0);
  ASSERT_TRUE(panel.nextHunk());
  EXPECT_EQ(panel.currentHunk(), 1);
  ASSERT_TRUE(panel.nextHunk());
  EXPECT_EQ(panel.currentHunk(), 2);
  ASSERT_TRUE(panel.nextHunk());
  EXPECT_EQ(panel.currentHunk(), 0);
  ASSERT_TRUE(panel.previousHunk());
  EXPECT_EQ(panel.currentHunk(), 2);
  ui.frame(draw);
  EXPECT_GT(panel.lastDrawnRows(), 0);

  // The same in the unified layout; the 'N' key moves to the next hunk when focused.
  panel.setLayout(text::DiffLayout::Unified);
  ui.frame(draw);
  ui.click(ImVec2(400, 300), draw);
  int before = panel.currentHunk();
  ImGuiIO &io = ImGui::GetIO();
  io.KeysDown['N'] = true;
  ui.frame(draw, false);
  io.KeysDown['N'] = false;
  ui.frame(draw, false);
  EXPECT_EQ(panel.currentHunk(), (before + 1) % 3);
}

TEST(DiffPanel, IgnoreSsaNamesHidesRenumbering) {
  std::string a = "%0 = tosa.add %arg0, %arg1\n%1 = tosa.mul %0, %0\nreturn %1\n";
  std::string b = "%5 = tosa.add %arg0, %arg1\n%6 = tosa.mul %5, %5\nreturn %6\n";
  auto da = std::make_shared<const text::IrDocument>(a);
  auto db = std::make_shared<const text::IrDocument>(b);
  DocumentCache docs;
  DiffPanel panel(docs);
  ImGuiHarness ui;
  auto draw = [&] { panel.drawDocuments(da, db, "A", "B"); };
  ui.frame(draw);
  EXPECT_EQ(panel.hunkCount(), 1u);
  text::DiffOptions options = panel.options();
  options.ignoreSsaNames = true;
  panel.setOptions(options);
  ui.frame(draw);
  EXPECT_TRUE(panel.diff()->identical());
}

TEST(DiffPanel, DefaultsToTheSelectedPassAgainstThePreviousOne) {
  ViewModel vm = mlpTosaViewModel();
  DocumentCache docs;
  DiffPanel panel(docs);
  RecordingActions actions;
  ImGuiHarness ui;
  const CompileView &c = *vm.compile;
  int changedPass = -1, unchangedPass = -1;
  for (const auto &s : c.result.snapshots) {
    if (s.index > 0 && s.changed && s.pass == "tosa-to-linalg" && changedPass < 0)
      changedPass = s.index;
    if (s.index > 0 && !s.changed && unchangedPass < 0)
      unchangedPass = s.index;
  }
  ASSERT_GT(changedPass, 0);
  ASSERT_GT(unchangedPass, 0);
  vm.selectPass(changedPass);
  ui.frames(2, [&] { panel.draw(vm, actions); });
  EXPECT_EQ(panel.passA(), changedPass - 1);
  EXPECT_EQ(panel.passB(), changedPass);
  ASSERT_NE(panel.diff(), nullptr);
  EXPECT_GT(panel.hunkCount(), 0u);

  vm.selectPass(unchangedPass);
  ui.frames(2, [&] { panel.draw(vm, actions); });
  ASSERT_NE(panel.diff(), nullptr);
  EXPECT_TRUE(panel.diff()->identical());

  // An explicit A: the source against the selected pass.
  vm.nav.diffBase = kSourcePass;
  vm.selectPass(changedPass);
  ui.frames(2, [&] { panel.draw(vm, actions); });
  EXPECT_EQ(panel.passA(), kSourcePass);
  EXPECT_GT(panel.hunkCount(), 0u);
}

TEST(DiffPanel, LargeDiffsRunOnTheWorkerWithoutBlockingFrames) {
  auto a = std::make_shared<const text::IrDocument>(generateModule(100000, 0));
  auto b = std::make_shared<const text::IrDocument>(generateModule(100000, 1));
  DocumentCache docs;
  DiffPanel panel(docs);
  text::DiffOptions options;
  options.ignoreSsaNames = true; // variant 1 renumbers every value
  panel.setOptions(options);
  ImGuiHarness ui;
  auto draw = [&] {
    docs.beginFrame();
    panel.drawDocuments(a, b, "A", "B");
  };
  ui.frame(draw);
  EXPECT_TRUE(panel.computing() || panel.diff());
  ASSERT_TRUE(docs.waitIdle(120));
  ui.frames(2, draw);
  ASSERT_NE(panel.diff(), nullptr);
  EXPECT_FALSE(panel.computing());
  EXPECT_GT(panel.hunkCount(), 10u);
}
