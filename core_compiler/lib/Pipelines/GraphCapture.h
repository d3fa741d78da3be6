//===- GraphCapture.h - The op graph and clusters for the GUI ------*- C++ -*-===//
#ifndef LOUPE_PIPELINES_GRAPHCAPTURE_H
#define LOUPE_PIPELINES_GRAPHCAPTURE_H

#include "loupe/Pipelines/CompileResult.h"

#include "mlir/IR/BuiltinOps.h"

namespace loupe::compiler {

/// Fills `graph` with the ops of the entry function (arguments as "input" nodes, constants
/// left out) and their data edges; node names are the ops' `loc` as the dispatch table shows.
void captureGraph(mlir::ModuleOp module, OpGraph &graph);

/// Fills `clusters` from the entry's loupe.fusion regions and `refused` from its
/// `loupe.refused_merges` (the output of loupe-form-clusters).
void captureClusters(mlir::ModuleOp module, std::vector<ClusterSummary> &clusters,
                     std::vector<RefusedMerge> &refused);

} // namespace loupe::compiler

#endif // LOUPE_PIPELINES_GRAPHCAPTURE_H
