//===- GraphLayout.h - Graphviz `dot` layout of an op graph -------*- C++ -*-===//
//
// Lays out a directed graph with Graphviz's `dot` (libgvc + libcgraph): ranks top to bottom,
// boxes of the given sizes, edges as cubic Bézier splines. Pure computation, no ImGui: the graph
// panel runs it on a worker thread and caches the result per compile.
//
// dot positions nodes with a network simplex whose cost grows about quadratically with the graph
// (a 10,000-op chain takes minutes in one piece), so graphs larger than
// LayoutOptions::maxBandNodes are cut into bands of consecutive ranks (longest path from the
// inputs); each band is laid out by dot on its own and the bands are stacked top to bottom.
// Edges between bands are drawn as vertical S-curves from producer to consumer.
//
// Graphviz is not thread-safe: layouts in one process run one at a time (a global mutex).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_GRAPH_GRAPHLAYOUT_H
#define LOUPE_VISUALIZER_GRAPH_GRAPHLAYOUT_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace loupe::visualizer::graph {

/// A point in layout units (ImGui pixels at zoom 1); y grows downwards, like the screen.
struct Point {
  float x = 0, y = 0;
};

/// A node's box: centre and size, layout units.
struct NodeBox {
  float x = 0, y = 0, w = 0, h = 0;
  float left() const { return x - w * 0.5f; }
  float top() const { return y - h * 0.5f; }
  float right() const { return x + w * 0.5f; }
  float bottom() const { return y + h * 0.5f; }
};

struct EdgePath {
  int from = 0, to = 0;       ///< Node indices (producer, consumer).
  /// Cubic Bézier control points: p0, (c1, c2, p)..., i.e. 3k+1 points, ending at the
  /// consumer's box (where the arrow head goes).
  std::vector<Point> points;
};

struct LayoutInput {
  std::vector<std::pair<float, float>> sizes; ///< Width and height of each node, layout units.
  std::vector<std::pair<int, int>> edges;     ///< Producer -> consumer node indices.
  /// Optional groups (a model's name scopes): per node an index into groupNames, or -1. dot
  /// keeps a group's nodes together (a `cluster_` subgraph) and the layout returns its box.
  std::vector<int> groups;
  std::vector<std::string> groupNames;
};

/// A group's box in one band (a group that spans bands has one box per band).
struct GroupBox {
  std::string name;
  NodeBox box;
};

struct LayoutOptions {
  int maxBandNodes = 300; ///< Larger graphs are laid out in bands of at most this many nodes
                          ///< (a single rank wider than this is one band).
  float nodeSep = 18;     ///< Horizontal gap between nodes, layout units.
  float rankSep = 28;     ///< Vertical gap between ranks (and between bands), layout units.
};

struct GraphLayout {
  std::vector<NodeBox> nodes;  ///< Per input node.
  std::vector<EdgePath> edges; ///< Per input edge, same order.
  std::vector<GroupBox> groups; ///< Boxes of LayoutInput's groups, drawn under their nodes.
  float minX = 0, minY = 0, maxX = 0, maxY = 0; ///< Bounding box of everything.
  int bands = 0;               ///< Pieces laid out by dot.
  int64_t layoutNs = 0;        ///< Wall time of the layout, ns.
  std::string error;           ///< Set when Graphviz failed; positions are then unset.
  bool ok() const { return error.empty(); }
};

/// Lays out `input`. Never throws; a Graphviz failure (e.g. its `dot` layout plugin is not
/// installed) is reported in GraphLayout::error. Edges naming unknown nodes are an error too.
GraphLayout layoutGraph(const LayoutInput &input, const LayoutOptions &options = {});

} // namespace loupe::visualizer::graph

#endif // LOUPE_VISUALIZER_GRAPH_GRAPHLAYOUT_H
