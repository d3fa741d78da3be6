//===- StitchFusion.cpp - BladeDISC's kStitch fusion on the CPU -----------------===//
//
// See StitchFusion.h. Membership follows BladeDISC's stitch rules (seed 003) for CPU rows;
// the kernel is built from upstream linalg unit-dim folding (DropUnitDims.cpp) and SCF
// tile-and-fuse (TileUsingInterface.cpp).
//
//===----------------------------------------------------------------------===//
#include "StitchFusion.h"

#include "OpPatterns.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <numeric>

using namespace mlir;

std::optional<llvm::SmallVector<int64_t>> loupe::rowsOfReduction(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  const char *kind = reductionKind(op);
  if (!linalgOp || !kind || llvm::StringRef(kind) != "kRowReduction")
    return std::nullopt;
  llvm::SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  auto iterators = linalgOp.getIteratorTypesArray();
  size_t rows = 0;
  while (rows < iterators.size() && iterators[rows] == utils::IteratorType::parallel)
    ++rows;
  if (rows == 0 || llvm::any_of(llvm::drop_begin(iterators, rows), [](auto it) {
        return it != utils::IteratorType::reduction;
      }))
    return std::nullopt;
  llvm::SmallVector<int64_t> shape(ranges.begin(), ranges.begin() + rows);
  if (llvm::any_of(shape, ShapedType::isDynamic))
    return std::nullopt;
  return shape;
}

int64_t loupe::rowCount(llvm::ArrayRef<int64_t> rows) {
  return std::accumulate(rows.begin(), rows.end(), int64_t(1), std::multiplies<>());
}

/// True when `map` uses loop `i < rows` only as its result `i`.
static bool usesRowsInPlace(AffineMap map, size_t rows) {
  for (auto [position, expr] : llvm::enumerate(map.getResults())) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      if (dim.getPosition() < rows && dim.getPosition() != position)
        return false;
      continue;
    }
    for (size_t i = 0; i < rows; ++i)
      if (expr.isFunctionOfDim(i))
        return false;
  }
  return true;
}

bool loupe::isRowAligned(Operation *op, llvm::ArrayRef<int64_t> rows,
                         llvm::function_ref<bool(Value)> fromRows) {
  auto startsWithRows = [&](Type t) {
    auto type = dyn_cast<RankedTensorType>(t);
    return type && type.hasStaticShape() && type.getShape().take_front(rows.size()) == rows;
  };
  // A reshape: its collapsed side starts with the rows, so its groups keep them apart from the
  // rest (1x8x10 -> 8x10 for rows [8]).
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
    return startsWithRows(collapse.getResultType()) && collapse.getSrcType().hasStaticShape();
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op))
    return startsWithRows(expand.getSrcType()) && expand.getResultType().hasStaticShape();
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics() || linalgOp.getNumLoops() < rows.size())
    return false;
  llvm::SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  auto iterators = linalgOp.getIteratorTypesArray();
  for (size_t i = 0; i < rows.size(); ++i)
    if (ranges[i] != rows[i] || iterators[i] != utils::IteratorType::parallel)
      return false;
  // Row `i` at result `i`, or 0 for a row dim of 1 (TOSA reads a batch of 1 so).
  auto readsRow = [&](AffineMap map) {
    for (size_t i = 0; i < rows.size(); ++i) {
      if (map.getNumResults() <= i)
        return false;
      AffineExpr e = map.getResult(i);
      auto zero = dyn_cast<AffineConstantExpr>(e);
      if (e != getAffineDimExpr(i, op->getContext()) && !(rows[i] == 1 && zero && !zero.getValue()))
        return false;
    }
    return true;
  };
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
    if (!usesRowsInPlace(map, rows.size()))
      return false;
    // Results, and values of the stitch, go row by row.
    if ((linalgOp.isDpsInit(&operand) || fromRows(operand.get())) && !readsRow(map))
      return false;
  }
  return true;
}

/// The op computing `v` behind any reshapes (unit-dim folding leaves one after the last op).
static Operation *computingOp(Value v) {
  Operation *def = v.getDefiningOp();
  while (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
    def = def->getOperand(0).getDefiningOp();
  return def;
}

/// True when `v` (behind reshapes) is what the row loop writes into its result.
static bool writtenToResult(Value v) {
  return llvm::any_of(v.getUsers(), [](Operation *user) {
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user))
      return writtenToResult(user->getResult(0));
    return isa<tensor::ParallelInsertSliceOp>(user);
  });
}

bool loupe::writesStreamedOutput(loupeir::FusionOp fusion) {
  return llvm::any_of(fusion->getResults(), [](Value result) {
    std::optional<int64_t> bytes = staticBytes(result.getType());
    return bytes && *bytes >= kMinStreamedOutputBytes &&
           llvm::any_of(result.getUsers(), [](Operation *u) { return isa<func::ReturnOp>(u); });
  });
}

void loupe::giveIntermediatesScratchRows(RewriterBase &rewriter, scf::ForallOp loop) {
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
    if (!linalgOp || reductionKind(&op) || linalgOp.getNumDpsInits() != 1 ||
        writtenToResult(op.getResult(0)))
      continue;
    OpOperand *init = linalgOp.getDpsInitOperand(0);
    auto empty = init->get().getDefiningOp<tensor::EmptyOp>();
    std::optional<int64_t> bytes = staticBytes(init->get().getType());
    if (!empty || !bytes || *bytes > kMaxScratchBytes)
      continue;
    rewriter.setInsertionPoint(&op);
    Value scratch = rewriter.create<bufferization::AllocTensorOp>(op.getLoc(), empty.getType(),
                                                                  ValueRange{});
    rewriter.modifyOpInPlace(&op, [&] { init->set(scratch); });
    if (empty->use_empty())
      rewriter.eraseOp(empty);
  }
}

LogicalResult loupe::stitchRows(RewriterBase &rewriter, loupeir::FusionOp fusion) {
  MLIRContext *ctx = fusion.getContext();
  // Unit dims (TOSA's kept reduction dim, a batch of 1) folded away: the reshape between a
  // reduction and its readers goes, so tile-and-fuse reaches the reduction.
  RewritePatternSet patterns(ctx);
  linalg::ControlDropUnitDims unitDims;
  linalg::populateFoldUnitExtentDimsPatterns(patterns, unitDims);
  tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
  if (failed(applyPatternsAndFoldGreedily(fusion.getOperation(), std::move(patterns))))
    return failure();

  // The rows: as many as the region's reductions keep (the cluster phase made them agree and
  // checked every op reads and writes them in place; unit-dim folding may have changed ranks,
  // so the root's rows are the shortest prefix of its loops holding that many).
  std::optional<int64_t> rows;
  fusion.getBody().walk([&](linalg::LinalgOp op) {
    if (auto shape = rowsOfReduction(op); shape && !rows)
      rows = rowCount(*shape);
  });
  auto yield = cast<loupeir::YieldOp>(fusion.getBody().front().getTerminator());
  auto root = dyn_cast_or_null<linalg::LinalgOp>(computingOp(yield->getOperands().back()));
  if (!rows || !root || root->getParentOp() != fusion)
    return failure();
  llvm::SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  auto iterators = root.getIteratorTypesArray();
  llvm::SmallVector<OpFoldResult> tileSizes(ranges.size(), rewriter.getIndexAttr(0));
  for (int64_t i = 0, covered = 1; covered != *rows; ++i) {
    if (i == int64_t(ranges.size()) || ShapedType::isDynamic(ranges[i]) ||
        iterators[i] != utils::IteratorType::parallel || *rows % (covered * ranges[i]))
      return failure();
    covered *= ranges[i];
    tileSizes[i] = rewriter.getIndexAttr(1);
  }

  scf::SCFTileAndFuseOptions options;
  options.tilingOptions.setTileSizes(tileSizes).setLoopType(
      scf::SCFTilingOptions::LoopType::ForallOp);
  // Fuse the region's own ops, except those whose result also leaves it: they are computed
  // whole before the loop, which then reads their rows.
  options.setFusionControlFn([&](tensor::ExtractSliceOp, OpResult producer, bool) {
    bool inside = producer.getOwner()->getParentOp() == fusion.getOperation();
    bool leaves = llvm::any_of(producer.getUsers(), [](Operation *user) {
      return isa<loupeir::YieldOp>(user);
    });
    return std::make_tuple(inside && !leaves, false);
  });
  rewriter.setInsertionPoint(root);
  FailureOr<scf::SCFTileAndFuseResult> tiled = scf::tileConsumerAndFuseProducersUsingSCF(
      rewriter, cast<TilingInterface>(root.getOperation()), options);
  if (failed(tiled))
    return failure();
  for (auto [original, replacement] : tiled->replacements)
    rewriter.replaceAllUsesWith(original, replacement);
  // Tile-and-fuse clones a producer once per reader (softmax's max and exp twice): one each.
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, fusion);
  return success();
}
