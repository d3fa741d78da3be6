//===- FuseClusters.cpp - Fuse the ops inside each loupe.fusion region ----------===//
//
// See Passes.td. The fusion itself is upstream linalg's (ElementwiseOpFusion.cpp); this pass
// only decides where it may apply: within one region, never out of it.
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

/// Fuse `operand`'s producer into its reader only inside one region, and only when the
/// producer's result does not also leave the region (it would then be computed twice).
static bool sameCluster(OpOperand *operand) {
  Operation *producer = operand->get().getDefiningOp();
  Operation *consumer = operand->getOwner();
  if (!producer)
    return false;
  auto region = producer->getParentOfType<loupe::loupeir::FusionOp>();
  // In a kStitch row loop, a value two ops read is computed once into a row buffer (the row
  // stays in L1) rather than once per reader: softmax's exp is the costly case.
  bool stitchRow = producer->getParentOfType<scf::ForallOp>() && !producer->hasOneUse();
  return region && region == consumer->getParentOfType<loupe::loupeir::FusionOp>() &&
         !stitchRow &&
         llvm::none_of(producer->getUsers(),
                       [](Operation *user) { return isa<loupe::loupeir::YieldOp>(user); });
}

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
