//===- ArtifactEmitter.h - LLVM dialect -> shared object -------*- C++ -*-===//
//
// The artifact ABI loupe-ral-v1 (docs/artifact-abi.md), which the runtime
// (ral/lib/core/Artifact.cpp) loads with dlopen and no MLIR/LLVM in the process:
//   const char loupe_manifest[];         JSON: entry signature (dtypes, shapes), dispatch table,
//                                        every RAL API name the code calls ("ral_apis")
//   void loupe_ral_entry(void *ctx);     ctx: the runtime's ExecutionContext
//   const char loupe_weights[];          the weight blob (section `.loupe.weights`), when the
//                                        model has large constants (manifest "weights")
//   imports ral_api_call(ctx, name, args) (ral/include/loupe/ral/ral_api.h), memrefCopy, libm.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PIPELINES_ARTIFACTEMITTER_H
#define LOUPE_PIPELINES_ARTIFACTEMITTER_H

#include "SnapshotRecorder.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

namespace loupe::compiler {

/// One tensor of the entry signature, as the manifest records it.
struct TensorSignature {
  std::string dtype;            ///< MLIR element type name: "f32", "i64", "i1", ...
  std::vector<int64_t> shape;   ///< Static shape.
  /// Inputs: the value the compile specialized it to (`loupe.specialized`, row-major; bools
  /// as 0/1); empty when any value may be fed.
  std::vector<double> specialized;
};

/// One constant of the weight blob (ral-externalize-constants' `ral.weights` table).
struct WeightSlot {
  std::string name;          ///< The constant global it was.
  int64_t offset = 0;        ///< Byte offset in the blob (64-byte aligned).
  llvm::ArrayRef<char> data; ///< Its bytes, owned by the MLIRContext (resource or dense attr).
};

/// What the manifest says besides the code: captured from the IR before it is lowered away.
struct ArtifactInfo {
  std::string modelPath;
  std::string target;
  std::string entry;                    ///< Name of the MLIR entry function.
  std::vector<TensorSignature> inputs;
  std::vector<TensorSignature> outputs;
  std::vector<DispatchSummary> dispatches; ///< The entry's `loupe.dispatches`.
  std::vector<WeightSlot> weights;         ///< The weight blob's constants, by offset.
  int64_t weightBytes = 0;                 ///< The blob's size in bytes (0: no blob).
  /// The entry's `loupe.buffer_plan` (ral-plan-buffers), field by field; empty: none.
  std::vector<std::pair<std::string, int64_t>> bufferPlan;
};

/// Captures the entry signature of a tensor-level module (after the graph phase). Fails with
/// a message when there is no entry function or a type is not a static tensor.
mlir::LogicalResult captureSignature(mlir::ModuleOp module, ArtifactInfo &info,
                                     std::string &error);
/// Captures the dispatch table that loupe-instrument-dispatches attached to the entry, with
/// each library dispatch's `loupe.fallbacks` (ral-lower-to-library-call), and the entry's
/// `loupe.buffer_plan` (ral-plan-buffers).
void captureDispatches(mlir::ModuleOp module, ArtifactInfo &info);

/// Captures the weight blob's table (`ral.weights`, from ral-externalize-constants). Fails
/// when a constant has no bytes (an elided resource).
mlir::LogicalResult captureWeights(mlir::ModuleOp module, ArtifactInfo &info,
                                   std::string &error);

/// Translates an LLVM-dialect module to LLVM IR (phase "llvm": one snapshot), then, if
/// `toArtifact`, adds the entry wrapper and manifest, optimises at O3, emits object code
/// for the host CPU and links `outPath` (phase "artifact": one snapshot per step).
/// On failure returns false with `error` set.
bool emitArtifact(mlir::ModuleOp module, const ArtifactInfo &info, bool toArtifact,
                  const std::string &outPath, SnapshotRecorder &recorder, std::string &finalIr,
                  std::string &error);

} // namespace loupe::compiler

#endif // LOUPE_PIPELINES_ARTIFACTEMITTER_H
