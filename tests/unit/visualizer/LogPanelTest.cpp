//===- LogPanelTest.cpp - Diagnostics in the log link to IR lines -------------===//
#include "loupe/visualizer/panels/LogPanel.h"

#include "Fixtures.h"
#include "ImGuiHarness.h"

#include <gtest/gtest.h>

using namespace loupe::visualizer;
using namespace loupe::visualizer::testing;

TEST(LogPanel, FileDiagnosticOfTheModelGoesToTheSourceLine) {
  ViewModel vm = mlpTosaViewModel();
  vm.log.add(LogLevel::Error, "compile",
             vm.compile->modelPath + ":7:10: error: 'tosa.add' op operands don't broadcast", 3);
  LogPanel panel;
  const auto &diags = panel.diagnostics(vm, 0);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].line, 7u);
  ASSERT_TRUE(panel.follow(vm, 0, diags[0]));
  EXPECT_EQ(vm.nav.selectedPass, kSourcePass);
  EXPECT_EQ(vm.nav.irGotoLine, 6);
  EXPECT_EQ(vm.nav.tabRequest, Tab::Ir);
}

TEST(LogPanel, NamedLocationGoesToTheOpInThePassTheMessageIsAbout) {
  ViewModel vm = mlpTosaViewModel();
  vm.log.add(LogLevel::Error, "compile", "error: loc(\"Conv_3\"): failed to legalize", 5);
  LogPanel panel;
  const auto &diags = panel.diagnostics(vm, 0);
  ASSERT_EQ(diags.size(), 1u);
  ASSERT_TRUE(panel.follow(vm, 0, diags[0]));
  EXPECT_EQ(vm.nav.selectedPass, 5);
  EXPECT_EQ(vm.nav.irGotoLocation, "Conv_3");
}

TEST(LogPanel, DrawsEntriesAndNewOnesAreParsedIncrementally) {
  ViewModel vm = mlpTosaViewModel();
  LogPanel panel;
  RecordingActions actions;
  ImGuiHarness ui;
  vm.log.info("compile", "mlp_tosa.mlir: 40 passes");
  ui.frame([&] { panel.draw(vm, actions); });
  vm.log.error("compile", "x.mlir:1:1: error: a\nx.mlir:2:1: error: b");
  ui.frame([&] { panel.draw(vm, actions); });
  EXPECT_EQ(panel.diagnostics(vm, 0).size(), 0u);
  EXPECT_EQ(panel.diagnostics(vm, 1).size(), 2u);
  EXPECT_EQ(vm.log.errorCount(), 1u);
}

namespace {
/// Draws the panel, clicks the link of log line `line` of entry `entry`; false if none drawn.
bool clickLink(ImGuiHarness &ui, LogPanel &panel, ViewModel &vm, size_t entry, size_t line) {
  RecordingActions actions;
  auto draw = [&] { panel.draw(vm, actions); };
  ui.frames(2, draw);
  for (const LogPanel::Link &l : panel.lastLinks())
    if (l.entry == entry && l.line == line) {
      ui.click(ImVec2(l.min.x + 4, (l.min.y + l.max.y) / 2), draw);
      return true;
    }
  return false;
}
} // namespace

TEST(LogPanel, ClickingCollectorDiagnosticsShowsTheIrLine) {
  // The two forms core_compiler's DiagnosticCollector prints, after the failed pass's line.
  ViewModel vm = mlpTosaViewModel();
  std::string model = vm.compile->modelPath;
  vm.log.add(LogLevel::Error, "compile",
             model + ": pass 'tosa-to-linalg' of phase 'lower' failed:\n"
                     "loc(\"Conv_3\"): error: failed to legalize operation 'tosa.conv2d'\n" +
                 model + ":7:10: error: 'tosa.add' op operands don't broadcast",
             4);
  LogPanel panel;
  ImGuiHarness ui;
  ASSERT_TRUE(clickLink(ui, panel, vm, 0, 1));
  EXPECT_EQ(vm.nav.selectedPass, 4);
  EXPECT_EQ(vm.nav.irGotoLocation, "Conv_3");
  EXPECT_EQ(vm.nav.tabRequest, Tab::Ir);

  vm.nav.tabRequest.reset();
  ASSERT_TRUE(clickLink(ui, panel, vm, 0, 2));
  EXPECT_EQ(vm.nav.selectedPass, kSourcePass);
  EXPECT_EQ(vm.nav.irGotoLine, 6);
  EXPECT_EQ(vm.nav.tabRequest, Tab::Ir);
  // The pass's own line is no diagnostic: not a link.
  for (const LogPanel::Link &l : panel.lastLinks())
    EXPECT_NE(l.line, 0u);
}
