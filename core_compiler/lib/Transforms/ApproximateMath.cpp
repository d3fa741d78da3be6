//===- ApproximateMath.cpp - Transcendental math as polynomials that vectorise ----===//
//
// See Passes.td. The approximations are MLIR's own (upstream
// mlir/lib/Dialect/Math/Transforms/PolynomialApproximation.cpp: range reduction plus minimax
// or Cephes polynomials); this pass only applies them where the compile asks for them and
// says so in the IR, so every snapshot after it shows which math a kernel runs. Which ops:
// isApproximatedMath (OpPatterns.h), those whose polynomial stays within a few ulps of glibc
// over its whole range (MathApproximationTest measures it); sin and cos lose up to 1e-6
// absolute on range reduction, atan 40 ulps, cbrt 12, asin and acos 0.04 near +-1: libm.
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"
#include "OpPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace loupe {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;

namespace {
struct ApproximateMathPass : loupe::impl::ApproximateMathBase<ApproximateMathPass> {
  using ApproximateMathBase::ApproximateMathBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    module->setAttr("loupe.math", StringAttr::get(&getContext(), exact ? "libm" : "polynomial"));
    if (exact)
      return;
    llvm::SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (loupe::isApproximatedMath(op))
        ops.push_back(op);
    });
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    GreedyRewriteConfig config;
    config.strictMode = GreedyRewriteStrictness::ExistingAndNewOps;
    if (failed(applyOpPatternsAndFold(ops, std::move(patterns), config)))
      return signalPassFailure();
  }
};
} // namespace
