//===- FuseClusters.cpp - Fuse the ops inside each loupe.fusion region ----------===//
//
// See Passes.td. The fusion itself is upstream linalg's (ElementwiseOpFusion.cpp); this pass
// decides where it may apply (within one region, never out of it) and keeps a fused
// producer's result that leaves the region as a result of the fused op.
//
//===----------------------------------------------------------------------===//
#include "OpPatterns.h"
#include "StitchFusion.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace loupe {
#define GEN_PASS_DEF_FUSECLUSTERS
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;

/// Named linalg ops of `fusion` that become generics so that elementwise fusion sees them
/// (contractions stay named: library lowering and vectorisation want them; so does the op of a
/// library cluster, a pooling for one; fills stay inits).
static bool generalizable(Operation *op, loupe::loupeir::FusionOp fusion) {
  return isa<linalg::LinalgOp>(op) && !isa<linalg::GenericOp, linalg::FillOp>(op) &&
         loupe::classifyOp(op) != loupe::OpPattern::kOutElemwiseFusable &&
         !(fusion.getKind() == "kLibrary" && !loupe::libraryOpKind(op).empty());
}

/// `operand`'s producer and reader are in one region, outside a kStitch row loop's shared
/// values (there a value two ops read is computed once into a row buffer that stays in L1,
/// rather than once per reader: softmax's exp is the costly case).
static bool inOneRegion(OpOperand *operand) {
  Operation *producer = operand->get().getDefiningOp();
  Operation *consumer = operand->getOwner();
  if (!producer)
    return false;
  auto region = producer->getParentOfType<loupe::loupeir::FusionOp>();
  bool stitchRow = producer->getParentOfType<scf::ForallOp>() && !producer->hasOneUse();
  return region && region == consumer->getParentOfType<loupe::loupeir::FusionOp>() &&
         !stitchRow;
}

/// A result of `producer` is also an output of its region (the region's yield reads it).
static bool leavesRegion(Operation *producer) {
  return llvm::any_of(producer->getUsers(),
                      [](Operation *user) { return isa<loupe::loupeir::YieldOp>(user); });
}

/// Fuse `operand`'s producer into its reader (upstream's pattern, which recomputes a
/// producer that has other readers) inside one region, unless the producer's result also
/// leaves the region: FuseKeepingProducerResults takes that case.
static bool sameCluster(OpOperand *operand) {
  return inOneRegion(operand) && !leavesRegion(operand->get().getDefiningOp());
}

namespace {
/// A producer whose result leaves the region and is read inside it: fused into its reader
/// as one generic with both results (upstream fuseElementwiseOps keeps such a producer's
/// result as a result of the fused op; its pattern rewires only the reader's), so the value
/// is computed once, by one kernel. An LSTM step's c, read by its h and yielded for the next
/// step: one kernel per step for both instead of two. Every other reader of the producer
/// comes after the reader it fuses into, which is where the fused op goes. The reader is
/// elementwise: a reduction with a second, elementwise result would not vectorise
/// (loupe-vectorize-cpu splits rows of one-result reductions), so there the producer stays
/// its own op.
struct FuseKeepingProducerResults : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (consumer.getNumReductionLoops() != 0)
      return failure();
    for (OpOperand &operand : consumer->getOpOperands()) {
      auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
      if (!producer || !inOneRegion(&operand) || !leavesRegion(producer) ||
          !linalg::areElementwiseOpsFusable(&operand) ||
          llvm::any_of(producer->getUsers(), [&](Operation *user) {
            return user != consumer && (user->getBlock() != consumer->getBlock() ||
                                        user->isBeforeInBlock(consumer));
          }))
        continue;
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fused))
        continue;
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(consumer);
      if (producer->use_empty())
        rewriter.eraseOp(producer);
      return success();
    }
    return failure();
  }
};
} // namespace

/// A reshape folds into a linalg op by expanding its loops, which turns a named op into a
/// generic: never a library contraction's (a matmul must stay a matmul for
/// ral-lower-to-library-call; when it did not, ResNet-50's 1x1 convolutions ran as generated
/// loops, 1.7 of its 1.9 s).
static bool reshapeFoldable(OpOperand *operand) {
  if (!sameCluster(operand))
    return false;
  Operation *owner = operand->getOwner();
  Operation *linalgOp = isa<linalg::LinalgOp>(owner) ? owner : operand->get().getDefiningOp();
  return !linalgOp || loupe::classifyOp(linalgOp) != loupe::OpPattern::kOutElemwiseFusable;
}

namespace {
struct FuseClustersPass : loupe::impl::FuseClustersBase<FuseClustersPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    IRRewriter rewriter(ctx);
    getOperation().walk([&](loupe::loupeir::FusionOp fusion) {
      auto ops = llvm::to_vector(llvm::make_pointer_range(fusion.getBody().front()));
      if (llvm::count_if(ops, [](Operation *op) { return isa<linalg::LinalgOp>(op); }) < 2)
        return;
      for (Operation *op : ops)
        if (generalizable(op, fusion)) {
          rewriter.setInsertionPoint(op);
          (void)linalg::generalizeNamedOp(rewriter, cast<linalg::LinalgOp>(op));
        }
    });
    // kStitch regions become one loop over rows first; the fusion below then fuses the ops
    // inside each row.
    getOperation().walk([&](loupe::loupeir::FusionOp fusion) {
      if (fusion.getKind() == "kStitch" && failed(loupe::stitchRows(rewriter, fusion)))
        fusion->setAttr("reason", rewriter.getStringAttr(
                                      fusion.getReason() + "; not stitched: its last result is "
                                                           "not one row-aligned linalg op"));
    });

    // The same pattern set as upstream's linalg-fuse-elementwise-ops, with our control.
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, sameCluster);
    patterns.add<FuseKeepingProducerResults>(ctx);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, reshapeFoldable);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(patterns);
    linalg::populateEraseUnnecessaryInputsPatterns(patterns);
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // After the fusion, whose patterns give every init that no payload reads a tensor.empty.
    getOperation().walk([&](scf::ForallOp loop) {
      if (auto fusion = dyn_cast<loupe::loupeir::FusionOp>(loop->getParentOp());
          fusion && fusion.getKind() == "kStitch" && loupe::writesStreamedOutput(fusion))
        loupe::giveIntermediatesScratchRows(rewriter, loop);
    });
  }
};
} // namespace
