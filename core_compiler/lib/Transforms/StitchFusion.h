//===- StitchFusion.h - BladeDISC's kStitch fusion on the CPU ---------*- C++ -*-===//
//
// A kStitch fusion (BladeDISC, seed 003) holds row reductions together with the ops that read
// their results, e.g. softmax's max, exp, sum and scale, or LayerNorm's two means and its
// scale: one kernel computes each row completely (its reductions, then their readers) while
// the row is in cache, instead of one pass over memory per reduction. The cluster phase
// decides membership (rowsOfReduction, isRowAligned); loupe-fuse-clusters builds the kernel
// (stitchRows): upstream tile-and-fuse (scf::tileConsumerAndFuseProducersUsingSCF) of the
// region's result along its row dimensions, one row per iteration of an scf.forall.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_TRANSFORMS_STITCHFUSION_H
#define LOUPE_TRANSFORMS_STITCHFUSION_H

#include "CpuMemory.h"
#include "loupe/Dialect/Loupe/IR/LoupeDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace loupe {

/// The row shape of a row reduction: the static ranges of its leading parallel loops when
/// every loop after them is a reduction, e.g. [4096] for a sum over the rows of 4096x4096 and
/// [1, 12, 197] for a softmax's max over 1x12x197x197. nullopt for other ops, column and
/// windowed reductions, dynamic ranges, and a reduction to a scalar.
std::optional<llvm::SmallVector<int64_t>> rowsOfReduction(mlir::Operation *op);

/// How many rows a row shape holds (the product of its dims).
int64_t rowCount(llvm::ArrayRef<int64_t> rows);

/// True when `op` reads and writes whole rows of shape `rows`, so a loop over rows can compute
/// it one row at a time: a linalg op whose leading loops have exactly the ranges `rows`, are
/// parallel, and whose indexing maps use leading loop `i` only as result `i`; an operand that
/// `fromRows` says is computed row by row too (inside the stitch) must be read at the row the
/// op writes (its leading results are those loops), while another may be broadcast across rows
/// (LayerNorm's scale). Or a reshape of static shapes whose collapsed side starts with `rows`
/// (the unit dim TOSA keeps after a reduction; a batch of 1 collapsed away).
bool isRowAligned(mlir::Operation *op, llvm::ArrayRef<int64_t> rows,
                  llvm::function_ref<bool(mlir::Value)> fromRows);

/// Builds the one kernel of the kStitch region `fusion`: its unit dims are folded, then its
/// last result is tiled one row per iteration of an `scf.forall` and every op of the region it
/// reads is fused into that loop (recomputed per row, not stored whole), unless that op's
/// result also leaves the region. Fails (leaving the region correct, as separate kernels) when
/// the region has no row reduction left or its last result is not a tileable op.
mlir::LogicalResult stitchRows(mlir::RewriterBase &rewriter, loupeir::FusionOp fusion);

/// True when a result of `fusion` is an output of its function (returned) of at least
/// kMinStreamedOutputBytes: ral-stream-output-stores will make its stores non-temporal.
bool writesStreamedOutput(loupeir::FusionOp fusion);

/// Gives each row intermediate of the stitch loop `loop` (an elementwise result that the
/// row's reductions and last op read, softmax's exp) a scratch row of its own when it fits
/// kMaxScratchBytes, so the output row is written once, by the last op, and never read: with
/// the `tensor.empty` inits that tile-and-fuse gives, CSE merges the intermediate's init with
/// the last op's and bufferization computes the intermediate in the output row, which then
/// costs the output's read for ownership and rules out non-temporal stores. Its
/// `bufferization.alloc_tensor` is never merged; the CPU outliner makes it one stack buffer
/// per kernel (hoistScratchBuffers). Run after elementwise fusion, whose patterns reset every
/// init that no payload reads to a `tensor.empty`.
void giveIntermediatesScratchRows(mlir::RewriterBase &rewriter, mlir::scf::ForallOp loop);

} // namespace loupe

#endif // LOUPE_TRANSFORMS_STITCHFUSION_H
