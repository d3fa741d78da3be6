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

#include "loupe/Dialect/Loupe/IR/LoupeDialect.h"

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

} // namespace loupe

#endif // LOUPE_TRANSFORMS_STITCHFUSION_H
