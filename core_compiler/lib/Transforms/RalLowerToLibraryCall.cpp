//===- RalLowerToLibraryCall.cpp - linalg library ops -> ral.dispatch ---------===//
#include "loupe/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

namespace loupe {
#define GEN_PASS_DEF_RALLOWERTOLIBRARYCALL
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;
using namespace loupe::ralir;

/// The `linalg.fill` of 0.0 into `output` right before `op` (nothing in between touches
/// `output`), or null.
static linalg::FillOp zeroFillBefore(Operation *op, Value output) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (fill && fill.getOutputs()[0] == output) {
      FloatAttr value;
      if (matchPattern(fill.getInputs()[0], m_Constant(&value)) && value.getValue().isZero())
        return fill;
      return nullptr;
    }
    if (llvm::is_contained(prev->getOperands(), output) || prev->getNumRegions() > 0)
      return nullptr;
  }
  return nullptr;
}

static bool isLibraryOperand(Value v, int64_t rank) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.getRank() == rank && type.getElementType().isF32() &&
         type.hasStaticShape() && type.getLayout().isIdentity();
}

/// Replaces `op` (C += A * B on zero-filled C) by `callee(ctx, A, B, C, false, false)`.
static void replaceWithGemm(Operation *op, linalg::FillOp fill, Value ctx, StringRef callee) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value noTranspose = b.create<arith::ConstantIntOp>(loc, 0, 1);
  llvm::SmallVector<Value> args(op->getOperands());
  args.append({noTranspose, noTranspose});
  auto dispatch = b.create<DispatchOp>(loc, TypeRange{}, ctx, args, callee, "cpu",
                                       /*backend_config=*/"", /*abi=*/nullptr,
                                       /*has_side_effect=*/true);
  dispatch.setAbi(dispatch.encodedName());
  op->erase();
  fill->erase();
}

namespace {
struct RalLowerToLibraryCallPass
    : loupe::impl::RalLowerToLibraryCallBase<RalLowerToLibraryCallPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (func.isExternal() || func.getNumArguments() == 0 ||
          !isa<ContextType>(func.getArgument(0).getType()))
        return;
      Value ctx = func.getArgument(0);
      llvm::SmallVector<Operation *> candidates;
      func.walk([&](Operation *op) {
        if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
          candidates.push_back(op);
      });
      for (Operation *op : candidates) {
        int64_t rank = isa<linalg::MatmulOp>(op) ? 2 : 3;
        if (!llvm::all_of(op->getOperands(), [&](Value v) { return isLibraryOperand(v, rank); }))
          continue;
        Value output = op->getOperand(2);
        if (linalg::FillOp fill = zeroFillBefore(op, output))
          replaceWithGemm(op, fill, ctx, rank == 2 ? "ral_gemm" : "ral_batch_gemm");
      }
    });
  }
};
} // namespace
