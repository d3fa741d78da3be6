//===- LinearizeElementwise.cpp - Elementwise kernels as one contiguous loop -----===//
//
// See Passes.td. The collapse itself is upstream linalg's (CollapseDimensions in
// ElementwiseOpFusion.cpp); this pass only says which ops may take it.
//
//===----------------------------------------------------------------------===//
#include "OpPatterns.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace loupe {
#define GEN_PASS_DEF_LINEARIZEELEMENTWISE
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;

/// An all-parallel generic of 2 or more loops whose every operand is a static, row-major
/// memref read and written at the same index (identity maps, unit dims maybe pinned to 0).
static bool collapsible(linalg::GenericOp generic) {
  if (!generic.hasPureBufferSemantics() || generic.getNumLoops() < 2 ||
      generic.getNumReductionLoops() || generic.hasIndexSemantics())
    return false;
  for (OpOperand &operand : generic->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
        type.getRank() != generic.getNumLoops() ||
        !loupe::readsAtOutputIndex(generic.getMatchingIndexingMap(&operand), type))
      return false;
  }
  return true;
}

/// All dims of a collapsible generic with identity maps: one group, else none.
static SmallVector<ReassociationIndices> contiguousDims(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !collapsible(generic) ||
      !llvm::all_of(generic.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); }))
    return {};
  return {llvm::to_vector(llvm::seq<int64_t>(0, generic.getNumLoops()))};
}

namespace {
struct LinearizeElementwisePass
    : loupe::impl::LinearizeElementwiseBase<LinearizeElementwisePass> {
  void runOnOperation() override {
    // Unit dims first (TOSA reads a batch of 1 at index 0, which no collapse can take), only
    // on the generics that will collapse.
    RewritePatternSet patterns(&getContext());
    linalg::ControlDropUnitDims unitDims;
    unitDims.controlFn = [](Operation *op) -> SmallVector<unsigned> {
      auto generic = dyn_cast<linalg::GenericOp>(op);
      if (!generic || !collapsible(generic))
        return {};
      return llvm::to_vector(llvm::seq<unsigned>(0, generic.getNumLoops()));
    };
    linalg::populateFoldUnitExtentDimsPatterns(patterns, unitDims);
    linalg::populateCollapseDimensions(patterns, contiguousDims);
    memref::CollapseShapeOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
