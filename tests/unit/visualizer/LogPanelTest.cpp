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
