//===- Passes.h - Loupe's own compiler passes ------------------*- C++ -*-===//
#ifndef LOUPE_TRANSFORMS_PASSES_H
#define LOUPE_TRANSFORMS_PASSES_H

#include "loupe/Dialect/Loupe/IR/LoupeDialect.h"
#include "loupe/Dialect/Ral/IR/RalDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace loupe {

#define GEN_PASS_DECL
#include "loupe/Transforms/Passes.h.inc"

/// Finds the entry function: `main` if present, else the only public function; null otherwise.
mlir::func::FuncOp lookupEntryFunction(mlir::ModuleOp module);

/// The entry function after ral-inject-execution-context: defined, its first argument a
/// `!ral.context`. Otherwise emits an error on `module` naming that pass and returns null.
mlir::func::FuncOp lookupRalEntry(mlir::ModuleOp module);

/// Provenance of `loc` as the dispatch table shows it: the names of its NameLocs (ONNX nodes),
/// else file:line, deduplicated in order and comma-separated.
std::string describeLoc(mlir::Location loc);

/// `!llvm.ptr` to an internal NUL-terminated global holding `text` (one global per distinct
/// text, named by its hash), for string arguments of RAL calls.
mlir::Value globalStringAddress(mlir::OpBuilder &builder, mlir::Location loc,
                                mlir::ModuleOp module, llvm::StringRef text);

/// Registers every pass above with the global registry (for loupe-opt and pipelines).
#define GEN_PASS_REGISTRATION
#include "loupe/Transforms/Passes.h.inc"

} // namespace loupe

#endif // LOUPE_TRANSFORMS_PASSES_H
