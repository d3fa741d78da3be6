//===- GraphDetails.h - The graph panel's pane: op, cluster explainer, kernel -*- C++ -*-===//
//
// What the graph panel shows about its selection (Navigation), top to bottom:
//  - the op: name, op, type, the clusters and dispatches its loc is in;
//  - the cluster explainer: the compiler's cluster (CompileResult::clusters) with its kind,
//    backend, pattern, plevel and reason, its ops, its kernels (the dispatches of that cluster
//    id) with their medians in the run the Profile panel shows (RunClusters), and the merges
//    the clustering refused around it (CompileResult::refusedMerges) with their rule, each
//    naming the other cluster as a link;
//  - the kernel: the selected dispatch's backend, plevel, reason, alternatives and fallbacks.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_PANELS_GRAPHDETAILS_H
#define LOUPE_VISUALIZER_PANELS_GRAPHDETAILS_H

#include "loupe/visualizer/Style.h"
#include "loupe/visualizer/ViewModel.h"
#include "loupe/visualizer/clusters/RunClusters.h"

#include <map>
#include <string>

namespace loupe::visualizer {

class GraphDetails {
public:
  /// Draws the pane for `vm`'s selection in the current window.
  void draw(ViewModel &vm, const graph::GraphModel &model);

  /// Screen rectangles of the last frame's links (tests click them): "cluster:<id>" a refused
  /// merge's other cluster, "kernel:<id>" a kernel of the explained cluster, "op:<index>" one of
  /// its ops. A zero-size rectangle when not drawn.
  ScreenRect linkRect(const std::string &key) const;
  /// The explainer's kernel medians as drawn in the last frame ("-" when the run has none),
  /// by dispatch id; empty without a run.
  const std::map<int64_t, std::string> &shownMedians() const { return shownMedians_; }

private:
  void drawOp(ViewModel &vm, const graph::GraphModel &model);
  void drawCluster(ViewModel &vm, const graph::GraphModel &model, int cluster);
  void drawClusterKernels(ViewModel &vm, const graph::GraphModel &model,
                          const graph::ClusterEntry &c);
  void drawRefusedMerges(ViewModel &vm, const graph::GraphModel &model,
                         const graph::ClusterEntry &c);
  void drawKernel(ViewModel &vm, const graph::GraphModel &model, int dispatch);

  clusters::RunClustersCache run_;
  std::map<std::string, ScreenRect> rects_;
  std::map<int64_t, std::string> shownMedians_;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_PANELS_GRAPHDETAILS_H
