//===- GraphView.cpp - The op graph on a pannable, zoomable canvas -------------===//
#include "loupe/visualizer/graph/GraphView.h"

#include "loupe/visualizer/Style.h"

#include <algorithm>
#include <cmath>

namespace loupe::visualizer::graph {

namespace {
constexpr float kMinLabelPx = 7.0f;  // smaller text is not drawn
constexpr float kCurveZoom = 0.3f;   // below: edges are straight lines, no arrow heads
constexpr float kClusterPad = 8.0f;  // layout units around a fused cluster's ops

ImU32 scaled(ImU32 c, float f, int alpha = 255) {
  auto ch = [&](int shift) {
    return static_cast<int>(std::min(255.0f, ((c >> shift) & 0xFF) * f));
  };
  return IM_COL32(ch(IM_COL32_R_SHIFT), ch(IM_COL32_G_SHIFT), ch(IM_COL32_B_SHIFT), alpha);
}
} // namespace

std::string shortOp(const std::string &op) {
  size_t dot = op.find('.');
  return dot == std::string::npos ? op : op.substr(dot + 1);
}

ImVec2 GraphView::toScreen(Point p) const {
  return ImVec2(canvasMin_.x + (p.x - origin_.x) * zoom_, canvasMin_.y + (p.y - origin_.y) * zoom_);
}

Point GraphView::toLayout(ImVec2 s) const {
  return {origin_.x + (s.x - canvasMin_.x) / zoom_, origin_.y + (s.y - canvasMin_.y) / zoom_};
}

void GraphView::centerOn(Point p) {
  origin_ = {p.x - canvasSize_.x * 0.5f / zoom_, p.y - canvasSize_.y * 0.5f / zoom_};
  fit_ = Fit::None;
}

void GraphView::setZoom(float zoom) {
  Point centre = toLayout(ImVec2(canvasMin_.x + canvasSize_.x * 0.5f,
                                 canvasMin_.y + canvasSize_.y * 0.5f));
  zoom_ = std::clamp(zoom, kMinZoom, kMaxZoom);
  centerOn(centre);
}

ImU32 GraphView::nodeColor(const GraphModel &model, int index) const {
  const NodeEntry &n = model.nodes[index];
  if (colorBy == ColorBy::Backend)
    return scaled(backendColor(n.backend), 0.55f);
  if (n.cluster < 0)
    return IM_COL32(62, 64, 70, 255);
  return scaled(clusterColor(model, n.cluster), 0.55f);
}

ImU32 GraphView::clusterColor(const GraphModel &model, int cluster) {
  return paletteColor(static_cast<int>(model.clusters[cluster].summary.id));
}

void GraphView::prepare(const GraphModel &model, const GraphLayout &layout) {
  if (preparedFor_ == &layout && preparedModel_ == &model)
    return;
  preparedFor_ = &layout;
  preparedModel_ = &model;
  edgeBoxes_.clear();
  for (const EdgePath &e : layout.edges) {
    Box b{1e30f, 1e30f, -1e30f, -1e30f};
    for (const Point &p : e.points)
      b = {std::min(b.x0, p.x), std::min(b.y0, p.y), std::max(b.x1, p.x), std::max(b.y1, p.y)};
    edgeBoxes_.push_back(b);
  }
  // Clusters drawn around several ops get an outline around them.
  std::vector<Box> boxes(model.clusters.size(), Box{1e30f, 1e30f, -1e30f, -1e30f});
  std::vector<int> members(model.clusters.size(), 0);
  for (size_t i = 0; i < model.nodes.size(); ++i) {
    int c = model.nodes[i].cluster;
    if (c < 0)
      continue;
    const NodeBox &nb = layout.nodes[i];
    Box &b = boxes[c];
    b = {std::min(b.x0, nb.left()), std::min(b.y0, nb.top()), std::max(b.x1, nb.right()),
         std::max(b.y1, nb.bottom())};
    ++members[c];
  }
  clusterBoxes_.clear();
  for (size_t c = 0; c < boxes.size(); ++c)
    if (members[c] >= 2)
      clusterBoxes_.push_back({static_cast<int>(c), {boxes[c].x0 - kClusterPad, boxes[c].y0 - kClusterPad,
                                                     boxes[c].x1 + kClusterPad, boxes[c].y1 + kClusterPad}});
}

int GraphView::nodeAt(const GraphLayout &layout, Point p) const {
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    const NodeBox &b = layout.nodes[i];
    if (p.x >= b.left() && p.x <= b.right() && p.y >= b.top() && p.y <= b.bottom())
      return static_cast<int>(i);
  }
  return -1;
}

int GraphView::clusterAt(const GraphModel &model, const GraphLayout &layout, Point p) {
  prepare(model, layout);
  int best = -1;
  float bestArea = 0;
  for (const auto &[d, b] : clusterBoxes_) {
    float area = (b.x1 - b.x0) * (b.y1 - b.y0);
    if (p.x >= b.x0 && p.x <= b.x1 && p.y >= b.y0 && p.y <= b.y1 && (best < 0 || area < bestArea))
      best = d, bestArea = area;
  }
  return best;
}

void GraphView::select(const GraphModel &model, const GraphLayout &layout, Navigation &nav,
                       ImVec2 mouse) {
  Point p = toLayout(mouse);
  if (int node = nodeAt(layout, p); node >= 0) {
    nav.selectOp(model, node);
    return;
  }
  int cluster = clusterAt(model, layout, p);
  nav.selectCluster(model, cluster >= 0 ? model.clusters[cluster].summary.id : -1);
}

void GraphView::focus(const GraphModel &model, const GraphLayout &layout, Navigation &nav) {
  nav.graphFocus = false;
  Box b{1e30f, 1e30f, -1e30f, -1e30f};
  auto add = [&](int n) {
    const NodeBox &nb = layout.nodes[n];
    b = {std::min(b.x0, nb.left()), std::min(b.y0, nb.top()), std::max(b.x1, nb.right()),
         std::max(b.y1, nb.bottom())};
  };
  if (nav.selectedNode >= 0 && size_t(nav.selectedNode) < layout.nodes.size())
    add(nav.selectedNode);
  else if (int c = model.clusterIndex(nav.selectedCluster); c >= 0)
    for (int n : model.clusters[c].nodes)
      add(n);
  else if (int d = model.dispatchIndex(nav.selectedDispatch); d >= 0)
    for (int n : model.dispatches[d].nodes)
      add(n);
  if (b.x0 > b.x1)
    return;
  float fitZoom = std::min(canvasSize_.x / (b.x1 - b.x0 + 80), canvasSize_.y / (b.y1 - b.y0 + 80));
  zoom_ = std::clamp(std::max(zoom_, std::min(1.0f, fitZoom)), kMinZoom, kMaxZoom);
  centerOn({(b.x0 + b.x1) * 0.5f, (b.y0 + b.y1) * 0.5f});
}

void GraphView::draw(const GraphModel &model, const GraphLayout &layout, Navigation &nav,
                     ImVec2 size) {
  prepare(model, layout);
  canvasMin_ = ImGui::GetCursorScreenPos();
  canvasSize_ = ImVec2(std::max(size.x, 50.0f), std::max(size.y, 50.0f));
  ImVec2 canvasMax(canvasMin_.x + canvasSize_.x, canvasMin_.y + canvasSize_.y);
  bool clicked = ImGui::InvisibleButton("graph_canvas", canvasSize_);
  bool hovered = ImGui::IsItemHovered(), active = ImGui::IsItemActive();
  ImGuiIO &io = ImGui::GetIO();

  if (fit_ != Fit::None) {
    float w = layout.maxX - layout.minX + 40, h = layout.maxY - layout.minY + 40;
    float all = std::min(canvasSize_.x / w, canvasSize_.y / h);
    if (fit_ == Fit::All || all >= 1) {
      zoom_ = std::clamp(all, kMinZoom, 1.5f);
      centerOn({(layout.minX + layout.maxX) * 0.5f, (layout.minY + layout.maxY) * 0.5f});
    } else { // the top, readable
      zoom_ = std::clamp(std::min(1.0f, canvasSize_.x / w), kMinZoom, 1.0f);
      centerOn({(layout.minX + layout.maxX) * 0.5f, 0});
      origin_.y = layout.minY - 20;
    }
  }
  if (nav.graphFocus)
    focus(model, layout, nav);
  if (hovered && io.MouseWheel != 0) {
    Point anchor = toLayout(io.MousePos);
    zoom_ = std::clamp(zoom_ * std::pow(1.2f, io.MouseWheel), kMinZoom, kMaxZoom);
    origin_ = {anchor.x - (io.MousePos.x - canvasMin_.x) / zoom_,
               anchor.y - (io.MousePos.y - canvasMin_.y) / zoom_};
  }
  if (active && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 2.0f)) {
    origin_.x -= io.MouseDelta.x / zoom_;
    origin_.y -= io.MouseDelta.y / zoom_;
  }
  if (clicked && io.MouseDragMaxDistanceSqr[0] < 9.0f)
    select(model, layout, nav, io.MousePos);

  ImDrawList *dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(canvasMin_, canvasMax, true);
  dl->AddRectFilled(canvasMin_, canvasMax, IM_COL32(24, 26, 30, 255));
  Point v0 = origin_, v1 = toLayout(canvasMax);
  auto visible = [&](float x0, float y0, float x1, float y1) {
    return x1 >= v0.x && x0 <= v1.x && y1 >= v0.y && y0 <= v1.y;
  };
  auto S = [&](Point p) { return toScreen(p); };
  drawnNodes_ = drawnEdges_ = drawnLabels_ = 0;
  int selectedCluster = model.clusterIndex(nav.selectedCluster);
  int selectedDispatch = selectedCluster < 0 ? model.dispatchIndex(nav.selectedDispatch) : -1;

  // Name scopes (GraphPanel groups ops by them): a faint frame with the scope's name at a
  // fixed screen size, so a fitted model of hundreds of ops still reads as its blocks.
  for (const GroupBox &g : layout.groups) {
    const NodeBox &b = g.box;
    if (!visible(b.left(), b.top(), b.right(), b.bottom()))
      continue;
    ImVec2 a = S({b.left(), b.top()}), c = S({b.right(), b.bottom()});
    dl->AddRectFilled(a, c, IM_COL32(255, 255, 255, 10), 4);
    dl->AddRect(a, c, IM_COL32(150, 160, 175, 120), 4);
  }

  // Clusters of several ops: a tinted outline around them.
  for (const auto &[c, b] : clusterBoxes_) {
    if (!visible(b.x0, b.y0, b.x1, b.y1))
      continue;
    ImU32 col = clusterColor(model, c);
    dl->AddRectFilled(S({b.x0, b.y0}), S({b.x1, b.y1}), scaled(col, 1.0f, 40), 6 * zoom_);
    dl->AddRect(S({b.x0, b.y0}), S({b.x1, b.y1}), scaled(col, 1.0f, c == selectedCluster ? 255 : 150),
                6 * zoom_, 0, c == selectedCluster ? 2.5f : 1.0f);
  }

  // Edges.
  bool curves = zoom_ >= kCurveZoom;
  for (size_t i = 0; i < layout.edges.size(); ++i) {
    const Box &b = edgeBoxes_[i];
    if (!visible(b.x0, b.y0, b.x1, b.y1))
      continue;
    if ((b.x1 - b.x0 + b.y1 - b.y0) * zoom_ < 1.5f)
      continue; // inside a pixel: the ops' specks cover it
    const EdgePath &e = layout.edges[i];
    bool touches = nav.selectedNode >= 0 && (e.from == nav.selectedNode || e.to == nav.selectedNode);
    ImU32 col = touches ? IM_COL32(235, 235, 235, 255) : IM_COL32(120, 125, 135, 200);
    float thick = touches ? 2.0f : 1.0f;
    ++drawnEdges_;
    const std::vector<Point> &p = e.points;
    if (!curves || (b.x1 - b.x0 + b.y1 - b.y0) * zoom_ < 6) {
      dl->AddLine(S(p.front()), S(p.back()), col, thick);
      continue;
    }
    for (size_t k = 0; k + 3 < p.size(); k += 3)
      dl->AddBezierCubic(S(p[k]), S(p[k + 1]), S(p[k + 2]), S(p[k + 3]), col, thick, 10);
    // Arrow head at the consumer, along the last segment.
    ImVec2 tip = S(p.back()), from = S(p[p.size() - 2]);
    float dx = tip.x - from.x, dy = tip.y - from.y, len = std::sqrt(dx * dx + dy * dy);
    if (len > 0.01f) {
      dx /= len, dy /= len;
      float a = 7 * std::min(zoom_, 1.5f);
      dl->AddTriangleFilled(tip, ImVec2(tip.x - dx * a - dy * a * 0.5f, tip.y - dy * a + dx * a * 0.5f),
                            ImVec2(tip.x - dx * a + dy * a * 0.5f, tip.y - dy * a - dx * a * 0.5f), col);
    }
  }

  // Ops.
  int specksW = static_cast<int>(canvasSize_.x) + 1, specksH = static_cast<int>(canvasSize_.y) + 1;
  bool specksCleared = false; // on the first speck of the frame
  ImFont *font = ImGui::GetFont();
  float fontPx = ImGui::GetFontSize() * zoom_;
  bool labels = fontPx >= kMinLabelPx;
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    const NodeBox &b = layout.nodes[i];
    if (!visible(b.left(), b.top(), b.right(), b.bottom()))
      continue;
    ++drawnNodes_;
    const NodeEntry &n = model.nodes[i];
    ImVec2 a = S({b.left(), b.top()}), c = S({b.right(), b.bottom()});
    if (c.x - a.x < 2 && c.y - a.y < 2) { // a speck: one rectangle per pixel, nothing else
      int px = static_cast<int>(a.x - canvasMin_.x), py = static_cast<int>(a.y - canvasMin_.y);
      if (px < 0 || py < 0 || px >= specksW || py >= specksH)
        continue;
      if (!specksCleared) {
        specks_.assign(static_cast<size_t>(specksW) * specksH, 0);
        specksCleared = true;
      }
      uint8_t &seen = specks_[static_cast<size_t>(py) * specksW + px];
      if (seen)
        continue;
      seen = 1;
      dl->AddRectFilled(a, ImVec2(a.x + 1.5f, a.y + 1.5f), nodeColor(model, static_cast<int>(i)));
      continue;
    }
    float round = std::min(4.0f, 4 * zoom_);
    dl->AddRectFilled(a, c, nodeColor(model, static_cast<int>(i)), round);
    // A stripe of the other colouring: the backend in cluster mode, the cluster in backend mode.
    ImU32 stripe = colorBy == ColorBy::Cluster ? backendColor(n.backend)
                   : n.cluster >= 0            ? clusterColor(model, n.cluster)
                                               : IM_COL32(90, 90, 90, 255);
    dl->AddRectFilled(a, ImVec2(a.x + std::max(2.0f, 4 * zoom_), c.y), stripe, round,
                      ImDrawFlags_RoundCornersLeft);
    bool selected = static_cast<int>(i) == nav.selectedNode;
    // In the selected cluster (every op it names), else in the selected dispatch.
    const std::vector<int> &in = selectedCluster >= 0 ? n.clusters : n.dispatches;
    int selectedIndex = selectedCluster >= 0 ? selectedCluster : selectedDispatch;
    bool inSelected = selectedIndex >= 0 && std::find(in.begin(), in.end(), selectedIndex) != in.end();
    if (selected || inSelected)
      dl->AddRect(a, c, selected ? IM_COL32(255, 255, 255, 255) : IM_COL32(250, 210, 80, 255),
                  round, 0, selected ? 2.5f : 1.5f);
    if (!labels)
      continue;
    ++drawnLabels_;
    float pad = 6 * zoom_;
    std::string op = n.node.op == "input" ? "input" : shortOp(n.node.op);
    bool placed = !n.backend.empty();
    std::string second = placed ? n.backend : n.node.name; // in no cluster or kernel: its loc
    dl->AddText(font, fontPx, ImVec2(a.x + pad + 2 * zoom_, a.y + pad * 0.6f),
                IM_COL32(240, 240, 240, 255), op.c_str());
    dl->AddText(font, fontPx, ImVec2(a.x + pad + 2 * zoom_, a.y + pad * 0.6f + fontPx),
                placed ? scaled(backendColor(n.backend), 1.25f) : IM_COL32(170, 170, 170, 255),
                second.c_str());
  }
    // Scope names last, over the ops, at a fixed screen size (readable when fitted).
  for (const GroupBox &g : layout.groups) {
    const NodeBox &b = g.box;
    if (!visible(b.left(), b.top(), b.right(), b.bottom()))
      continue;
    ImVec2 a = S({b.left(), b.top()}), c = S({b.right(), b.bottom()});
    if (c.y - a.y < ImGui::GetFontSize())
      continue;
    ImVec2 size = ImGui::CalcTextSize(g.name.c_str());
    ImVec2 at(a.x + 3, std::max(a.y + 1, canvasMin_.y + 1)); // pinned while the frame scrolls
    dl->AddRectFilled(at, ImVec2(at.x + size.x + 4, at.y + size.y), IM_COL32(24, 26, 30, 200));
    dl->AddText(ImVec2(at.x + 2, at.y), IM_COL32(190, 200, 215, 255), g.name.c_str());
  }
  dl->PopClipRect();

  // Hover: the op's name, type, clusters and dispatches.
  if (hovered && !active) {
    int node = nodeAt(layout, toLayout(io.MousePos));
    if (node >= 0) {
      const NodeEntry &n = model.nodes[node];
      std::string tip = n.node.name + "\n" + n.node.op + "  " + n.node.type;
      for (int c : n.clusters) {
        const compiler::ClusterSummary &s = model.clusters[c].summary;
        tip += "\n" + std::string(c == n.cluster ? "* " : "  ") + "cluster " +
               std::to_string(s.id) + " " + s.kind + " on " + s.backend;
      }
      for (int d : n.dispatches)
        tip += "\n  " + model.dispatches[d].summary.name + " (" + model.dispatches[d].summary.backend + ")";
      ImGui::SetTooltip("%s", tip.c_str());
    }
  }
}

} // namespace loupe::visualizer::graph
