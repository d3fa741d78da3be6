//===- IrPanelTest.cpp - IR panel: clipping, search, folds, loc jumps ---------===//
#include "loupe/visualizer/panels/IrPanel.h"

#include "Fixtures.h"
#include "GeneratedModule.h"
#include "ImGuiHarness.h"

#include <gtest/gtest.h>

using namespace loupe::visualizer;
using namespace loupe::visualizer::testing;

namespace {
/// First pass of `phase` that changed the IR.
int firstChanged(const CompileView &c, const std::string &pass) {
  for (const auto &s : c.result.snapshots)
    if (s.changed && s.pass == pass)
      return s.index;
  return -1;
}
} // namespace

TEST(IrPanel, ShowsTheIrAfterTheSelectedPassClippedToTheScreen) {
  ViewModel vm = mlpTosaViewModel();
  DocumentCache docs;
  IrPanel panel(docs);
  RecordingActions actions;
  ImGuiHarness ui(1200, 700);
  int pass = firstChanged(*vm.compile, "tosa-to-linalg");
  ASSERT_GE(pass, 0);
  vm.selectPass(pass);
  ui.frames(2, [&] { panel.draw(vm, actions); });
  ASSERT_NE(panel.document(), nullptr);
  EXPECT_EQ(panel.document()->text(), vm.compile->irAfter(pass));
  EXPECT_GT(panel.lastDrawnRows(), 0);
  EXPECT_LE(static_cast<size_t>(panel.lastDrawnRows()), panel.document()->lineCount());

  // An unchanged pass shows the IR of the last pass that changed it.
  for (const auto &s : vm.compile->result.snapshots)
    if (!s.changed && s.index > 0) {
      vm.selectPass(s.index);
      ui.frame([&] { panel.draw(vm, actions); });
      EXPECT_EQ(panel.document()->text(), vm.compile->irAfter(vm.compile->irSource[s.index]));
      break;
    }
}

TEST(IrPanel, OnlyTheVisibleLinesOfA100kLineModuleAreDrawn) {
  auto doc = std::make_shared<const text::IrDocument>(generateModule(100000));
  ASSERT_GE(doc->lineCount(), 100000u);
  DocumentCache docs;
  IrPanel panel(docs);
  ImGuiHarness ui(1400, 900);
  panel.scrollToRow(50000);
  ui.frames(3, [&] { panel.drawDocument(doc, "generated"); });
  // 900 px / 13 px lines: a screenful, not the document.
  EXPECT_GT(panel.lastDrawnRows(), 20);
  EXPECT_LT(panel.lastDrawnRows(), 90);
  EXPECT_NEAR(static_cast<double>(panel.lastFirstRow()), 50000.0, 5.0);
  double worst = 0;
  for (int i = 0; i < 10; ++i)
    worst = std::max(worst, ui.frame([&] { panel.drawDocument(doc, "generated"); }));
  // Generous bound for a loaded shared machine; bench/gui measures the real figure.
  EXPECT_LT(worst, 50.0);
}

TEST(IrPanel, SearchNextPreviousAndFolds) {
  auto doc = std::make_shared<const text::IrDocument>(generateModule(2000));
  DocumentCache docs;
  IrPanel panel(docs);
  ImGuiHarness ui;
  auto draw = [&] { panel.drawDocument(doc, "generated"); };
  ui.frame(draw);
  panel.setSearch("@f3(");
  EXPECT_EQ(panel.matchCount(), 1);
  ASSERT_TRUE(panel.findNext());
  size_t f3 = panel.cursorLine();
  EXPECT_NE(doc->line(f3).find("func.func @f3("), std::string_view::npos);

  panel.setSearch("tosa.abs");
  EXPECT_GT(panel.matchCount(), 2);
  ASSERT_TRUE(panel.findNext());
  size_t first = panel.cursorLine();
  ASSERT_TRUE(panel.findNext());
  size_t second = panel.cursorLine();
  EXPECT_GT(second, first);
  ASSERT_TRUE(panel.findNext(false));
  EXPECT_EQ(panel.cursorLine(), first);

  // Fold everything: only the module's braces stay; a search reveals what it lands in.
  panel.foldAll();
  ui.frame(draw);
  // The module's region hides its ~2000 lines; the #loc alias table after it stays.
  const text::FoldRegion &module = doc->foldRegions().front();
  EXPECT_EQ(module.startLine, 0u);
  EXPECT_EQ(panel.folds().visibleLineCount(), doc->lineCount() - (module.endLine - module.startLine - 1));
  ASSERT_TRUE(panel.findNext());
  EXPECT_FALSE(panel.folds().isHidden(panel.cursorLine()));
  panel.unfoldAll();
  EXPECT_EQ(panel.folds().visibleLineCount(), doc->lineCount());
}

TEST(IrPanel, CursorLineLocAndJumpToTheSourceOp) {
  ViewModel vm = mlpTosaViewModel();
  DocumentCache docs;
  IrPanel panel(docs);
  RecordingActions actions;
  ImGuiHarness ui;
  int pass = firstChanged(*vm.compile, "tosa-to-linalg");
  vm.selectPass(pass);
  ui.frame([&] { panel.draw(vm, actions); });
  // mlp_tosa.mlir names every op: loc("fc1") survives lowering onto the linalg ops.
  const auto &doc = *panel.document();
  std::vector<size_t> fc1 = doc.linesWithLocation("fc1");
  ASSERT_FALSE(fc1.empty()) << "no op with loc fc1 after tosa-to-linalg";
  vm.nav.irGotoLine = static_cast<int>(fc1.back());
  ui.frames(2, [&] { panel.draw(vm, actions); });
  EXPECT_EQ(panel.cursorLine(), fc1.back());
  ASSERT_FALSE(panel.cursorLocations().empty());
  EXPECT_EQ(panel.cursorLocations()[0], "fc1");

  // What "source op" does for a .mlir model: the op with that loc in the model source.
  vm.showIrLocation(kSourcePass, "fc1");
  ui.frames(2, [&] { panel.draw(vm, actions); });
  EXPECT_EQ(vm.nav.selectedPass, kSourcePass);
  EXPECT_EQ(panel.document()->text(), vm.compile->sourceText);
  EXPECT_NE(panel.document()->line(panel.cursorLine()).find("tosa.fully_connected"),
            std::string_view::npos);

  // A file location of the model goes to its line.
  vm.showIrLine(kSourcePass, 5);
  ui.frames(2, [&] { panel.draw(vm, actions); });
  EXPECT_EQ(panel.cursorLine(), 5u);

  // An unknown loc leaves the cursor and says so in the log.
  size_t before = vm.log.entries().size();
  vm.showIrLocation(0, "no-such-node");
  ui.frames(2, [&] { panel.draw(vm, actions); });
  EXPECT_EQ(vm.log.entries().size(), before + 1);
}

TEST(IrPanel, KeyboardMovesTheCursorWhenTheTextHasFocus) {
  auto doc = std::make_shared<const text::IrDocument>(generateModule(500));
  DocumentCache docs;
  IrPanel panel(docs);
  ImGuiHarness ui;
  auto draw = [&] { panel.drawDocument(doc, "generated"); };
  ui.frame(draw);
  // Click into the text to focus it (and put the cursor there).
  ImGuiIO &io = ImGui::GetIO();
  ui.click(ImVec2(300, 200), draw);
  size_t clicked = panel.cursorLine();
  EXPECT_GT(clicked, 0u);
  io.KeysDown[ImGuiKey_DownArrow] = true;
  ui.frame(draw, false);
  io.KeysDown[ImGuiKey_DownArrow] = false;
  ui.frame(draw, false);
  EXPECT_EQ(panel.cursorLine(), clicked + 1);
}
