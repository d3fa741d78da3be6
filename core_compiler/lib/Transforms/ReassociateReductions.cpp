//===- ReassociateReductions.cpp - Float reductions that may be reordered ---------===//
//
// See Passes.td. A strict left-to-right float sum is a chain LLVM may not split into vector
// lanes; `reassoc` on the combining op allows it, for that op alone.
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace loupe {
#define GEN_PASS_DEF_REASSOCIATEREDUCTIONS
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;

namespace {
struct ReassociateReductionsPass
    : loupe::impl::ReassociateReductionsBase<ReassociateReductionsPass> {
  void runOnOperation() override {
    getOperation().walk([](linalg::GenericOp generic) {
      if (generic.getNumReductionLoops() == 0)
        return;
      Block *body = generic.getBlock();
      for (OpOperand &init : generic.getDpsInitsMutable()) {
        BlockArgument accumulator = body->getArgument(init.getOperandNumber());
        for (Operation *user : accumulator.getUsers()) {
          if (!isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
                   arith::MaxNumFOp, arith::MinNumFOp>(user))
            continue;
          auto fastmath = cast<arith::ArithFastMathInterface>(user);
          auto flags = fastmath.getFastMathFlagsAttr();
          arith::FastMathFlags value =
              (flags ? flags.getValue() : arith::FastMathFlags::none) | arith::FastMathFlags::reassoc;
          user->setAttr(fastmath.getFastMathAttrName(),
                        arith::FastMathFlagsAttr::get(user->getContext(), value));
        }
      }
    });
  }
};
} // namespace
