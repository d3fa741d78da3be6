//===- GraphClusters.h - The compiler's clusters joined with the op graph -*- C++ -*-===//
#ifndef LOUPE_VISUALIZER_GRAPH_GRAPHCLUSTERS_H
#define LOUPE_VISUALIZER_GRAPH_GRAPHCLUSTERS_H

#include "loupe/visualizer/graph/GraphModel.h"

namespace loupe::visualizer::graph {

/// Adds `result`'s clusters and refused merges to `model`, whose nodes and dispatches are
/// already built: fills GraphModel::clusters and refusedMerges, each node's clusters, the
/// cluster it is drawn in and its backend (NodeEntry::cluster, backend).
void addClusters(GraphModel &model, const compiler::CompileResult &result);

} // namespace loupe::visualizer::graph

#endif // LOUPE_VISUALIZER_GRAPH_GRAPHCLUSTERS_H
