//===- LocHashes.h - What each source op's IR looks like after a pass -*- C++ -*-===//
//
// Per source op (the NameLoc names, else file:line, that describeLoc gives a dispatch), a hash
// of every op that carries it: its name, attributes, operand and result types and the names of
// the ops that define its operands, in walk order. SSA numbers and pointers stay out, so the
// hash is the same in two compiles of one model whose IR for that source op is the same, and
// differs from the first pass where they part: what pass attribution compares
// (docs/pipeline.md, "Per-source-op hashes"). Large element attributes (weights) count by type.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PIPELINES_LOCHASHES_H
#define LOUPE_PIPELINES_LOCHASHES_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mlir {
class Operation;
}

namespace loupe::compiler {

/// Hashes the ops under a root by source op. One per compile: attributes, types and locations
/// are uniqued in the MLIRContext, so the text hash of each distinct one is computed once and
/// kept by pointer (which the context keeps alive for the compile).
class LocHasher {
public:
  /// Source op -> hash of its ops under `root`.
  std::map<std::string, uint64_t> hashOpsBySourceOp(mlir::Operation *root);

private:
  uint64_t hashOf(mlir::Attribute attr);
  uint64_t hashOf(mlir::Type type);
  uint64_t hashOp(mlir::Operation *op);
  const std::vector<std::string> &sourceOpsOf(mlir::Location loc);

  llvm::DenseMap<mlir::Attribute, uint64_t> attributes_;
  llvm::DenseMap<mlir::Type, uint64_t> types_;
  llvm::DenseMap<mlir::Location, std::vector<std::string>> names_;
};

} // namespace loupe::compiler

#endif // LOUPE_PIPELINES_LOCHASHES_H
