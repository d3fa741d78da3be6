//===- GraphCollapse.cpp - One box per cluster ------------------------------===//
#include "loupe/visualizer/graph/GraphModel.h"

#include <algorithm>
#include <set>

namespace loupe::visualizer::graph {

std::shared_ptr<const GraphModel> collapseClusters(const GraphModel &model) {
  auto out = std::make_shared<GraphModel>();
  out->device = model.device;
  out->dispatches = model.dispatches;
  out->clusters = model.clusters;
  out->refusedMerges = model.refusedMerges;
  // Each cluster's representative: its first op that computes (not a view), else its first.
  std::vector<int> representative(model.clusters.size(), -1);
  for (size_t i = 0; i < model.nodes.size(); ++i) {
    int c = model.nodes[i].cluster;
    if (c < 0)
      continue;
    int &r = representative[c];
    if (r < 0 || (isViewOp(model.nodes[r].node.op) && !isViewOp(model.nodes[i].node.op)))
      r = static_cast<int>(i);
  }
  // Collapsed nodes in the order of their first op; an op outside every cluster stays itself.
  std::vector<int> of(model.nodes.size(), -1), byCluster(model.clusters.size(), -1);
  for (size_t i = 0; i < model.nodes.size(); ++i) {
    const NodeEntry &n = model.nodes[i];
    if (n.cluster >= 0 && byCluster[n.cluster] >= 0) {
      of[i] = byCluster[n.cluster];
      continue;
    }
    of[i] = static_cast<int>(out->nodes.size());
    NodeEntry entry = n.cluster >= 0 ? model.nodes[representative[n.cluster]] : n;
    if (n.cluster >= 0) {
      byCluster[n.cluster] = of[i];
      const ClusterEntry &c = model.clusters[n.cluster];
      // Labelled with what the cluster runs (its pattern), named like its main op.
      entry.node.op = c.summary.pattern.empty() ? c.summary.kind : c.summary.pattern;
      entry.clusters = {n.cluster};
    }
    entry.node.id = static_cast<int>(out->nodes.size());
    out->nodes.push_back(std::move(entry));
  }
  std::set<std::pair<int, int>> edges;
  for (auto [a, b] : model.edges)
    if (of[a] != of[b])
      edges.insert({of[a], of[b]});
  out->edges.assign(edges.begin(), edges.end());
  auto remap = [&](std::vector<int> &nodes) {
    std::set<int> mapped;
    for (int v : nodes)
      mapped.insert(of[v]);
    nodes.assign(mapped.begin(), mapped.end());
  };
  // A cluster is its own box, even when it also holds part of an op drawn in another (a Gemm
  // whose matmul and bias add run in two clusters).
  for (size_t c = 0; c < out->clusters.size(); ++c)
    byCluster[c] >= 0 ? (void)(out->clusters[c].nodes = {byCluster[c]})
                      : remap(out->clusters[c].nodes);
  for (DispatchEntry &d : out->dispatches)
    remap(d.nodes);
  for (size_t i = 0; i < out->nodes.size(); ++i)
    out->nodesByName.emplace(out->nodes[i].node.name, static_cast<int>(i));
  return out;
}

} // namespace loupe::visualizer::graph
