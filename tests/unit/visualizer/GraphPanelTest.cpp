//===- GraphPanelTest.cpp - Op graph model, dot layout and the graph panel ----===//
#include "loupe/visualizer/panels/GraphPanel.h"

#include "Fixtures.h"
#include "GeneratedGraph.h"
#include "ImGuiHarness.h"
#include "RunDataFactory.h"

#include "loupe/visualizer/Format.h"

#include <gtest/gtest.h>

#include <set>

#include <algorithm>

using namespace loupe::visualizer;
using namespace loupe::visualizer::testing;
namespace compiler = loupe::compiler;
namespace graph = loupe::visualizer::graph;

namespace {
std::shared_ptr<const CompileView> generatedView(int ops) {
  compiler::CompileOptions options;
  return makeCompileView("generated.onnx", options, generatedGraph(ops), 0, 0);
}

/// Every consumer lies below its producer; no two boxes overlap.
void expectLayered(const graph::GraphLayout &layout, const std::vector<std::pair<int, int>> &edges,
                   bool checkOverlaps) {
  ASSERT_TRUE(layout.ok()) << layout.error;
  for (auto [a, b] : edges)
    EXPECT_LT(layout.nodes[a].y, layout.nodes[b].y) << a << " -> " << b;
  for (const graph::EdgePath &e : layout.edges) {
    ASSERT_GE(e.points.size(), 4u);
    EXPECT_EQ((e.points.size() - 1) % 3, 0u) << "cubic Bézier control points";
  }
  if (!checkOverlaps)
    return;
  for (size_t i = 0; i < layout.nodes.size(); ++i)
    for (size_t j = i + 1; j < layout.nodes.size(); ++j) {
      const graph::NodeBox &p = layout.nodes[i], &q = layout.nodes[j];
      bool apart = p.right() <= q.left() || q.right() <= p.left() || p.bottom() <= q.top() ||
                   q.bottom() <= p.top();
      EXPECT_TRUE(apart) << i << " overlaps " << j;
    }
}

TEST(GraphModel, OpsJoinDispatchesByLoc) {
  auto view = generatedView(18);
  const graph::GraphModel &m = *view->graph;
  ASSERT_EQ(m.nodes.size(), 19u);
  ASSERT_EQ(m.dispatches.size(), 10u);
  EXPECT_EQ(m.edges.size(), 22u);
  // b0_mm1, b0_add1, b0_relu1 are one oneDNN epilogue dispatch: the matmul is its op.
  const graph::DispatchEntry &epilogue = m.dispatches[0];
  EXPECT_EQ(epilogue.kind, "library");
  EXPECT_EQ(epilogue.nodes, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(epilogue.opKind, "matmul");
  EXPECT_EQ(epilogue.overrideLoc, "b0_mm1");
  EXPECT_EQ(epilogue.plevel, 15);
  ASSERT_EQ(epilogue.alternatives.size(), 3u);
  EXPECT_EQ(epilogue.alternatives[0].backend, "onednn");
  EXPECT_TRUE(epilogue.alternatives[0].available) << epilogue.alternatives[0].why;
  EXPECT_EQ(epilogue.alternatives[1].backend, "openblas");
  EXPECT_EQ(epilogue.alternatives[2].backend, "codegen");
  EXPECT_EQ(m.dispatches[3].kind, "row reduction");
  EXPECT_EQ(m.dispatches[2].kind, "loop");
  EXPECT_TRUE(m.dispatches[2].opKind.empty()) << "no library backend runs a fused add";
  EXPECT_TRUE(m.dispatches[2].alternatives.empty());
  for (int n : {1, 2, 3}) {
    EXPECT_EQ(m.nodes[n].cluster, 0);
    EXPECT_EQ(m.nodes[n].backend, "onednn");
  }
  EXPECT_EQ(m.nodes[0].cluster, -1) << "the input is in no dispatch";
  EXPECT_EQ(m.nodes[8].cluster, 3) << "b0_rsum";
}

TEST(GraphModel, OpsJoinClustersByLoc) {
  auto view = generatedView(18);
  const graph::GraphModel &m = *view->graph;
  ASSERT_EQ(m.clusters.size(), 10u);
  ASSERT_EQ(m.refusedMerges.size(), 6u);
  // b0_mm1, b0_add1, b0_relu1: one oneDNN library cluster, drawn in it.
  const graph::ClusterEntry &epilogue = m.clusters[0];
  EXPECT_EQ(epilogue.kind, "library");
  EXPECT_EQ(epilogue.nodes, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(epilogue.dispatches, (std::vector<int>{0}));
  for (int n : {1, 2, 3}) {
    EXPECT_EQ(m.nodes[n].clusters, (std::vector<int>{0}));
    EXPECT_EQ(m.nodes[n].cluster, 0);
  }
  EXPECT_EQ(m.nodes[4].cluster, 1) << "b0_mm2";
  EXPECT_EQ(m.nodes[4].backend, "onednn");
  for (int n : {5, 6, 7}) // add2, res, mul: one loop cluster named by one fused op's loc
    EXPECT_EQ(m.nodes[n].cluster, 2);
  EXPECT_EQ(m.nodes[8].cluster, 3) << "b0_rsum";
  EXPECT_EQ(m.nodes[10].cluster, 5) << "b1_mm1";
  // The refused merges around b0_mm2's cluster: from the epilogue (its input is
  // materialised) and into the add2 loop.
  const graph::ClusterEntry &mm2 = m.clusters[1];
  ASSERT_EQ(mm2.refusedMerges.size(), 2u);
  const compiler::RefusedMerge &in = m.refusedMerges[mm2.refusedMerges[0]];
  const compiler::RefusedMerge &out = m.refusedMerges[mm2.refusedMerges[1]];
  EXPECT_EQ(in.producerCluster, 0);
  EXPECT_EQ(in.consumerCluster, 1);
  EXPECT_NE(in.rule.find("materialised"), std::string::npos);
  EXPECT_EQ(out.producerCluster, 1);
  EXPECT_EQ(out.consumerCluster, 2);
  EXPECT_EQ(m.clusterIndex(7), 7);
  EXPECT_EQ(m.clusterIndex(99), -1);
}

TEST(GraphModel, MapsGraphOpsToRegistryOps) {
  auto summary = [](std::string name, std::string op, std::string kind = "") {
    compiler::DispatchSummary d;
    d.name = std::move(name);
    d.op = std::move(op);
    d.kind = std::move(kind);
    return d;
  };
  compiler::DispatchSummary lib = summary("dispatch_3_ral_conv_onednn", "ral.dispatch");
  compiler::DispatchSummary gen = summary("dispatch_4_conv_2d_nhwc_fhwc", "linalg.conv_2d_nhwc_fhwc");
  compiler::DispatchSummary transpose = summary("dispatch_0_transpose", "linalg.transpose");
  compiler::DispatchSummary bmm = summary("dispatch_1_ral_batch_gemm_onednn", "ral.dispatch");
  EXPECT_EQ(graph::libraryOpKind("tosa.conv2d", lib), "conv2d");
  EXPECT_EQ(graph::libraryOpKind("tosa.conv2d", gen), "conv2d");
  EXPECT_EQ(graph::libraryOpKind("tosa.conv2d", transpose), "");
  EXPECT_EQ(graph::libraryOpKind("tosa.transpose", transpose), "");
  EXPECT_EQ(graph::libraryOpKind("tosa.matmul", bmm), "batch_matmul");
  // Max pooling: oneDNN's kernel, or the generated window reduction (not TOSA's padded copy).
  EXPECT_EQ(graph::libraryOpKind("tosa.max_pool2d",
                                 summary("dispatch_2_ral_max_pool_onednn", "ral.dispatch")),
            "max_pool2d");
  EXPECT_EQ(graph::libraryOpKind("tosa.max_pool2d",
                                 summary("dispatch_5_generic_reduce", "linalg.generic", "kInput")),
            "max_pool2d");
  EXPECT_EQ(graph::libraryOpKind("tosa.max_pool2d", summary("dispatch_2_map", "linalg.map", "kLoop")),
            "");
  // The int8 forms: oneDNN's kernels or generated code.
  EXPECT_EQ(graph::libraryOpKind("tosa.conv2d", summary("dispatch_3_ral_qconv_onednn",
                                                        "ral.dispatch")),
            "quantized_conv2d");
  EXPECT_EQ(graph::libraryOpKind("tosa.conv2d", summary("dispatch_4_conv_2d_nhwc_fhwc_q",
                                                        "linalg.conv_2d_nhwc_fhwc_q")),
            "quantized_conv2d");
  EXPECT_EQ(graph::libraryOpKind("linalg.quantized_batch_matmul",
                                 summary("dispatch_5_ral_qgemm_onednn", "ral.dispatch")),
            "quantized_batch_matmul");
  EXPECT_EQ(graph::dispatchKind(lib), "library");
  EXPECT_EQ(graph::dispatchKind(transpose), "loop");
  EXPECT_EQ(graph::dispatchKind(summary("dispatch_2_reduce", "linalg.reduce")), "reduction");
  // The compiler's fusion kind, when it gives one, wins over the name.
  EXPECT_EQ(graph::dispatchKind(summary("dispatch_5_generic", "linalg.generic", "kRowReduction")),
            "row reduction");
  EXPECT_EQ(graph::dispatchKind(summary("dispatch_5_generic", "linalg.generic", "kColReduction")),
            "column reduction");
  EXPECT_EQ(graph::dispatchKind(summary("dispatch_6_x", "linalg.generic", "kStitch")), "stitch");
  EXPECT_EQ(graph::deviceOfTarget("cuda"), "gpu");
}

TEST(GraphModel, RealCnnCompile) {
  auto view = cnnCompile();
  ASSERT_TRUE(view->result.ok()) << view->result.error->message;
  const graph::GraphModel &m = *view->graph;
  ASSERT_FALSE(m.nodes.empty());
  ASSERT_FALSE(m.dispatches.empty());
  int convs = 0;
  for (const graph::NodeEntry &n : m.nodes) {
    if (n.node.op != "tosa.conv2d")
      continue;
    ++convs;
    ASSERT_GE(n.dispatch, 0) << n.node.name;
    const graph::DispatchEntry &d = m.dispatches[n.dispatch];
    EXPECT_EQ(d.kind, "library") << "a conv is drawn in its library dispatch, not a transpose";
    EXPECT_EQ(d.opKind, "conv2d");
    EXPECT_EQ(d.overrideLoc, n.node.name);
    EXPECT_EQ(n.backend, "onednn");
    EXPECT_NE(d.summary.reason.find("highest plevel"), std::string::npos) << d.summary.reason;
  }
  EXPECT_EQ(convs, 2);
  // Finding "conv1" picks its convolution, not the transposes around it (same loc).
  ViewModel vm;
  vm.compile = view;
  GraphPanel panel;
  ASSERT_TRUE(panel.find(vm, "conv1"));
  EXPECT_EQ(m.nodes[vm.nav.selectedNode].node.op, "tosa.conv2d");
  EXPECT_EQ(m.nodes[vm.nav.selectedNode].node.name, "conv1");
  EXPECT_TRUE(vm.nav.graphFocus);
}

TEST(GraphModel, RealCnnClusters) {
  auto view = cnnCompile();
  ASSERT_TRUE(view->result.ok()) << view->result.error->message;
  const graph::GraphModel &m = *view->graph;
  ASSERT_FALSE(m.clusters.empty());
  ASSERT_FALSE(m.refusedMerges.empty());
  // Every kernel is in the cluster its id names, or in none (copies bufferization added).
  for (size_t d = 0; d < m.dispatches.size(); ++d) {
    int c = m.clusterIndex(m.dispatches[d].summary.cluster);
    if (m.dispatches[d].summary.cluster < 0)
      continue;
    ASSERT_GE(c, 0) << m.dispatches[d].summary.name;
    const std::vector<int> &kernels = m.clusters[c].dispatches;
    EXPECT_NE(std::find(kernels.begin(), kernels.end(), static_cast<int>(d)), kernels.end());
  }
  auto clusterOf = [&](const std::string &name, const std::string &op) {
    for (const graph::NodeEntry &n : m.nodes)
      if (n.node.name == name && n.node.op == op)
        return n.cluster < 0 ? nullptr : &m.clusters[n.cluster];
    return static_cast<const graph::ClusterEntry *>(nullptr);
  };
  // conv1's ops are named by three clusters (input transpose, pad, the convolution): each is
  // drawn in the convolution's library cluster.
  const graph::ClusterEntry *conv = clusterOf("conv1", "tosa.conv2d");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->summary.kind, "kLibrary");
  EXPECT_EQ(conv->summary.backend, "onednn");
  EXPECT_EQ(clusterOf("conv1", "tosa.transpose"), conv);
  for (const graph::NodeEntry &n : m.nodes)
    if (n.node.name == "conv1")
      EXPECT_EQ(n.clusters.size(), 3u);
  // bn1 was folded into conv1's weights at import (no op of its own is left), so relu1
  // follows the convolution directly and is its oneDNN post-op, in its cluster.
  const graph::ClusterEntry *pool = clusterOf("pool1", "tosa.max_pool2d");
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->summary.kind, "kLibrary"); // oneDNN's max pooling.
  EXPECT_EQ(pool->summary.backend, "onednn");
  for (const graph::NodeEntry &n : m.nodes)
    EXPECT_NE(n.node.name, "bn1");
  EXPECT_EQ(clusterOf("relu1", "tosa.clamp"), conv);
  // Around the convolution: the pad before it and the pooling after it were refused.
  std::vector<std::string> around;
  for (int r : conv->refusedMerges) {
    const compiler::RefusedMerge &merge = m.refusedMerges[r];
    bool producer = merge.producerCluster == conv->summary.id;
    EXPECT_TRUE(producer || merge.consumerCluster == conv->summary.id);
    int other = m.clusterIndex(producer ? merge.consumerCluster : merge.producerCluster);
    ASSERT_GE(other, 0);
    around.push_back((producer ? "into " : "from ") + m.clusters[other].summary.ops.back());
  }
  EXPECT_EQ(around, (std::vector<std::string>{"from tensor.pad@conv1", "into linalg.pooling_nhwc_max@pool1"}));
}

TEST(GraphLayout, DotLaysOutLayersWithoutOverlaps) {
  auto view = generatedView(90);
  graph::LayoutInput input = {std::vector<std::pair<float, float>>(view->graph->nodes.size(), {80, 30}),
                              view->graph->edges};
  graph::GraphLayout layout = graph::layoutGraph(input);
  EXPECT_EQ(layout.bands, 1);
  expectLayered(layout, input.edges, true);
  EXPECT_FLOAT_EQ(layout.nodes[5].w, 80);
  EXPECT_LE(layout.minY, layout.nodes[0].top());
  // Bad input is an error, not a crash.
  graph::LayoutInput bad{{{10, 10}}, {{0, 3}}};
  EXPECT_FALSE(graph::layoutGraph(bad).ok());
  EXPECT_TRUE(graph::layoutGraph({}).ok());
}

TEST(GraphLayout, LargeGraphsAreLaidOutInBands) {
  auto view = generatedView(1800);
  graph::LayoutInput input = {std::vector<std::pair<float, float>>(view->graph->nodes.size(), {80, 30}),
                              view->graph->edges};
  graph::LayoutOptions options;
  options.maxBandNodes = 200;
  graph::GraphLayout layout = graph::layoutGraph(input, options);
  EXPECT_GE(layout.bands, 9);
  expectLayered(layout, input.edges, false);
}

TEST(GraphModel, CollapsedClustersAreOneNodeEach) {
  // The CNN collapsed: one node per cluster that has ops drawn in it, named and coloured like
  // its main op (conv1's library cluster by conv1 itself), labelled with its pattern; ops
  // outside clusters (the input) stay; edges join different nodes, once each.
  auto view = cnnCompile();
  ASSERT_TRUE(view->result.ok());
  const graph::GraphModel &m = *view->graph;
  auto collapsed = graph::collapseClusters(m);
  std::set<int> drawnClusters;
  size_t unclustered = 0;
  for (const graph::NodeEntry &n : m.nodes)
    n.cluster >= 0 ? (void)drawnClusters.insert(n.cluster) : (void)++unclustered;
  EXPECT_EQ(collapsed->nodes.size(), drawnClusters.size() + unclustered);
  std::set<int> seen;
  for (size_t i = 0; i < collapsed->nodes.size(); ++i) {
    const graph::NodeEntry &n = collapsed->nodes[i];
    EXPECT_EQ(n.node.id, static_cast<int>(i));
    if (n.cluster >= 0) {
      EXPECT_TRUE(seen.insert(n.cluster).second) << "cluster " << n.cluster << " twice";
      EXPECT_EQ(collapsed->clusters[n.cluster].nodes, std::vector<int>{static_cast<int>(i)});
    }
  }
  std::set<std::pair<int, int>> edges(collapsed->edges.begin(), collapsed->edges.end());
  EXPECT_EQ(edges.size(), collapsed->edges.size());
  for (auto [a, b] : collapsed->edges)
    EXPECT_NE(a, b);
  int conv = collapsed->nodeNamed("conv1");
  ASSERT_GE(conv, 0);
  EXPECT_EQ(collapsed->nodes[conv].node.op, "conv_bias_act");
  EXPECT_EQ(collapsed->nodes[conv].backend, "onednn");
}

TEST(GraphLayout, GroupsKeepTheirOpsInsideTheirBox) {
  // A chain of 8 ops in two groups of 4 (two "blocks"): each group gets a box holding its ops.
  graph::LayoutInput input;
  input.sizes.assign(8, {80, 30});
  for (int i = 0; i + 1 < 8; ++i)
    input.edges.push_back({i, i + 1});
  input.groups = {0, 0, 0, 0, 1, 1, 1, 1};
  input.groupNames = {"layer1", "layer2"};
  graph::GraphLayout layout = graph::layoutGraph(input);
  ASSERT_TRUE(layout.ok()) << layout.error;
  ASSERT_EQ(layout.groups.size(), 2u);
  for (const graph::GroupBox &g : layout.groups) {
    int group = g.name == "layer1" ? 0 : 1;
    for (int i = 0; i < 8; ++i) {
      const graph::NodeBox &n = layout.nodes[i];
      bool inside = n.left() >= g.box.left() - 0.5f && n.right() <= g.box.right() + 0.5f &&
                    n.top() >= g.box.top() - 0.5f && n.bottom() <= g.box.bottom() + 0.5f;
      EXPECT_EQ(inside, input.groups[i] == group) << g.name << " op " << i;
    }
  }
  // A group index out of range is an error, not a crash.
  input.groups[3] = 7;
  EXPECT_FALSE(graph::layoutGraph(input).ok());
}

TEST(GraphPanel, OpsAreGroupedByTheShallowestScopeGivingFourGroups) {
  // torch-style names: depth 1 gives only "encoder"; depth 2 gives 4 layers. Unscoped names
  // (the example models') get no group.
  graph::GraphModel model;
  for (const char *name : {"/encoder/layers.0/Add", "/encoder/layers.1/Add",
                           "/encoder/layers.2/MatMul", "/encoder/layers.3/Add", "fc1"}) {
    graph::NodeEntry n;
    n.node.name = name;
    model.nodes.push_back(n);
  }
  graph::LayoutInput input;
  GraphPanel::groupByScope(model, input);
  ASSERT_EQ(input.groups.size(), 5u);
  EXPECT_EQ(input.groupNames[input.groups[0]], "encoder/layers.0");
  EXPECT_EQ(input.groupNames[input.groups[3]], "encoder/layers.3");
  EXPECT_EQ(input.groups[4], -1);
  graph::GraphModel unscoped;
  unscoped.nodes.resize(3);
  graph::LayoutInput none;
  GraphPanel::groupByScope(unscoped, none);
  EXPECT_TRUE(none.groups.empty());
}

struct PanelFixture {
  ImGuiHarness ui{1400, 900};
  GraphPanel panel;
  RecordingActions actions;
  ViewModel vm;
  std::function<void()> draw = [this] {
    panel.beginFrame();
    panel.draw(vm, actions);
  };
  /// Frames until the layout is there.
  void settle() {
    ui.frame(draw);
    ASSERT_TRUE(panel.waitIdle(60));
    ui.frames(2, draw);
  }
  ImVec2 centreOf(int node) {
    auto layout = panel.request(vm.compile->graph);
    const graph::NodeBox &b = layout->nodes[node];
    return panel.view().toScreen({b.x, b.y});
  }
};

TEST(GraphPanel, ColoursByClusterAndClickShowsDetails) {
  PanelFixture f;
  f.vm.compile = generatedView(90);
  f.settle();
  auto layout = f.panel.request(f.vm.compile->graph);
  ASSERT_NE(layout, nullptr);
  const graph::GraphModel &m = *f.vm.compile->graph;
  graph::GraphView &view = f.panel.view();
  EXPECT_GT(view.lastDrawnNodes(), 0);
  EXPECT_GT(view.lastDrawnLabels(), 0) << "opens readable, at most 100%";
  // Ops of one cluster share its colour; the next cluster has another.
  EXPECT_EQ(view.nodeColor(m, 1), view.nodeColor(m, 2));
  EXPECT_EQ(view.nodeColor(m, 1), view.nodeColor(m, 3));
  EXPECT_NE(view.nodeColor(m, 3), view.nodeColor(m, 4));
  view.colorBy = graph::ColorBy::Backend;
  EXPECT_EQ(view.nodeColor(m, 1), view.nodeColor(m, 4)) << "both onednn";
  EXPECT_NE(view.nodeColor(m, 4), view.nodeColor(m, 5)) << "onednn vs codegen";
  view.colorBy = graph::ColorBy::Cluster;

  // Click b0_relu1: the op and its cluster are selected.
  f.ui.click(f.centreOf(3), f.draw);
  EXPECT_EQ(f.vm.nav.selectedNode, 3);
  EXPECT_EQ(f.vm.nav.selectedDispatch, 0);
  EXPECT_EQ(f.vm.nav.selectedCluster, 0);
  // Between b0_mm1 and b0_add1 (inside their fused cluster's outline, on no op): the cluster.
  const graph::NodeBox &mm1 = layout->nodes[1], &add1 = layout->nodes[2];
  ImVec2 gap = view.toScreen({mm1.x, (mm1.bottom() + add1.top()) * 0.5f});
  f.ui.click(gap, f.draw);
  EXPECT_EQ(f.vm.nav.selectedNode, -1);
  EXPECT_EQ(f.vm.nav.selectedCluster, 0);
  EXPECT_EQ(f.vm.nav.selectedDispatch, 0) << "the cluster's only kernel";
  // Empty canvas: nothing.
  ImVec2 empty = view.toScreen({layout->maxX + 200, mm1.y});
  f.ui.click(empty, f.draw);
  EXPECT_EQ(f.vm.nav.selectedDispatch, -1);
  EXPECT_EQ(f.vm.nav.selectedCluster, -1);
  // The details pane's "Show in the dispatch table" is a request to the workbench.
  f.ui.click(f.centreOf(8), f.draw);
  EXPECT_EQ(f.vm.nav.selectedDispatch, 3);
  EXPECT_FALSE(f.vm.nav.tabRequest.has_value());
}

TEST(GraphPanel, ZoomPanFindAndLayoutCache) {
  PanelFixture f;
  f.vm.compile = generatedView(900);
  f.settle();
  graph::GraphView &view = f.panel.view();
  int total = static_cast<int>(f.vm.compile->graph->nodes.size());
  EXPECT_LT(view.lastDrawnNodes(), total) << "culled to the canvas";
  // Wheel over the canvas zooms around the cursor.
  float before = view.zoom();
  ImVec2 at = f.centreOf(10);
  f.ui.setMouse(at);
  f.ui.wheel(2);
  f.ui.frame(f.draw, false);
  EXPECT_GT(view.zoom(), before * 1.3f);
  ImVec2 after = f.centreOf(10);
  EXPECT_NEAR(after.x, at.x, 2);
  EXPECT_NEAR(after.y, at.y, 2);
  // Fit shows everything.
  view.fit();
  f.ui.frame(f.draw);
  EXPECT_EQ(view.lastDrawnNodes(), total);
  // Drag pans.
  ImGuiIO &io = ImGui::GetIO();
  view.setZoom(1);
  f.ui.frame(f.draw);
  ImVec2 centre = view.canvasCenter();
  graph::Point anchor = view.toLayout(centre);
  io.MousePos = centre;
  f.ui.frame(f.draw, false);
  io.MouseDown[0] = true;
  f.ui.frame(f.draw, false);
  for (int i = 0; i < 5; ++i) {
    io.MousePos.y -= 20;
    f.ui.frame(f.draw, false);
  }
  io.MouseDown[0] = false;
  f.ui.frame(f.draw, false);
  EXPECT_NEAR(view.toScreen(anchor).y, centre.y - 100, 2);
  EXPECT_NEAR(view.toScreen(anchor).x, centre.x, 2);
  EXPECT_EQ(f.vm.nav.selectedNode, -1) << "a drag is no click";
  EXPECT_EQ(f.vm.nav.selectedDispatch, -1);

  // Find selects the op and centres it.
  ASSERT_TRUE(f.panel.find(f.vm, "b77_rsum"));
  f.ui.frame(f.draw);
  int found = f.vm.nav.selectedNode;
  EXPECT_EQ(f.vm.compile->graph->nodes[found].node.name, "b77_rsum");
  EXPECT_EQ(f.vm.nav.selectedDispatch, 77 * 5 + 3);
  ImVec2 c = f.centreOf(found);
  EXPECT_NEAR(c.x, view.canvasCenter().x, 2);
  EXPECT_NEAR(c.y, view.canvasCenter().y, 2);
  EXPECT_FALSE(f.panel.find(f.vm, "no such op"));

  // A recompile that only changes backends keeps the graph's layout: no new job.
  EXPECT_EQ(f.panel.layoutsComputed(), 1);
  compiler::CompileResult other = generatedGraph(900);
  for (compiler::DispatchSummary &d : other.dispatches)
    d.backend = "codegen";
  for (compiler::ClusterSummary &c : other.clusters)
    c.backend = "codegen";
  f.vm.compile = makeCompileView("generated.onnx", {}, other, 1, 0);
  f.ui.frame(f.draw);
  EXPECT_EQ(f.panel.layoutsComputed(), 1);
  EXPECT_NE(f.panel.request(f.vm.compile->graph), nullptr);
  EXPECT_EQ(f.vm.compile->graph->nodes[1].backend, "codegen");
  // Another graph is laid out anew.
  f.vm.compile = generatedView(99);
  f.settle();
  EXPECT_EQ(f.panel.layoutsComputed(), 2);
}
} // namespace

namespace {
TEST(GraphPanel, ClusterExplainerOnTheCnn) {
  PanelFixture f;
  f.vm.compile = cnnCompile();
  ASSERT_TRUE(f.vm.compile->result.ok());
  f.settle();
  const graph::GraphModel &m = *f.vm.compile->graph;
  // Finding conv1 explains the convolution's cluster.
  ASSERT_TRUE(f.panel.find(f.vm, "conv1"));
  int conv = m.clusterIndex(f.vm.nav.selectedCluster);
  ASSERT_GE(conv, 0);
  const graph::ClusterEntry &c = m.clusters[conv];
  EXPECT_EQ(c.summary.kind, "kLibrary");
  f.ui.frames(2, f.draw);
  GraphDetails &details = f.panel.details();
  ASSERT_EQ(c.dispatches.size(), 1u);
  int64_t kernel = m.dispatches[c.dispatches[0]].summary.id;
  EXPECT_FALSE(details.linkRect("kernel:" + std::to_string(kernel)).empty());
  EXPECT_TRUE(details.shownMedians().empty()) << "no run shown";
  // The refused merge into the pooling names its cluster: a click explains that one.
  int64_t pool = -1;
  for (int r : c.refusedMerges)
    if (m.refusedMerges[r].producerCluster == c.summary.id)
      pool = m.refusedMerges[r].consumerCluster;
  ASSERT_GE(pool, 0);
  ScreenRect link = details.linkRect("cluster:" + std::to_string(pool));
  ASSERT_FALSE(link.empty());
  f.ui.click(link.center(), f.draw);
  EXPECT_EQ(f.vm.nav.selectedCluster, pool);
  EXPECT_EQ(f.vm.nav.selectedNode, -1);
  // With a run of this program shown in the Profile panel, its kernels have their medians.
  std::vector<double> medians;
  for (size_t d = 0; d < m.dispatches.size(); ++d)
    medians.push_back(1000.0 * static_cast<double>(d + 1));
  f.vm.profile = makeProfileView(makeRunOf(3, recordsOf(f.vm.compile->result), medians, 9, 0, 1));
  f.ui.frames(2, f.draw);
  const graph::ClusterEntry &pooling = m.clusters[m.clusterIndex(pool)];
  ASSERT_EQ(pooling.dispatches.size(), 1u) << "oneDNN's max pooling";
  for (int d : pooling.dispatches) {
    int64_t id = m.dispatches[d].summary.id;
    ASSERT_TRUE(details.shownMedians().count(id)) << id;
    EXPECT_EQ(details.shownMedians().at(id), formatNs(medians[d]));
  }
}
} // namespace
