//===- GraphLayout.cpp - Graphviz `dot` layout of an op graph ------------------===//
#include "loupe/visualizer/graph/GraphLayout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <mutex>

namespace loupe::visualizer::graph {

namespace {
constexpr float kPointsPerInch = 72.0f; // Graphviz sizes are inches, coordinates points

/// Graphviz 2.42 takes attribute names and values as char * (it copies them).
char *cs(const char *s) { return const_cast<char *>(s); }

std::mutex &graphvizMutex() {
  static std::mutex mutex;
  return mutex;
}

/// The process's Graphviz context (plugins loaded once); call with graphvizMutex() held.
GVC_t *context() {
  static GVC_t *gvc = [] {
    agseterr(AGMAX); // no warnings on stderr; failures are read back with aglasterr()
    return gvContext();
  }();
  return gvc;
}

/// Longest-path rank of every node from the graph's sources; nodes on a cycle (not expected
/// in SSA, but the input is not trusted) get ranks after everything else.
std::vector<int> longestPathRanks(size_t n, const std::vector<std::pair<int, int>> &edges) {
  std::vector<std::vector<int>> out(n);
  std::vector<int> indegree(n, 0), rank(n, 0);
  for (auto [a, b] : edges) {
    out[a].push_back(b);
    ++indegree[b];
  }
  std::deque<int> ready;
  for (size_t i = 0; i < n; ++i)
    if (indegree[i] == 0)
      ready.push_back(static_cast<int>(i));
  size_t seen = 0;
  int maxRank = 0;
  while (!ready.empty()) {
    int v = ready.front();
    ready.pop_front();
    ++seen;
    maxRank = std::max(maxRank, rank[v]);
    for (int w : out[v]) {
      rank[w] = std::max(rank[w], rank[v] + 1);
      if (--indegree[w] == 0)
        ready.push_back(w);
    }
  }
  if (seen < n)
    for (size_t i = 0; i < n; ++i)
      if (indegree[i] > 0)
        rank[i] = ++maxRank;
  return rank;
}

/// Splits nodes into bands of consecutive ranks with at most `maxNodes` nodes each.
std::vector<std::vector<int>> bandsOf(const std::vector<int> &rank, int maxNodes) {
  int maxRank = rank.empty() ? 0 : *std::max_element(rank.begin(), rank.end());
  std::vector<std::vector<int>> byRank(maxRank + 1);
  for (size_t i = 0; i < rank.size(); ++i)
    byRank[rank[i]].push_back(static_cast<int>(i));
  std::vector<std::vector<int>> bands(1);
  for (const std::vector<int> &nodes : byRank) {
    if (!bands.back().empty() && bands.back().size() + nodes.size() > size_t(maxNodes))
      bands.emplace_back();
    bands.back().insert(bands.back().end(), nodes.begin(), nodes.end());
  }
  return bands;
}

/// Lays out one band with dot; writes its nodes' boxes and its internal edges' paths with the
/// band's top at `top`, centred on x = 0. Returns the band's height, or -1 on failure.
float layoutBand(const std::vector<int> &band, const LayoutInput &input,
                 const std::vector<int> &bandOf, int bandIndex, float top,
                 const LayoutOptions &options, GraphLayout &out) {
  char name[32];
  Agraph_t *g = agopen(cs("band"), Agdirected, nullptr);
  auto fmt = [&](float v) {
    std::snprintf(name, sizeof name, "%.4f", v);
    return name;
  };
  agattr(g, AGRAPH, cs("nodesep"), fmt(options.nodeSep / kPointsPerInch));
  agattr(g, AGRAPH, cs("ranksep"), fmt(options.rankSep / kPointsPerInch));
  agattr(g, AGNODE, cs("shape"), cs("box"));
  agattr(g, AGNODE, cs("fixedsize"), cs("true"));
  agattr(g, AGNODE, cs("label"), cs(""));
  Agsym_t *width = agattr(g, AGNODE, cs("width"), cs("1"));
  Agsym_t *height = agattr(g, AGNODE, cs("height"), cs("0.5"));
  agattr(g, AGEDGE, cs("arrowhead"), cs("none")); // the panel draws its own

  std::vector<Agnode_t *> agNodes(band.size());
  std::vector<std::pair<int, Agraph_t *>> subgraphs; // (group, its cluster subgraph)
  for (size_t i = 0; i < band.size(); ++i) {
    std::snprintf(name, sizeof name, "n%d", band[i]);
    agNodes[i] = agnode(g, name, 1);
    if (int group = input.groups.empty() ? -1 : input.groups[band[i]]; group >= 0) {
      auto it = std::find_if(subgraphs.begin(), subgraphs.end(),
                             [&](const auto &s) { return s.first == group; });
      if (it == subgraphs.end()) {
        char sub[32];
        std::snprintf(sub, sizeof sub, "cluster_%d", group);
        subgraphs.push_back({group, agsubg(g, sub, 1)});
        it = std::prev(subgraphs.end());
      }
      agsubnode(it->second, agNodes[i], 1);
    }
    auto [w, h] = input.sizes[band[i]];
    agxset(agNodes[i], width, fmt(std::max(w, 1.0f) / kPointsPerInch));
    agxset(agNodes[i], height, fmt(std::max(h, 1.0f) / kPointsPerInch));
  }
  std::vector<int> local(input.sizes.size(), -1); // node -> index into agNodes (this band only)
  for (size_t i = 0; i < band.size(); ++i)
    local[band[i]] = static_cast<int>(i);
  std::vector<std::pair<size_t, Agedge_t *>> agEdges;
  for (size_t e = 0; e < input.edges.size(); ++e) {
    auto [a, b] = input.edges[e];
    if (bandOf[a] == bandIndex && bandOf[b] == bandIndex && a != b)
      agEdges.push_back({e, agedge(g, agNodes[local[a]], agNodes[local[b]], nullptr, 1)});
  }

  GVC_t *gvc = context();
  if (gvLayout(gvc, g, "dot") != 0) {
    char *why = aglasterr();
    out.error = std::string("Graphviz dot layout failed") +
                (why && *why ? ": " + std::string(why) : " (is its dot layout plugin installed?)");
    agclose(g);
    return -1;
  }
  boxf bb = GD_bb(g);
  float cx = static_cast<float>(bb.LL.x + bb.UR.x) * 0.5f;
  auto toScreen = [&](pointf p) {
    return Point{static_cast<float>(p.x) - cx, top + static_cast<float>(bb.UR.y - p.y)};
  };
  for (size_t i = 0; i < band.size(); ++i) {
    Point c = toScreen(ND_coord(agNodes[i]));
    auto [w, h] = input.sizes[band[i]];
    out.nodes[band[i]] = {c.x, c.y, w, h};
  }
  for (auto [group, sub] : subgraphs) {
    boxf b = GD_bb(sub);
    Point lo = toScreen(b.LL), hi = toScreen(b.UR); // y flips: LL is the bottom
    out.groups.push_back({input.groupNames[group],
                          {(lo.x + hi.x) * 0.5f, (lo.y + hi.y) * 0.5f, hi.x - lo.x, lo.y - hi.y}});
  }
  for (auto [index, edge] : agEdges) {
    std::vector<Point> &points = out.edges[index].points;
    const splines *spl = ED_spl(edge);
    if (spl && spl->size > 0)
      for (int i = 0; i < spl->list[0].size; ++i)
        points.push_back(toScreen(spl->list[0].list[i]));
  }
  gvFreeLayout(gvc, g);
  agclose(g);
  return static_cast<float>(bb.UR.y - bb.LL.y);
}

/// A vertical S-curve from the bottom of box `a` to the top of box `b`.
std::vector<Point> sCurve(const NodeBox &a, const NodeBox &b) {
  Point p0{a.x, a.bottom()}, p1{b.x, b.top()};
  float dy = std::max(12.0f, (p1.y - p0.y) * 0.4f);
  return {p0, {p0.x, p0.y + dy}, {p1.x, p1.y - dy}, p1};
}
} // namespace

GraphLayout layoutGraph(const LayoutInput &input, const LayoutOptions &options) {
  auto start = std::chrono::steady_clock::now();
  GraphLayout out;
  size_t n = input.sizes.size();
  for (auto [a, b] : input.edges)
    if (a < 0 || b < 0 || size_t(a) >= n || size_t(b) >= n) {
      out.error = "edge " + std::to_string(a) + " -> " + std::to_string(b) + " names no node";
      return out;
    }
  if (!input.groups.empty() &&
      (input.groups.size() != n ||
       std::any_of(input.groups.begin(), input.groups.end(), [&](int g) {
         return g < -1 || g >= static_cast<int>(input.groupNames.size());
       }))) {
    out.error = "groups must give each node a group index or -1";
    return out;
  }
  out.nodes.resize(n);
  out.edges.resize(input.edges.size());
  for (size_t e = 0; e < input.edges.size(); ++e)
    out.edges[e].from = input.edges[e].first, out.edges[e].to = input.edges[e].second;
  if (n == 0)
    return out;

  std::vector<std::vector<int>> bands =
      bandsOf(longestPathRanks(n, input.edges), std::max(1, options.maxBandNodes));
  std::vector<int> bandOf(n, 0);
  for (size_t i = 0; i < bands.size(); ++i)
    for (int v : bands[i])
      bandOf[v] = static_cast<int>(i);
  {
    std::lock_guard<std::mutex> lock(graphvizMutex());
    float top = 0;
    for (size_t i = 0; i < bands.size(); ++i) {
      float height = layoutBand(bands[i], input, bandOf, static_cast<int>(i), top, options, out);
      if (height < 0)
        return out;
      top += height + options.rankSep * 2;
    }
  }
  out.bands = static_cast<int>(bands.size());
  // Edges dot did not route: between bands, self loops, or a spline-less result.
  for (EdgePath &e : out.edges)
    if (e.points.size() < 4)
      e.points = sCurve(out.nodes[e.from], out.nodes[e.to]);

  out.minX = out.minY = 1e30f;
  out.maxX = out.maxY = -1e30f;
  auto grow = [&](float x, float y) {
    out.minX = std::min(out.minX, x);
    out.maxX = std::max(out.maxX, x);
    out.minY = std::min(out.minY, y);
    out.maxY = std::max(out.maxY, y);
  };
  for (const NodeBox &b : out.nodes) {
    grow(b.left(), b.top());
    grow(b.right(), b.bottom());
  }
  for (const EdgePath &e : out.edges)
    for (const Point &p : e.points)
      grow(p.x, p.y);
  for (const GroupBox &g : out.groups) {
    grow(g.box.left(), g.box.top());
    grow(g.box.right(), g.box.bottom());
  }
  out.layoutNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                     std::chrono::steady_clock::now() - start)
                     .count();
  return out;
}

} // namespace loupe::visualizer::graph
