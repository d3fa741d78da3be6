//===- InlineClusters.cpp - Dissolve loupe.fusion regions ------------------------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"

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
      for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
        op.setAttr("loupe.cluster", attrs.getI64IntegerAttr(fusion.getId()));
        op.moveBefore(fusion);
      }
      fusion.replaceAllUsesWith(yield.getValues());
      fusion.erase();
    });
  }
};
} // namespace
