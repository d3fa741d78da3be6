//===- GraphClusters.cpp - The compiler's clusters joined with the op graph ----===//
#include "GraphClusters.h"

#include <algorithm>
#include <set>

namespace loupe::visualizer::graph {

namespace {
/// How a cluster names a node: what picks the cluster a node is drawn in.
struct Naming {
  int cluster = -1;
  bool compute = false; ///< One of its ops is a compute op with the node's name.
  bool direct = false;  ///< Its own loc or an op's loc names the node (not only a kernel's).
};

bool isLibraryOp(const std::string &graphOp) {
  return graphOp == "tosa.conv2d" || graphOp == "tosa.matmul";
}

/// Higher is better; ties go to the lower cluster id (clusters are visited in order).
int score(const Naming &n, const NodeEntry &node, const ClusterEntry &c) {
  return (n.compute ? 4 : 0) + (isLibraryOp(node.node.op) && c.summary.kind == "kLibrary" ? 2 : 0) +
         (n.direct ? 1 : 0);
}
} // namespace

bool isViewOp(const std::string &op) {
  static const std::set<std::string> kViews = {
      "tensor.empty",         "tensor.pad",         "tensor.expand_shape",
      "tensor.collapse_shape", "tensor.reshape",    "tensor.extract_slice",
      "tensor.insert_slice",  "tensor.cast",        "tensor.concat",
      "linalg.transpose",     "linalg.fill",        "linalg.copy",
      "linalg.broadcast",     "arith.constant",     "memref.copy"};
  return kViews.count(op) > 0;
}

void addClusters(GraphModel &model, const compiler::CompileResult &result) {
  std::vector<std::vector<Naming>> namings(model.nodes.size());
  auto name = [&](int cluster, const std::string &loc, bool compute, bool direct) {
    for (const std::string &n : splitLoc(loc))
      for (auto [it, end] = model.nodesByName.equal_range(n); it != end; ++it) {
        std::vector<Naming> &list = namings[it->second]; // a few entries
        auto entry = std::find_if(list.begin(), list.end(),
                                  [&](const Naming &n) { return n.cluster == cluster; });
        if (entry == list.end())
          entry = list.insert(list.end(), {cluster, false, false});
        entry->compute |= compute;
        entry->direct |= direct;
      }
  };
  for (const compiler::ClusterSummary &s : result.clusters) {
    int index = static_cast<int>(model.clusters.size());
    model.clusters.push_back({s, fusionKindName(s.kind), {}, {}, {}});
    name(index, s.loc, false, true);
    for (const std::string &op : s.ops) {
      auto [opName, loc] = splitClusterOp(op);
      name(index, loc, !isViewOp(opName), true);
    }
  }
  // A kernel's loc adds the sources of ops fused into its body before clustering (bn1, relu1
  // in the pooling kernel): they belong to the kernel's cluster too.
  for (size_t d = 0; d < model.dispatches.size(); ++d) {
    int c = model.clusterIndex(model.dispatches[d].summary.cluster);
    if (c < 0)
      continue;
    model.clusters[c].dispatches.push_back(static_cast<int>(d));
    name(c, model.dispatches[d].summary.loc, false, false);
  }
  for (size_t i = 0; i < model.nodes.size(); ++i) {
    NodeEntry &node = model.nodes[i];
    std::sort(namings[i].begin(), namings[i].end(),
              [](const Naming &a, const Naming &b) { return a.cluster < b.cluster; });
    int bestScore = -1;
    for (const Naming &n : namings[i]) {
      ClusterEntry &c = model.clusters[n.cluster];
      c.nodes.push_back(static_cast<int>(i));
      node.clusters.push_back(n.cluster);
      int s = score(n, node, c);
      if (s > bestScore)
        bestScore = s, node.cluster = n.cluster;
    }
    if (node.cluster >= 0)
      node.backend = model.clusters[node.cluster].summary.backend;
  }
  for (const compiler::RefusedMerge &r : result.refusedMerges) {
    int index = static_cast<int>(model.refusedMerges.size());
    int producer = model.clusterIndex(r.producerCluster);
    int consumer = model.clusterIndex(r.consumerCluster);
    if (producer < 0 && consumer < 0)
      continue;
    model.refusedMerges.push_back(r);
    for (int c : {producer, consumer})
      if (c >= 0 && (model.clusters[c].refusedMerges.empty() ||
                     model.clusters[c].refusedMerges.back() != index))
        model.clusters[c].refusedMerges.push_back(index);
  }
}

} // namespace loupe::visualizer::graph
