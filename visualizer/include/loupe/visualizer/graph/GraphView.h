//===- GraphView.h - The op graph on a pannable, zoomable canvas ---*- C++ -*-===//
//
// Draws a laid-out GraphModel with ImDrawList: ops as boxes labelled with op and backend,
// coloured by the compiler cluster they are drawn in (NodeEntry::cluster) or by backend,
// clusters of several ops outlined, edges as Bézier curves with arrow heads. The mouse wheel
// zooms around the cursor, dragging pans, a click selects an op (with its cluster and
// dispatch) or a cluster's outline, writing the selection into Navigation.
//
// Stays fluid on 10,000 ops: everything is culled against the visible rectangle (precomputed
// bounding boxes), labels are drawn only when legible, edges become straight lines and arrow
// heads disappear when zoomed out; ops smaller than a pixel are drawn once per pixel and edges
// shorter than one are not drawn.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_GRAPH_GRAPHVIEW_H
#define LOUPE_VISUALIZER_GRAPH_GRAPHVIEW_H

#include "loupe/visualizer/ViewModel.h"
#include "loupe/visualizer/graph/GraphLayout.h"
#include "loupe/visualizer/graph/GraphModel.h"

#include <imgui.h>

#include <cstdint>
#include <vector>

namespace loupe::visualizer::graph {

enum class ColorBy { Cluster, Backend };

/// Short op name for labels: "tosa.conv2d" -> "conv2d".
std::string shortOp(const std::string &op);

class GraphView {
public:
  /// Draws `model` laid out as `layout` in a canvas of `size` at the cursor and handles input.
  /// The layout must be of this model's nodes and edges (same order).
  void draw(const GraphModel &model, const GraphLayout &layout, Navigation &nav, ImVec2 size);

  /// Shows the whole graph on the next draw.
  void fit() { fit_ = Fit::All; }
  /// Shows the top of the graph on the next draw, as wide as fits but at most 100% (what a
  /// new graph opens with: ops readable, the model's inputs first).
  void fitTop() { fit_ = Fit::Top; }
  /// Centres layout point `p` in the canvas.
  void centerOn(Point p);
  float zoom() const { return zoom_; }
  /// Sets the zoom (clamped to [kMinZoom, kMaxZoom]) keeping the canvas centre in place.
  void setZoom(float zoom);
  static constexpr float kMinZoom = 1e-4f, kMaxZoom = 8.0f;

  ColorBy colorBy = ColorBy::Cluster;
  /// Fill colour of node `index` under colorBy.
  ImU32 nodeColor(const GraphModel &model, int index) const;
  /// The colour of cluster `cluster` (an index into GraphModel::clusters), by its id.
  static ImU32 clusterColor(const GraphModel &model, int cluster);

  /// Screen position of a layout point in the last drawn canvas (tests click on nodes).
  ImVec2 toScreen(Point p) const;
  Point toLayout(ImVec2 screen) const;
  /// Centre of the last drawn canvas, screen pixels.
  ImVec2 canvasCenter() const {
    return ImVec2(canvasMin_.x + canvasSize_.x * 0.5f, canvasMin_.y + canvasSize_.y * 0.5f);
  }
  /// Node under layout point `p`, or -1; then the smallest cluster outline around it (an
  /// index into GraphModel::clusters), or -1.
  int nodeAt(const GraphLayout &layout, Point p) const;
  int clusterAt(const GraphModel &model, const GraphLayout &layout, Point p);

  /// Last draw: items drawn after culling (tests, bench).
  int lastDrawnNodes() const { return drawnNodes_; }
  int lastDrawnEdges() const { return drawnEdges_; }
  int lastDrawnLabels() const { return drawnLabels_; }

private:
  struct Box {
    float x0, y0, x1, y1;
  };
  /// Recomputes edge and cluster bounding boxes when the layout changes.
  void prepare(const GraphModel &model, const GraphLayout &layout);
  void select(const GraphModel &model, const GraphLayout &layout, Navigation &nav, ImVec2 mouse);
  void focus(const GraphModel &model, const GraphLayout &layout, Navigation &nav);

  const GraphLayout *preparedFor_ = nullptr;
  const GraphModel *preparedModel_ = nullptr;
  std::vector<Box> edgeBoxes_;
  std::vector<std::pair<int, Box>> clusterBoxes_; ///< Outlined clusters (index, outline).
  std::vector<uint8_t> specks_; ///< Canvas pixels already holding a sub-pixel op this frame.
  ImVec2 canvasMin_{0, 0}, canvasSize_{1, 1};
  Point origin_;     ///< Layout point at the canvas's top-left corner.
  float zoom_ = 1;
  enum class Fit { None, All, Top } fit_ = Fit::Top;
  int drawnNodes_ = 0, drawnEdges_ = 0, drawnLabels_ = 0;
};

} // namespace loupe::visualizer::graph

#endif // LOUPE_VISUALIZER_GRAPH_GRAPHVIEW_H
