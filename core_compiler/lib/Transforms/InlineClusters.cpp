//===- InlineClusters.cpp - Dissolve loupe.fusion regions ------------------------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"

#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace loupe {
#define GEN_PASS_DEF_INLINECLUSTERS
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;

namespace {
struct InlineClustersPass : loupe::impl::InlineClustersBase<InlineClustersPass> {
  void runOnOperation() override {
    Builder attrs(&getContext());
    getOperation().walk([&](loupe::loupeir::FusionOp fusion) {
      Block &body = fusion.getBody().front();
      auto yield = cast<loupe::loupeir::YieldOp>(body.getTerminator());
      IntegerAttr id = attrs.getI64IntegerAttr(fusion.getId());
      for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
        op.setAttr("loupe.cluster", id);
        // Bufferization rebuilds ops that are not destination-style (tensor.pad becomes a
        // fill and a copy) without their attributes but with their location.
        if (!isa<DestinationStyleOpInterface>(op))
          op.setLoc(FusedLoc::get(&getContext(), {op.getLoc()}, id));
        op.moveBefore(fusion);
      }
      fusion.replaceAllUsesWith(yield.getValues());
      fusion.erase();
    });
  }
};
} // namespace
