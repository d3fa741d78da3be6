//===- GraphBench.cpp - Graph panel: dot layout and frames on 10,000 ops ------===//
//
// The graph panel's two costs on a generated graph of residual blocks (GeneratedGraph.h):
//  - the layout (graph::layoutGraph: Graphviz dot, banded above 300 ops), once per graph
//    structure, on the panel's worker. Peer (bench/ratios.py): `BM_GraphLayout_2k_peer`, dot on
//    the whole 2,000-op graph in one piece, against `_banded`. (Whole-graph dot on 10,000 ops
//    takes minutes: dot's positioning is about quadratic in the graph.)
//  - a frame of GraphView (NewFrame + draw + Render, headless): the whole graph fitted in the
//    canvas, at 25% (hundreds of ops, no labels) and at 100% in the middle. Peer: `BM_GraphFrame_10k_naive` draws every op and
//    edge with label and curve at 100%, what the panel costs without culling.
//
//===----------------------------------------------------------------------===//
#include "GeneratedGraph.h"
#include "ImGuiHarness.h"

#include "loupe/visualizer/panels/GraphPanel.h"

#include <benchmark/benchmark.h>

using namespace loupe::visualizer;
using namespace loupe::visualizer::testing;

namespace {
/// The compile view of a generated graph of about `ops` ops (cached per size).
std::shared_ptr<const CompileView> view(int ops) {
  static std::map<int, std::shared_ptr<const CompileView>> views;
  auto &v = views[ops];
  if (!v)
    v = makeCompileView("generated.onnx", {}, generatedGraph(ops), 0, 0);
  return v;
}

/// The layout input as the panel builds it (label sizes from the ImGui font).
graph::LayoutInput input(int ops) {
  ImGuiHarness ui(1600, 1000);
  graph::LayoutInput in;
  ui.frame([&] { in = GraphPanel::layoutInput(*view(ops)->graph); });
  return in;
}

void BM_GraphLayout(benchmark::State &state, int ops, int maxBandNodes) {
  graph::LayoutInput in = input(ops);
  graph::LayoutOptions options;
  options.maxBandNodes = maxBandNodes;
  int bands = 0;
  for (auto _ : state) {
    graph::GraphLayout layout = graph::layoutGraph(in, options);
    if (!layout.ok())
      state.SkipWithError(layout.error.c_str());
    bands = layout.bands;
  }
  state.counters["ops"] = static_cast<double>(in.sizes.size());
  state.counters["edges"] = static_cast<double>(in.edges.size());
  state.counters["bands"] = bands;
}
BENCHMARK_CAPTURE(BM_GraphLayout, 2k_banded, 1800, 300)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GraphLayout, 2k_peer, 1800, 1 << 30)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GraphLayout, 10k_banded, 9999, 300)->Unit(benchmark::kMillisecond);

/// Frames of the graph panel's canvas on the 10,000-op graph; `zoom` 0: fitted.
void BM_GraphFrame(benchmark::State &state, float zoom, bool naive) {
  ImGuiHarness ui(1600, 1000);
  auto v = view(9999);
  const graph::GraphModel &model = *v->graph;
  graph::GraphLayout layout;
  ui.frame([&] { layout = graph::layoutGraph(GraphPanel::layoutInput(model)); });
  graph::GraphView gv;
  Navigation nav;
  nav.selectedNode = static_cast<int>(model.nodes.size() / 2);
  auto draw = [&] { gv.draw(model, layout, nav, ImVec2(1200, 900)); };
  gv.fit();
  ui.frames(2, draw);
  if (zoom > 0) {
    nav.graphFocus = true; // centre on the selected op, in the middle of the graph
    ui.frame(draw);
    gv.setZoom(zoom);
    ui.frame(draw);
  }
  auto naiveDraw = [&] {
    // Every op and edge at 100%, no culling, no level of detail.
    ImDrawList *dl = ImGui::GetWindowDrawList();
    ImVec2 o = ImGui::GetCursorScreenPos();
    for (const graph::EdgePath &e : layout.edges)
      for (size_t k = 0; k + 3 < e.points.size(); k += 3) {
        auto S = [&](graph::Point p) { return ImVec2(o.x + p.x, o.y + p.y - layout.maxY / 2); };
        dl->AddBezierCubic(S(e.points[k]), S(e.points[k + 1]), S(e.points[k + 2]),
                           S(e.points[k + 3]), IM_COL32(120, 120, 120, 255), 1, 10);
      }
    for (size_t i = 0; i < layout.nodes.size(); ++i) {
      const graph::NodeBox &b = layout.nodes[i];
      ImVec2 a(o.x + b.left(), o.y + b.top() - layout.maxY / 2);
      dl->AddRectFilled(a, ImVec2(a.x + b.w, a.y + b.h), gv.nodeColor(model, static_cast<int>(i)), 4);
      dl->AddText(ImVec2(a.x + 6, a.y + 4), IM_COL32(240, 240, 240, 255),
                  model.nodes[i].node.op.c_str());
      dl->AddText(ImVec2(a.x + 6, a.y + 4 + ImGui::GetFontSize()), IM_COL32(240, 240, 240, 255),
                  model.nodes[i].backend.c_str());
    }
  };
  for (auto _ : state)
    ui.frame(naive ? std::function<void()>(naiveDraw) : std::function<void()>(draw));
  state.counters["ops"] = static_cast<double>(model.nodes.size());
  state.counters["drawn_ops"] = naive ? static_cast<double>(model.nodes.size()) : gv.lastDrawnNodes();
  state.counters["drawn_edges"] = naive ? static_cast<double>(layout.edges.size()) : gv.lastDrawnEdges();
}
BENCHMARK_CAPTURE(BM_GraphFrame, 10k_fit, 0.0f, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GraphFrame, 10k_zoomed, 1.0f, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GraphFrame, 10k_quarter, 0.25f, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GraphFrame, 10k_naive, 1.0f, true)->Unit(benchmark::kMillisecond);

} // namespace
