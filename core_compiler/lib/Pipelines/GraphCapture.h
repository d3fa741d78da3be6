//===- GraphCapture.h - The model's op graph after the graph phase --*- C++ -*-===//
#ifndef LOUPE_PIPELINES_GRAPHCAPTURE_H
#define LOUPE_PIPELINES_GRAPHCAPTURE_H

#include "loupe/Pipelines/Compiler.h"

#include "mlir/IR/BuiltinOps.h"

namespace loupe::compiler {

/// Fills `graph` with the ops of the entry function (arguments as "input" nodes, constants
/// left out) and their data edges; node names are the ops' `loc` as the dispatch table shows.
void captureGraph(mlir::ModuleOp module, OpGraph &graph);

} // namespace loupe::compiler

#endif // LOUPE_PIPELINES_GRAPHCAPTURE_H
