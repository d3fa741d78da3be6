//===- DispatchPanelTest.cpp - Dispatch table, overrides and recompile --------===//
//
// On the real compiler: the CNN's conv1 runs on oneDNN by plevel; picking codegen in its
// override drop-down and pressing Recompile compiles it again with the override, and the
// dispatch's backend changes. Save writes the override into the session file.
//
//===----------------------------------------------------------------------===//
#include "loupe/visualizer/panels/DispatchPanel.h"

#include "Fixtures.h"
#include "GeneratedGraph.h"
#include "ImGuiHarness.h"

#include "loupe/visualizer/Controller.h"
#include "loupe/profiler/CpuCollector.h"
#include "loupe/profiler/Store.h"
#include "loupe/sessions/Tune.h"

#include <gtest/gtest.h>

using namespace loupe::visualizer;
using namespace loupe::visualizer::testing;
namespace compiler = loupe::compiler;
namespace graph = loupe::visualizer::graph;
namespace sessions = loupe::sessions;

namespace {
/// The dispatch running conv1's convolution, or null.
const graph::DispatchEntry *conv1(const ViewModel &vm) {
  for (const graph::DispatchEntry &d : vm.compile->graph->dispatches)
    if (d.opKind == "conv2d" && d.overrideLoc == "conv1")
      return &d;
  return nullptr;
}

TEST(DispatchPanel, OverrideRecompileAndSave) {
  TempDir dir;
  ControllerOptions options;
  options.dbPath = dir.str("profiles.db");
  Controller controller(options);
  ASSERT_TRUE(controller.openModel(std::string(LOUPE_SOURCE_DIR) + "/examples/models/cnn.onnx"));
  ASSERT_TRUE(controller.waitIdle(300));
  ViewModel &vm = controller.vm();
  ASSERT_TRUE(vm.compile && vm.compile->result.ok());
  const graph::DispatchEntry *conv = conv1(vm);
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->summary.backend, "onednn");
  EXPECT_EQ(conv->kind, "library");
  int64_t convId = conv->summary.id;

  ImGuiHarness ui(1800, 900);
  DispatchPanel panel;
  int saves = 0;
  panel.setSave([&] {
    ++saves;
    controller.saveSession(dir.str("cnn.json"));
  });
  auto draw = [&] {
    controller.beginFrame();
    panel.draw(vm, controller);
  };
  ui.frames(2, draw);
  // The override drop-down of conv1's dispatch: open it, pick codegen.
  ScreenRect combo = panel.overrideRect(convId);
  ASSERT_FALSE(combo.empty());
  ui.click(combo.center(), draw);
  ui.frame(draw, false);
  ScreenRect item = panel.popupItemRect("codegen");
  ASSERT_FALSE(item.empty());
  ASSERT_FALSE(panel.popupItemRect("onednn").empty());
  ui.click(item.center(), draw);
  EXPECT_EQ(panel.overrides().at("conv1"), "codegen");
  EXPECT_TRUE(panel.hasPendingEdits(vm));
  EXPECT_TRUE(vm.session.pipeline.backendOverrides.empty()) << "pending until Recompile";

  // Recompile: the override goes into the session and the compiler honours it.
  ui.click(panel.recompileRect().center(), draw);
  EXPECT_EQ(vm.session.pipeline.backendOverrides.at("conv1"), "codegen");
  EXPECT_TRUE(vm.sessionDirty);
  EXPECT_FALSE(panel.hasPendingEdits(vm));
  ASSERT_TRUE(controller.waitIdle(300));
  ui.frame(draw);
  ASSERT_TRUE(vm.compile->result.ok());
  EXPECT_EQ(vm.compile->options.backendOverrides.at("conv1"), "codegen");
  conv = conv1(vm);
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->summary.backend, "codegen");
  EXPECT_NE(conv->summary.reason.find("override for 'conv1'"), std::string::npos)
      << conv->summary.reason;
  EXPECT_EQ(conv->plevel, 10);
  EXPECT_NE(conv->kind, "library");
  // conv2 kept its library backend.
  bool conv2OnOneDnn = false;
  for (const graph::DispatchEntry &d : vm.compile->graph->dispatches)
    conv2OnOneDnn |= d.overrideLoc == "conv2" && d.summary.backend == "onednn";
  EXPECT_TRUE(conv2OnOneDnn);

  // Save writes the override into the session file.
  panel.save(vm);
  EXPECT_EQ(saves, 1);
  auto saved = sessions::loadSession(dir.str("cnn.json"));
  ASSERT_TRUE(saved.isOk()) << saved.status().message();
  EXPECT_EQ(saved->pipeline.backendOverrides.at("conv1"), "codegen");
  EXPECT_FALSE(vm.sessionDirty);

  // Back to the default: the entry disappears from the edits.
  panel.setOverride("conv1", "");
  EXPECT_TRUE(panel.overrides().empty());
  EXPECT_TRUE(panel.hasPendingEdits(vm));
}

TEST(DispatchPanel, EditsFollowTheSessionAndTableIsClipped) {
  ViewModel vm;
  vm.session.model = "generated.onnx";
  vm.session.pipeline.backendOverrides = {{"b0_mm1", "openblas"}};
  vm.compile = makeCompileView("generated.onnx", {}, generatedGraph(9000), 0, 0);
  DispatchPanel panel;
  RecordingActions actions;
  ImGuiHarness ui(1800, 900);
  ui.frames(2, [&] { panel.draw(vm, actions); });
  EXPECT_EQ(panel.overrides().at("b0_mm1"), "openblas");
  EXPECT_FALSE(panel.hasPendingEdits(vm));
  EXPECT_FALSE(panel.overrideRect(0).empty()) << "the first rows are drawn";
  EXPECT_TRUE(panel.overrideRect(4000).empty()) << "rows off screen are not";
  // Another session: the edits start over from its overrides.
  panel.setOverride("b1_mm2", "codegen");
  vm.session.pipeline.backendOverrides = {{"b2_mm1", "codegen"}};
  ui.frame([&] { panel.draw(vm, actions); });
  EXPECT_EQ(panel.overrides(), vm.session.pipeline.backendOverrides);
  panel.recompile(vm, actions);
  EXPECT_EQ(actions.compiles, 1);
}

TEST(DispatchPanel, ClusterColumnExplainsTheClusterInTheGraph) {
  ViewModel vm;
  vm.session.model = "generated.onnx";
  compiler::CompileResult result = generatedGraph(18);
  result.dispatches[1].fallbacks = {"ral_gemm_openblas"};
  vm.compile = makeCompileView("generated.onnx", {}, result, 0, 0);
  DispatchPanel panel;
  RecordingActions actions;
  ImGuiHarness ui(1800, 900);
  auto draw = [&] { panel.draw(vm, actions); };
  ui.frames(2, draw);
  // Dispatch 7 (b1_add2, b1_res, b1_mul) is cluster 7's kernel: its cluster cell is a link.
  ScreenRect link = panel.clusterRect(7);
  ASSERT_FALSE(link.empty());
  ui.click(link.center(), draw);
  EXPECT_EQ(vm.nav.selectedCluster, 7);
  EXPECT_EQ(vm.nav.selectedDispatch, 7);
  EXPECT_EQ(vm.nav.selectedNode, -1);
  ASSERT_TRUE(vm.nav.tabRequest.has_value());
  EXPECT_EQ(*vm.nav.tabRequest, Tab::Graph);
  EXPECT_TRUE(vm.nav.graphFocus);
  // A copy bufferization added (no cluster) has no link.
  result.dispatches[3].cluster = -1;
  vm.compile = makeCompileView("generated.onnx", {}, result, 1, 0);
  ui.frames(2, draw);
  EXPECT_TRUE(panel.clusterRect(3).empty());
  EXPECT_FALSE(panel.clusterRect(4).empty());
}

TEST(DispatchPanel, TunedColumnShowsTheTuningTable) {
  // A tuning row for conv1's signature in the session's DB (what `loupe tune` stores): the
  // dispatch's tuned cell names the backend kept; dispatches without a row show none.
  TempDir dir;
  ControllerOptions options;
  options.dbPath = dir.str("profiles.db");
  Controller controller(options);
  ASSERT_TRUE(controller.openModel(std::string(LOUPE_SOURCE_DIR) + "/examples/models/cnn.onnx"));
  ASSERT_TRUE(controller.waitIdle(300));
  ViewModel &vm = controller.vm();
  const graph::DispatchEntry *conv = conv1(vm);
  ASSERT_NE(conv, nullptr);
  ASSERT_FALSE(conv->summary.signature.empty());
  {
    auto store = loupe::profiler::Store::open(options.dbPath);
    ASSERT_TRUE(store.isOk());
    ASSERT_TRUE(store->putTuning({{conv->summary.signature, "cpu", loupe::profiler::cpuDeviceName(),
                                   "conv2d", "codegen", "onednn",
                                   R"([{"backend":"onednn","median_ns":26000,"verdict":"default"},)"
                                   R"({"backend":"codegen","median_ns":20000,"change":-0.23,"verdict":"FASTER"}])",
                                   "conv1", "cnn.onnx", "b", 0}})
                    .isOk());
  }
  controller.refreshRuns();
  ASSERT_TRUE(controller.waitIdle(300));
  ASSERT_TRUE(vm.runs && vm.runs->tuning.count(conv->summary.signature));
  ImGuiHarness ui(2400, 900);
  DispatchPanel panel;
  auto draw = [&] {
    controller.beginFrame();
    panel.draw(vm, controller);
  };
  ui.frames(2, draw);
  EXPECT_EQ(panel.tunedBackend(conv->summary.id), "codegen");
  EXPECT_EQ(panel.tunedBackend(0), "") << "a transpose: no library backend, no tuning";
  std::string lines = sessions::describeTuning(vm.runs->tuning.at(conv->summary.signature));
  EXPECT_NE(lines.find("onednn 26.00 us (default)"), std::string::npos) << lines;
  EXPECT_NE(lines.find("codegen 20.00 us -23.0% FASTER"), std::string::npos) << lines;
}

} // namespace
